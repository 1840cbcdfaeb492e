#pragma once
// A level of entities gathered whole on every rank (the coarsest level of a multigrid over the
// ranks): every rank's owned entries, placed by global id, with one MPI_Allgatherv.
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include <mpi.h>

#include "parallel/message.hpp"
#include "util/error.hpp"

namespace ss {

// Every rank's `local` (trivially copyable entries) concatenated in rank order, on every rank (collective).
template <class T>
std::vector<T> all_gather(const std::vector<T>& local, MPI_Comm comm) {
  int ranks = 1;
  mpi_check(MPI_Comm_size(comm, &ranks), "MPI_Comm_size");
  const std::int64_t bytes = std::int64_t(local.size() * sizeof(T));
  SS_REQUIRE(bytes <= std::numeric_limits<int>::max(), "multigrid: a rank's rows of the coarsest level exceed one MPI message");
  std::vector<int> counts(static_cast<size_t>(ranks)), displacements(static_cast<size_t>(ranks), 0);
  const int mine = int(bytes);
  mpi_check(MPI_Allgather(&mine, 1, MPI_INT, counts.data(), 1, MPI_INT, comm), "MPI_Allgather");
  std::int64_t total = 0;
  for (int r = 0; r < ranks; ++r) {
    displacements[size_t(r)] = int(total);
    total += counts[size_t(r)];
  }
  SS_REQUIRE(total <= std::numeric_limits<int>::max(), "multigrid: the coarsest level's rows exceed one MPI message");
  std::vector<T> all(size_t(total) / sizeof(T));
  mpi_check(MPI_Allgatherv(local.data(), mine, MPI_BYTE, all.data(), counts.data(), displacements.data(), MPI_BYTE, comm),
            "MPI_Allgatherv");
  return all;
}

// The owned entries of every rank, whose global ids fill [0, size()) once each.
class WholeGather {
public:
  // `owned_global`: this rank's owned entries' global ids, in the order gather() takes their values.
  WholeGather(const std::vector<std::int64_t>& owned_global, MPI_Comm comm);
  std::int32_t size() const { return std::int32_t(order_.size()); }
  // The global ids in gathered order (rank 0's owned entries first).
  const std::vector<std::int64_t>& order() const { return order_; }
  // Every rank's owned values as one vector by global id (collective).
  std::vector<double> gather(const std::vector<double>& owned_values) const;
  // Every rank's owned values in the gathered order (value k belongs to global id order()[k]), for
  // a caller that places them itself, e.g. by a scatter on the device (collective).
  template <class T>
  void gather_in_order(const std::vector<T>& owned_values, std::vector<T>& in_order) const {
    static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>, "gathered values are float or double");
    SS_REQUIRE(std::int64_t(owned_values.size()) == owned_,
               "WholeGather: " << owned_values.size() << " values for " << owned_ << " owned entries");
    in_order.resize(order_.size());
    mpi_check(MPI_Allgatherv(owned_values.data(), int(owned_values.size()), std::is_same_v<T, float> ? MPI_FLOAT : MPI_DOUBLE,
                             in_order.data(), counts_.data(), displacements_.data(),
                             std::is_same_v<T, float> ? MPI_FLOAT : MPI_DOUBLE, comm_),
              "MPI_Allgatherv");
  }

private:
  MPI_Comm comm_;
  std::int64_t owned_ = 0;  // this rank's owned entries
  std::vector<int> counts_, displacements_;  // owned entries per rank, in the gathered order
  std::vector<std::int64_t> order_;
};

}  // namespace ss
