#pragma once
// Step 2 of a distributed run, alike for every physics (thesis §8.1, partition then refine): rank 0
// has read and checked the case on the base mesh; it partitions the base tets (METIS, one part per
// rank) and sends each rank its base piece with one layer (base_piece.hpp's BasePiece), how many
// times to refine it, the case file's text (the ranks parse it themselves: they need not see the
// file) and the groups of the whole mesh (a piece may lack some that the case names).
#include <cstdint>
#include <string>

#include <mpi.h>

#include "mesh/load_mesh.hpp"
#include "mesh/mesh_groups.hpp"
#include "parallel/base_piece.hpp"

namespace ss {

struct PieceAssignment {
  BasePiece base;
  std::int32_t levels = 0;  // refinements each rank makes of its base piece
  std::string case_text, case_path;
  PresentGroups groups;  // of the whole mesh
};

// Seconds of rank 0's two stages (for the JSON summary).
struct DistributeSeconds {
  double partition = 0, send = 0;
};

// Rank 0: partitions `base` (every topology table) into one part per rank of `comm`, sends every
// other rank its assignment (`case_path`'s text read here) and returns its own.
PieceAssignment send_piece_assignments(const LoadedMesh& base, int levels, const std::string& case_path,
                                       MPI_Comm comm, DistributeSeconds* seconds = nullptr);

// Every other rank: its assignment from rank 0.
PieceAssignment receive_piece_assignment(MPI_Comm comm);

}  // namespace ss
