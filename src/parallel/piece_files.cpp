#include "parallel/piece_files.hpp"

#include <filesystem>

#include "parallel/message.hpp"

namespace ss {

std::string piece_name(const std::string& stem, int rank) { return stem + "_piece_" + std::to_string(rank) + ".vtu"; }

std::vector<std::string> write_rank_pieces(const std::string& directory, const std::string& stem,
                                           const std::function<void(const std::string& path)>& write, MPI_Comm comm) {
  int rank = 0, ranks = 1;
  mpi_check(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
  mpi_check(MPI_Comm_size(comm, &ranks), "MPI_Comm_size");
  write((std::filesystem::path(directory) / piece_name(stem, rank)).string());
  mpi_check(MPI_Barrier(comm), "MPI_Barrier");
  std::vector<std::string> names;
  for (int q = 0; q < ranks; ++q) names.push_back(piece_name(stem, q));
  return names;
}

}  // namespace ss
