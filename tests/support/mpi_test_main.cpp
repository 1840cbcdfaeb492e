// The main() of the GoogleTest programs every rank of `mpiexec -n N` runs: every rank runs every
// test; rank 0 prints the report (the other ranks' failures still print), and a failure on any
// rank fails the job (mpiexec's exit status).
#include <gtest/gtest.h>

#include <mpi.h>

#include "parallel/mpi_env.hpp"

int main(int argc, char** argv) {
  ss::mpi::init(&argc, &argv, true);
  ::testing::InitGoogleTest(&argc, argv);
  if (ss::mpi::rank() != 0) {
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
  }
  const int failed = RUN_ALL_TESTS();
  int any = 0;
  MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
  ss::mpi::finalize();
  return any;
}
