#pragma once
// The heat system on one rank's piece, completed across ranks (thesis §8.3).
//
// Local numbering: owned nodes [0, n_owned), then ghosts. The local operator (GpuHeatOperator or
// CpuHeatOperator, assembled from the piece) is given every ghost node as an extra "fixed" node:
// its symmetric elimination then drops the ghost columns from the owned rows and moves their
// -K_ij T_i part into the diagonal shift, and turns the ghost rows into identity rows. So
//
//   (K̃·x)_i = [local apply_system with ghosts fixed]_i  +  s Σ_{j ghost, free} K_ij x_j
//             └─ needs owned values only: the interior ─┘   └─ the halo term, boundary rows only ─┘
//
// apply_system(a, s, x, y): begin the halo exchange of x (gather the send values, queue their
// read-back); queue the full local pass (every owned row — interior rows are final); wait for the
// read-back and exchange the messages while the GPU runs that pass; compute the halo term of the
// boundary rows on the host in double from the received values and add it into y's boundary rows
// with an additive point scatter (y_i += c_i; no pass over the whole vector). The overlap is real:
// the local pass does not depend on the messages.
//
// Vectors of the distributed CG keep their ghost entries at exactly 0 (the right-hand side and the
// initial guess are 0 there, the ghost rows are identity rows), so nothing on a ghost entry can grow;
// reductions still multiply by the owner marker (DistributedBackend).
#include <chrono>
#include <cstdint>
#include <optional>
#include <type_traits>
#include <vector>

#include "kernels/gpu_backend.hpp"
#include "operators/heat_operator.hpp"
#include "parallel/gpu_select.hpp"
#include "parallel/halo.hpp"

namespace ss {

// The nodes the piece's local operator eliminates: every ghost node (local id >= owned_nodes) and
// every Dirichlet node (`fixed`, per local node), ascending. Build the local operator with them so
// that DistributedHeatOperator's own set_dirichlet finds them in place (no second elimination).
inline std::vector<std::int32_t> piece_fixed_nodes(std::int32_t num_nodes, std::int32_t owned_nodes,
                                                   const std::vector<char>& fixed) {
  std::vector<std::int32_t> nodes;
  for (std::int32_t i = 0; i < num_nodes; ++i)
    if (i >= owned_nodes || fixed[size_t(i)]) nodes.push_back(i);
  return nodes;
}

template <class Backend, class Operator>
class DistributedHeatOperator {
public:
  using Vector = typename Backend::Vector;
  using PreciseVector = typename Backend::PreciseVector;

  // `data`: the operator data of the piece (the one `op` was built from); `fixed`: per local node 1
  // for a Dirichlet node (owned or ghost); `fixed_values`: its temperature (any value elsewhere).
  DistributedHeatOperator(Backend& backend, Operator& op, HaloExchange<Backend>& halo, const HeatOperatorData& data,
                          std::int32_t owned_nodes, const std::vector<char>& fixed, const std::vector<double>& fixed_values)
      : backend_(backend), op_(op), halo_(halo), data_(data), owned_(owned_nodes), fixed_(fixed), values_(fixed_values) {
    const std::int32_t n = data.num_nodes;
    op_.set_dirichlet(piece_fixed_nodes(n, owned_, fixed_));  // free when `op` was built with them
    // Position of each ghost node in the halo's receive buffer.
    std::vector<std::int32_t> recv_position(size_t(n), -1);
    const std::vector<std::int32_t>& recv = halo_.recv_indices();
    for (size_t k = 0; k < recv.size(); ++k) recv_position[size_t(recv[k])] = std::int32_t(k);
    // The halo term: rows of owned free nodes, columns of free ghost nodes.
    coupling_offsets_.push_back(0);
    for (std::int32_t i = 0; i < owned_; ++i) {
      if (fixed_[size_t(i)]) continue;
      const size_t before = coupling_columns_.size();
      for (std::int32_t k = data.offsets[size_t(i)]; k < data.offsets[size_t(i) + 1]; ++k) {
        const std::int32_t j = data.neighbors[size_t(k)];
        if (j < owned_ || fixed_[size_t(j)]) continue;
        SS_REQUIRE(recv_position[size_t(j)] >= 0, "halo: ghost node " << j << " is received from no rank");
        coupling_columns_.push_back(recv_position[size_t(j)]);
        coupling_values_.push_back(data.coefficients[size_t(k)]);
      }
      if (coupling_columns_.size() > before) {
        boundary_rows_.push_back(i);
        coupling_offsets_.push_back(std::int32_t(coupling_columns_.size()));
      }
    }
    correction_.resize(boundary_rows_.size());
    boundary_list_.emplace(backend_.make_scatter_list(boundary_rows_));
    std::vector<double> free_owned(size_t(n), 0.0), owner(size_t(n), 0.0);
    for (std::int32_t i = 0; i < owned_; ++i) {
      owner[size_t(i)] = 1.0;
      free_owned[size_t(i)] = fixed_[size_t(i)] ? 0.0 : 1.0;
    }
    free_owned_ = backend_.upload(free_owned);
    owner_ = backend_.upload(owner);
  }

  std::int32_t num_nodes() const { return data_.num_nodes; }
  std::int32_t owned_nodes() const { return owned_; }
  std::int64_t boundary_rows() const { return std::int64_t(boundary_rows_.size()); }
  const Vector& owner_marker() const { return owner_; }

  // y = K̃·x over all ranks (owned rows; ghost rows of y are x's ghost entries), halo overlapped.
  void apply_system(double a, double s, const Vector& x, Vector& y) {
    halo_.begin(x);
    op_.apply_system(a, s, x, y);  // interior work: needs no ghost value
    if constexpr (std::is_same_v<Backend, GpuBackend>) gl_flush();
    halo_.finish();  // waits for the read-back (not for the interior pass), then for the messages
    const auto t0 = std::chrono::steady_clock::now();
    if (!boundary_rows_.empty()) {
      const auto& received = halo_.received();
      for (size_t r = 0; r < boundary_rows_.size(); ++r) {
        double sum = 0.0;
        for (std::int32_t k = coupling_offsets_[r]; k < coupling_offsets_[r + 1]; ++k)
          sum += coupling_values_[size_t(k)] * double(received[size_t(coupling_columns_[size_t(k)])]);
        correction_[r] = typename Backend::Value(s * sum);
      }
      backend_.scatter_add(y, *boundary_list_, correction_);
    }
    halo_.add_upload_seconds(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }

  // diag(K̃): a m_i + s K_ii on owned free rows (exact: the whole stencil is local), 1 elsewhere.
  Vector system_diagonal(double a, double s) { return op_.system_diagonal(a, s); }

  // KT = K·T without boundary conditions on owned rows; brings T's ghost entries up to date first.
  void apply(Vector& T, Vector& KT) {
    halo_.update(T);
    op_.apply(T, KT);
  }

  // ∇T on the piece's cells (exact on owned tets); brings T's ghost entries up to date first.
  void cell_gradient(Vector& T, Vector& gx, Vector& gy, Vector& gz) {
    halo_.update(T);
    op_.cell_gradient(T, gx, gy, gz);
  }

  // The right-hand side of the eliminated system: out_i = right_i - s Σ_{j fixed} K_ij T_j on owned
  // free rows, T_i on owned fixed rows, 0 on ghosts (T_j: the Dirichlet values).
  void system_rhs(const Vector& right, double s, Vector& out) {
    std::vector<double> h(size_t(data_.num_nodes), 0.0);
    for (std::int32_t i = 0; i < owned_; ++i) {
      if (fixed_[size_t(i)]) {
        h[size_t(i)] = values_[size_t(i)];
        continue;
      }
      double sum = 0.0;
      for (std::int32_t k = data_.offsets[size_t(i)]; k < data_.offsets[size_t(i) + 1]; ++k) {
        const std::int32_t j = data_.neighbors[size_t(k)];
        if (fixed_[size_t(j)]) sum += data_.coefficients[size_t(k)] * values_[size_t(j)];
      }
      h[size_t(i)] = -s * sum;
    }
    const Vector shift = backend_.upload(h);
    backend_.multiply(free_owned_, right, out);
    backend_.axpy(1.0, shift, out, out);
  }

  // Prepares X (double) for a solve: Dirichlet values exactly on owned fixed nodes, ghosts 0.
  void prepare_solution_precise(PreciseVector& X) {
    backend_.mask_precise(free_owned_, X);
    std::vector<std::int32_t> nodes;
    std::vector<double> values;
    for (std::int32_t i = 0; i < owned_; ++i)
      if (fixed_[size_t(i)]) {
        nodes.push_back(i);
        values.push_back(values_[size_t(i)]);
      }
    if (!nodes.empty()) backend_.scatter_precise(X, nodes, values);
  }

  // out = f − (a·M + s·K) X in double on owned free rows (heat_operator.hpp, residual_precise): X's
  // ghost entries are brought up to date first (both halves of a float pair travel exactly as
  // doubles), then the local operator's full-CSR rows are exact on owned nodes. Ghost rows are
  // "fixed" in the local operator: X's ghost values with fixed_rows, else 0 (masked out of every
  // reduction). Once per correction, so no overlap.
  void residual_precise(double a, double s, const PreciseVector& f, PreciseVector& X, PreciseVector& out,
                        bool fixed_rows) {
    if constexpr (std::is_same_v<Backend, GpuBackend>) {
      halo_.update(X.hi);
      halo_.update(X.lo);
    } else {
      halo_.update(X);
    }
    op_.residual_precise(a, s, f, X, out, fixed_rows);
  }

private:
  Backend& backend_;
  Operator& op_;
  HaloExchange<Backend>& halo_;
  const HeatOperatorData& data_;
  std::int32_t owned_;
  std::vector<char> fixed_;
  std::vector<double> values_;
  std::vector<std::int32_t> boundary_rows_, coupling_offsets_, coupling_columns_;
  std::optional<typename Backend::ScatterList> boundary_list_;  // boundary_rows_ on the device
  std::vector<double> coupling_values_;
  std::vector<typename Backend::Value> correction_;  // the halo term of the boundary rows, as the device stores it
  Vector free_owned_, owner_;
};

}  // namespace ss
