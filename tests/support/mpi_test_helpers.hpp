#pragma once
// Helpers of the GoogleTest programs every rank of `mpiexec -n N` runs (mpi_test_main.cpp).
#include <string>

#include <mpi.h>

#include "mesh/load_mesh.hpp"
#include "parallel/mpi_env.hpp"
#include "parallel/piece_assignment.hpp"

namespace ss::test {

// Every rank's base piece of `mesh` (a project mesh) for `levels` refinements on the ranks, with
// the case file `case_file` (both relative to the source tree), as the commands distribute them.
inline PieceAssignment assign_pieces(const std::string& mesh, int levels, const std::string& case_file) {
  if (mpi::rank() != 0) return receive_piece_assignment(MPI_COMM_WORLD);
  const LoadedMesh base = load_mesh(std::string(SS_SOURCE_DIR) + "/" + mesh, LoadOptions{});
  return send_piece_assignments(base, levels, std::string(SS_SOURCE_DIR) + "/" + case_file, MPI_COMM_WORLD);
}

inline double sum_over_ranks(double x) {
  MPI_Allreduce(MPI_IN_PLACE, &x, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return x;
}
inline double max_over_ranks(double x) {
  MPI_Allreduce(MPI_IN_PLACE, &x, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return x;
}

}  // namespace ss::test
