#include "parallel/whole_gather.hpp"

namespace ss {

WholeGather::WholeGather(const std::vector<std::int64_t>& owned_global, MPI_Comm comm)
    : comm_(comm), owned_(std::int64_t(owned_global.size())), order_(all_gather(owned_global, comm)) {
  int ranks = 1;
  mpi_check(MPI_Comm_size(comm, &ranks), "MPI_Comm_size");
  counts_.assign(size_t(ranks), 0);
  const int mine = int(owned_global.size());
  mpi_check(MPI_Allgather(&mine, 1, MPI_INT, counts_.data(), 1, MPI_INT, comm), "MPI_Allgather");
  displacements_.assign(size_t(ranks), 0);
  for (int r = 1; r < ranks; ++r) displacements_[size_t(r)] = displacements_[size_t(r) - 1] + counts_[size_t(r) - 1];
  std::vector<char> seen(order_.size(), 0);
  for (std::int64_t g : order_) {
    SS_REQUIRE(g >= 0 && g < std::int64_t(order_.size()) && !seen[size_t(g)],
               "multigrid: entity " << g << " of the coarsest level is owned by no rank or by two");
    seen[size_t(g)] = 1;
  }
}

std::vector<double> WholeGather::gather(const std::vector<double>& owned_values) const {
  std::vector<double> in_order;
  gather_in_order(owned_values, in_order);
  std::vector<double> whole(order_.size());
  for (size_t k = 0; k < in_order.size(); ++k) whole[size_t(order_[k])] = in_order[k];
  return whole;
}

}  // namespace ss
