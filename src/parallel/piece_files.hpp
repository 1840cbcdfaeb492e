#pragma once
// The fields of a distributed run as one VTU piece per rank and a .pvtu over them (ParaView's
// convention), alike for every physics.
#include <functional>
#include <string>
#include <vector>

#include <mpi.h>

namespace ss {

// "<stem>_piece_<rank>.vtu": a rank's piece of "<stem>.pvtu".
std::string piece_name(const std::string& stem, int rank);

// Collective: every rank writes its piece of "<stem>.pvtu" in `directory` through `write(path)`,
// then waits for the others, so every piece is there when this returns (rank 0 writes the .pvtu
// after it). Returns the pieces' names in rank order.
std::vector<std::string> write_rank_pieces(const std::string& directory, const std::string& stem,
                                           const std::function<void(const std::string& path)>& write, MPI_Comm comm);

}  // namespace ss
