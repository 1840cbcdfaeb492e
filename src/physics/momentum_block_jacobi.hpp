#pragma once
// The block Jacobi preconditioner of the implicit momentum system (physics/momentum_flux_solve.hpp):
//   M⁻¹ = blockdiag(Â_bb)⁻¹,   Â = m H/Δt + (1 − m) − m T F(Uⁿ) I m  [+ γ m Dᵀ V⁻¹ D m in steady mode]
// assembled on the host (operators/implicit_momentum_matrix.hpp, the two-point viscous term standing
// in for curl–curl), its blocks grown along the strongest couplings and inverted there
// (operators/block_jacobi.hpp), applied on the backend as one sparse product per application.
// Â changes with the convecting flux Uⁿ and with Δt; the preconditioner is lagged: rebuilt when
// `refresh_interval` momentum solves have passed or Δt has moved by more than a factor
// kRefreshStepRatio since the last build. A lagged M⁻¹ only costs iterations; the system solved is
// always the current one.
// Over MPI ranks each rank's blocks hold its owned faces only (a rank's rim rows of Â miss the cells
// beyond its ghosts), the ghost rows are the identity, and the product brings the owners' values to
// the ghosts (DistributedSparseMatrix): M⁻¹ depends on the partition, its iterations a little too.
#include <chrono>
#include <cmath>
#include <cstdint>
#include <memory>
#include <vector>

#include "mesh/load_mesh.hpp"
#include "operators/block_jacobi.hpp"
#include "operators/implicit_momentum_matrix.hpp"
#include "operators/mesh_operator_tables.hpp"
#include "operators/sparse_kernels.hpp"
#include "physics/distributed_traits.hpp"
#include "problems/flow_problem.hpp"

namespace ss {

template <class Backend>
class MomentumBlockJacobi {
public:
  using Vector = typename Backend::Vector;
  using Sparse = typename SparseMatrixOn<Backend>::type;
  static constexpr double kRefreshStepRatio = 1.5;

  MomentumBlockJacobi(Backend& backend, const FlowProblem& problem, const LoadedMesh& mesh, const FlowOperatorData& data)
      : backend_(backend), problem_(problem), matrix_(build_mesh_operator_tables(mesh.topology, mesh.geometry), data) {}

  // Rebuilds M⁻¹ from Uⁿ (`flux`) and Δt when due; grad_div_scale · grad_div_weight: the grad–div
  // term's per-cell factor of the step (empty: no term).
  void update(const Vector& flux, double dt, double grad_div_scale, const std::vector<double>& grad_div_weight) {
    const bool due = !inverse_ || ++solves_since_build_ >= problem_.momentum.refresh_interval ||
                     std::fabs(std::log(dt / built_dt_)) > std::log(kRefreshStepRatio);
    if (!due) return;
    const auto start = std::chrono::steady_clock::now();
    const double nu_theta = problem_.viscosity * problem_.theta;
    matrix_.assemble(problem_.convection, backend_.download(flux), 1.0 / dt, nu_theta);
    if (!grad_div_weight.empty()) matrix_.add_grad_div(grad_div_scale, grad_div_weight);
    if constexpr (IsDistributedBackend<Backend>::value) {
      SparseMatrix owned = matrix_.matrix();
      keep_owned_rows(owned, backend_.download(backend_.owner_marker_of(flux)));
      invert(owned);
    } else {
      invert(matrix_.matrix());
    }
    built_dt_ = dt, solves_since_build_ = 0, ++builds_;
    build_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }

  // z = M⁻¹ r
  void apply(const Vector& r, Vector& z) { inverse_->apply(r, z); }
  int builds() const { return builds_; }
  double build_seconds() const { return build_seconds_; }

private:
  void invert(const SparseMatrix& a) {
    inverse_ = std::make_unique<Sparse>(backend_, block_jacobi_inverse(a, strong_coupling_blocks(a, problem_.momentum.block_size)));
  }

  // Owned rows keep their couplings to owned columns only; ghost rows become the identity.
  static void keep_owned_rows(SparseMatrix& a, const std::vector<double>& owned) {
    for (std::int32_t i = 0; i < a.rows; ++i)
      for (std::int32_t e = a.offsets[size_t(i)]; e < a.offsets[size_t(i) + 1]; ++e) {
        const std::int32_t j = a.columns[size_t(e)];
        if (owned[size_t(i)] == 0.0) a.values[size_t(e)] = i == j ? 1.0 : 0.0;
        else if (owned[size_t(j)] == 0.0) a.values[size_t(e)] = 0.0;
      }
  }

  Backend& backend_;
  const FlowProblem& problem_;
  ImplicitMomentumMatrix matrix_;
  std::unique_ptr<Sparse> inverse_;
  double built_dt_ = 0, build_seconds_ = 0;
  int solves_since_build_ = 0, builds_ = 0;
};

}  // namespace ss
