#pragma once
// A sparse matrix over MPI ranks whose columns include another rank's entities (the multigrid
// transfers and coarse operators over the ranks: distributed/distributed_heat_multigrid.hpp,
// distributed/distributed_pressure_multigrid.hpp). The owned columns run on the device while the
// source's halo is in flight; the ghost columns' term is then summed on the host from the received
// values and added into its rows with a point scatter.
#include <cstdint>
#include <optional>
#include <type_traits>
#include <vector>

#include "operators/sparse_kernels.hpp"
#include "parallel/gpu_select.hpp"
#include "parallel/halo.hpp"
#include "util/error.hpp"

namespace ss {

// y = add + M (x − sub) over all ranks, for M with this rank's owned target entities as rows and
// the source level's local entities (owned first, then ghosts) as columns; the rows of target
// ghosts stay empty (y = add there).
template <class Backend>
class DistributedTransfer {
public:
  using Vector = typename Backend::Vector;
  using Value = typename Backend::Value;

  DistributedTransfer(Backend& backend, HaloExchange<Backend>& source_halo, const SparseMatrix& m,
                      std::int32_t target_owned, std::int32_t source_owned)
      : backend_(backend), halo_(source_halo) {
    std::vector<std::int32_t> recv_position(size_t(m.cols), -1);
    const std::vector<std::int32_t>& recv = halo_.recv_indices();
    for (size_t k = 0; k < recv.size(); ++k) recv_position[size_t(recv[k])] = std::int32_t(k);
    SparseMatrix local;  // the owned columns, on the device
    local.rows = m.rows, local.cols = m.cols;
    local.offsets.assign(size_t(m.rows) + 1, 0);
    offsets_.push_back(0);
    for (std::int32_t i = 0; i < m.rows; ++i) {
      const size_t before = columns_.size();
      for (std::int32_t k = m.offsets[size_t(i)]; i < target_owned && k < m.offsets[size_t(i) + 1]; ++k) {
        const std::int32_t j = m.columns[size_t(k)];
        if (j < source_owned) {
          local.columns.push_back(j), local.values.push_back(m.values[size_t(k)]);
          continue;
        }
        SS_REQUIRE(recv_position[size_t(j)] >= 0, "multigrid: ghost node " << j << " is received from no rank");
        columns_.push_back(recv_position[size_t(j)]);
        values_.push_back(m.values[size_t(k)]);
      }
      local.offsets[size_t(i) + 1] = std::int32_t(local.values.size());
      if (columns_.size() > before) {
        rows_.push_back(i);
        offsets_.push_back(std::int32_t(columns_.size()));
      }
    }
    local_.emplace(backend_, local);
    term_.resize(rows_.size());
    rows_list_.emplace(backend_.make_scatter_list(rows_));
  }

  void apply(const Vector& x, Vector& y, const Vector* sub = nullptr, const Vector* add = nullptr) {
    if (sub) halo_.begin({&x, sub});
    else halo_.begin(x);
    local_->apply(x, y, sub, add);
    if constexpr (std::is_same_v<Backend, GpuBackend>) gl_flush();
    halo_.finish();
    if (rows_.empty()) return;
    const auto& xs = halo_.received(0);
    for (size_t r = 0; r < rows_.size(); ++r) {
      double sum = 0.0;
      for (std::int32_t k = offsets_[r]; k < offsets_[r + 1]; ++k) {
        const size_t at = size_t(columns_[size_t(k)]);
        sum += values_[size_t(k)] * (double(xs[at]) - (sub ? double(halo_.received(1)[at]) : 0.0));
      }
      term_[r] = Value(sum);
    }
    backend_.scatter_add(y, *rows_list_, term_);
  }

private:
  Backend& backend_;
  HaloExchange<Backend>& halo_;
  std::optional<typename SparseMatrixOn<Backend>::type> local_;
  std::vector<std::int32_t> rows_, offsets_, columns_;  // the ghost columns' term: rows, CSR into the received values
  std::vector<double> values_;
  std::vector<Value> term_;
  std::optional<typename Backend::ScatterList> rows_list_;
};

}  // namespace ss
