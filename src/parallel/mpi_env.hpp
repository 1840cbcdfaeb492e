#pragma once
// MPI start-up and the few process-wide facts the rest of the program asks for (thesis §8.1).
// MPI is initialised only when the process was started by an MPI launcher (mpirun/mpiexec set
// OMPI_COMM_WORLD_SIZE, PMIX_RANK or PMI_RANK): a plain `streamsolve` never touches MPI.
#include <string>

namespace ss::mpi {

bool launched_by_mpirun();
// MPI_Init when launched by mpirun (or when `force`); safe to call once.
void init(int* argc, char*** argv, bool force = false);
// MPI_Finalize if init ran.
void finalize();
bool active();
int rank();        // 0 without MPI
int size();        // 1 without MPI
int local_rank();  // rank among the processes on this host (for the GPU choice)
// Ends every rank of the job at once (MPI_Abort); without MPI, std::exit.
[[noreturn]] void abort(int code);

}  // namespace ss::mpi
