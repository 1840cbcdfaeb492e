#include "parallel/mpi_env.hpp"

#include <cstdlib>

#include <mpi.h>

#include "util/fatal_signal.hpp"

namespace ss::mpi {
namespace {
bool g_initialised = false;
int g_rank = 0, g_size = 1, g_local_rank = 0;
}  // namespace

bool launched_by_mpirun() {
  return std::getenv("OMPI_COMM_WORLD_SIZE") || std::getenv("PMIX_RANK") || std::getenv("PMI_RANK") ||
         std::getenv("PMI_SIZE");
}

void init(int* argc, char*** argv, bool force) {
  if (g_initialised || !(force || launched_by_mpirun())) return;
  int already = 0;
  MPI_Initialized(&already);
  if (!already) {
    leave_fatal_signals_to_mpi();
    MPI_Init(argc, argv);
  }
  g_initialised = true;
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  // Errors inside MPI calls come back as codes we turn into ss::Error (never a silent hang).
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, g_rank, MPI_INFO_NULL, &node);
  MPI_Comm_rank(node, &g_local_rank);
  MPI_Comm_free(&node);
}

void finalize() {
  if (!g_initialised) return;
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Finalize();
  g_initialised = false;
}

bool active() { return g_initialised; }
int rank() { return g_rank; }
int size() { return g_size; }
int local_rank() { return g_local_rank; }

void abort(int code) {
  if (g_initialised) MPI_Abort(MPI_COMM_WORLD, code);
  std::exit(code);
}

}  // namespace ss::mpi
