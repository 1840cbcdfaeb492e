#pragma once
// The temperature of a flow run (a [heat] case), one step per flow step, written once for both
// backends (CpuBackend + CpuHeatOperator + CpuHeatAdvection, double; GpuBackend + GpuHeatOperator +
// GpuHeatAdvection, float kernels). T lives at the nodes (median-dual control volumes); with M the
// lumped heat capacity (ρc V_i), K the conduction operator (heat_operator.hpp), R(U; T) the upwind
// advection rate of the new face fluxes Uⁿ⁺¹ (heat_advection.hpp) and b the source and heat-flux load,
//
//   (M/Δt + θK) Tⁿ⁺¹ = (M/Δt − (1−θ)K) Tⁿ + ρc R(Uⁿ⁺¹; Tⁿ) + b        (fixed nodes eliminated)
//
// advection explicit (first-order upwind: bounded while the thermal Courant number
// Δt max_i q_i/V_i <= 1, checked every step), diffusion by the θ-scheme of the heat command and the
// flow's θ, solved by Jacobi-CG in the backend's working precision as the flow's own solves are,
// for the increment Tⁿ⁺¹ − Tⁿ (its tolerance relative to the step's change).
// With [heat] advection = "limited" R is the limited linear upwind rate (second order where T is
// smooth; heat_advection.hpp) from the gradient of Tⁿ; steady mode keeps the upwind R in its matrix
// below and the limited one on the right-hand side (a deferred correction: at the steady state the
// two cancel but for the limited R).
// Steady mode (problem.implicit_advection: pseudo-time steps far beyond the thermal Courant bound)
// takes the advection at the new level too, backward Euler in the upwind rate (linear in T):
//
//   (M/Δt + θK − ρc R(Uⁿ⁺¹; ·)) (Tⁿ⁺¹ − Tⁿ) = −K Tⁿ + ρc R(Uⁿ⁺¹; Tⁿ) + b         (free rows)
//
// the right-hand side the explicit step's; −ρc R adds ρc q_i to the diagonal and −ρc max(−F_ij, 0) ≤ 0
// off it, so the advection keeps T bounded at any Δt, without a Courant limit; nonsymmetric, it is
// solved by BiCGStab (the implicit momentum's solver) with the Jacobi diagonal a_i/Δt + θK_ii + ρc q_i.
// Both steps share their steady state −K T + ρc R(U; T) + b = 0. The step then reports the relative
// change ||Tⁿ⁺¹ − Tⁿ|| / ||Tⁿ⁺¹|| for steady mode's stop (flow_time_loop.hpp).
// Buoyancy (FlowBuoyancy): the cell force −β (T_c − T_ref) g per unit mass, T_c the mean of the
// cell's four nodes, for the flow's momentum right-hand side (FlowSolver::set_body_force).
// Over MPI ranks (Backend = DistributedBackend, distributed/distributed_flow_temperature.hpp) the
// operators bring their outputs' ghosts from their owners and the node arrays made on the piece
// (the lumped mass) are completed on the ghosts by `complete_node_ghosts`, so every vector is right
// on owned and ghost nodes alike and the same steps run on each rank's piece.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "operators/heat_advection.hpp"
#include "operators/heat_operator.hpp"
#include "operators/sparse_kernels.hpp"
#include "physics/flow_state.hpp"
#include "problems/flow_heat_problem.hpp"
#include "solver/bicgstab.hpp"
#include "solver/cg.hpp"
#include "util/error.hpp"

namespace ss {

template <class Backend> struct HeatOperatorOn;
template <> struct HeatOperatorOn<GpuBackend> {
  using type = GpuHeatOperator;
  static std::unique_ptr<type> make(GpuBackend& gpu, std::shared_ptr<const HeatOperatorData> data,
                                    const std::vector<std::int32_t>& fixed) {
    return std::make_unique<type>(gpu, std::move(data), fixed);
  }
};
template <> struct HeatOperatorOn<CpuBackend> {
  using type = CpuHeatOperator;
  static std::unique_ptr<type> make(CpuBackend&, std::shared_ptr<const HeatOperatorData> data,
                                    const std::vector<std::int32_t>& fixed) {
    return std::make_unique<type>(std::move(data), fixed);
  }
};

template <class Backend>
class FlowTemperature {
public:
  using Vector = typename Backend::Vector;
  using HeatOp = typename HeatOperatorOn<Backend>::type;
  using Advection = typename HeatAdvectionOn<Backend>::type;
  using Sparse = typename SparseMatrixOn<Backend>::type;
  static constexpr double kMaxCourant = 1.0;  // the upwind step's bound (heat_advection.hpp)

  // `complete_node_ghosts` (a rank's piece only): a per-node array made on the piece, right on its
  // owned nodes, gets its ghost entries from their owners (in double, on the host).
  using CompleteGhosts = std::function<void(std::vector<double>&)>;
  FlowTemperature(Backend& backend, const LoadedMesh& mesh, const FlowHeatProblem& problem,
                  const CompleteGhosts& complete_node_ghosts = {})
      : backend_(backend), problem_(problem), advection_data_(build_heat_advection(mesh)),
        advection_(backend, advection_data_), cell_mean_(backend, node_to_cell_mean(mesh)) {
    const HeatProblem& h = problem.conduction;
    auto data = std::make_shared<HeatOperatorData>(assemble_heat_system(mesh, h, HeatTables::operator_only));
    if (complete_node_ghosts) complete_node_ghosts(data->mass);
    nn_ = data->num_nodes, nc_ = data->num_cells;
    // ρc / M_i = 1 / V_i: the inflow rate's Courant factor.
    std::vector<double> inverse_volume(static_cast<size_t>(nn_));
    for (size_t i = 0; i < inverse_volume.size(); ++i) inverse_volume[i] = problem.heat_capacity / data->mass[i];
    inverse_volume_ = backend.upload(inverse_volume);
    mass_ = backend.upload(data->mass);
    op_ = HeatOperatorOn<Backend>::make(backend, std::move(data), h.dirichlet_nodes);
    T_ = backend.make_vector(nn_), rhs_ = backend.make_vector(nn_), work_ = backend.make_vector(nn_);
    KT_ = backend.make_vector(nn_), rate_ = backend.make_vector(nn_), inflow_ = backend.make_vector(nn_);
    F_ = backend.make_vector(std::max<std::int32_t>(1, advection_data_.num_edges));
    load_ = backend.upload(h.load);
    inverse_diagonal_ = backend.make_vector(nn_);
    Tc_ = backend.make_vector(nc_), ones_c_ = backend.make_vector(nc_), force_ = backend.make_vector(nc_);
    backend.fill(ones_c_, 1.0);
    if (problem.limited_advection) gx_ = backend.make_vector(nn_), gy_ = backend.make_vector(nn_), gz_ = backend.make_vector(nn_);
    if (problem.implicit_advection) {  // the free-node mask and scratch of the implicit operator
      std::vector<double> free(static_cast<size_t>(nn_), 1.0);
      for (std::int32_t i : h.dirichlet_nodes) free[size_t(i)] = 0.0;
      free_ = backend.upload(free);
      x_rate_ = backend.make_vector(nn_), x_inflow_ = backend.make_vector(nn_);
    }
  }

  void start() {
    T_ = backend_.upload(problem_.conduction.initial);
    op_->write_dirichlet_values(T_, problem_.conduction.dirichlet_values);
  }
  void restore(const std::vector<double>& T) {
    SS_REQUIRE(std::int64_t(T.size()) == nn_, "restart: " << T.size() << " temperatures for " << nn_ << " nodes");
    T_ = backend_.upload(T);
    op_->write_dirichlet_values(T_, problem_.conduction.dirichlet_values);
  }

  // Tⁿ → Tⁿ⁺¹ with the new face fluxes U over Δt. False (reason in failure()) when the thermal
  // Courant number exceeds 1 or the solve fails.
  bool step(const Vector& U, double dt, FlowHeatStepInfo& info) {
    const auto t0 = std::chrono::steady_clock::now();
    const double theta = problem_.theta, rho_c = problem_.heat_capacity;
    advection_.edge_fluxes(U, F_);
    if (problem_.limited_advection) {
      advection_.gradient(T_, gx_, gy_, gz_);
      advection_.apply_limited(F_, T_, gx_, gy_, gz_, rate_, inflow_);
    } else {
      advection_.apply(F_, T_, rate_, inflow_);
    }
    backend_.multiply(inflow_, inverse_volume_, work_);
    info.courant = dt * backend_.max(work_);
    totals_.max_courant = std::max(totals_.max_courant, info.courant);
    if (!problem_.implicit_advection && !(info.courant <= kMaxCourant)) {
      failure_ = "thermal Courant number " + std::to_string(info.courant) +
                 " exceeds 1 (the upwind temperature step is bounded only below 1: lower dt or [time] cfl)";
      return false;
    }
    // rhs = (M/Δt) Tⁿ − (1−θ) K Tⁿ + ρc R + b, then b̃ with the fixed nodes eliminated.
    op_->apply(T_, KT_);
    backend_.multiply(mass_, T_, work_);
    backend_.linear_combination({1.0 / dt, -(1.0 - theta), rho_c, 1.0}, {&work_, &KT_, &rate_, &load_}, rhs_);
    op_->dirichlet_rhs(rhs_, T_, theta, work_);
    if (problem_.implicit_advection) {  // a_i/Δt + θK_ii + ρc q_i on free rows (q changes every step)
      Vector ones = backend_.make_vector(nn_), diagonal = op_->system_diagonal(1.0 / dt, theta);
      backend_.fill(ones, 1.0);
      backend_.multiply(free_, inflow_, x_inflow_);
      backend_.axpy(rho_c, x_inflow_, diagonal, diagonal);
      backend_.divide(ones, diagonal, inverse_diagonal_);
    } else if (dt != diagonal_dt_) {
      Vector ones = backend_.make_vector(nn_);
      backend_.fill(ones, 1.0);
      backend_.divide(ones, op_->system_diagonal(1.0 / dt, theta), inverse_diagonal_);
      diagonal_dt_ = dt;
    }
    // The increment: A δ = b̃ − A Tⁿ (zero on the fixed rows), so the tolerance is relative to the
    // step's change, not to (M/Δt) T, which dwarfs it at small Δt.
    const auto apply = [&](const Vector& x, Vector& y) { op_->apply_system(1.0 / dt, theta, x, y); };
    apply(T_, KT_);
    backend_.axpy(-1.0, KT_, work_, rhs_);
    backend_.fill(work_, 0.0);
    CgOptions options;
    options.tolerance = problem_.solver.tolerance;
    options.max_iterations = problem_.solver.max_iterations;
    options.variant = problem_.solver.variant;
    const Vector* jacobi = problem_.solver.jacobi ? &inverse_diagonal_ : nullptr;
    // Implicit advection: y = (M/Δt + θK) x − ρc R(x) on free rows (x is 0 on the fixed ones).
    const auto apply_implicit = [&](const Vector& x, Vector& y) {
      apply(x, y);
      advection_.apply(F_, x, x_rate_, x_inflow_);
      backend_.multiply(free_, x_rate_, x_inflow_);
      backend_.axpy(-rho_c, x_inflow_, y, y);
    };
    const CgResult r = problem_.implicit_advection ? bicgstab(backend_, apply_implicit, rhs_, work_, jacobi, options)
                                                   : conjugate_gradient(backend_, apply, rhs_, work_, jacobi, options);
    backend_.axpy(1.0, work_, T_, T_);
    if (problem_.implicit_advection) {
      const std::vector<double> d = backend_.dots({{&work_, &work_}, {&T_, &T_}});
      info.relative_change = d[1] > 0 ? std::sqrt(std::max(d[0], 0.0) / d[1]) : std::sqrt(std::max(d[0], 0.0));
    }
    info.iterations = r.iterations;
    totals_.iterations += r.iterations;
    totals_.max_iterations = std::max(totals_.max_iterations, r.iterations);
    totals_.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!r.converged) {
      failure_ = "temperature solve: " + describe_stop(r, options.tolerance);
      return false;
    }
    return true;
  }

  // fx, fy, fz += −β (T_c − T_ref) g per cell (nothing without [buoyancy]).
  void add_buoyancy(Vector& fx, Vector& fy, Vector& fz) {
    if (!problem_.buoyancy) return;
    const FlowBuoyancy& b = *problem_.buoyancy;
    cell_mean_.apply(T_, Tc_);
    Vector* f[3] = {&fx, &fy, &fz};
    for (int d = 0; d < 3; ++d) {
      const double g = b.gravity[d];
      if (g == 0.0) continue;
      backend_.linear_combination({-b.expansion * g, b.expansion * g * b.reference_temperature}, {&Tc_, &ones_c_},
                                  force_);
      backend_.axpy(1.0, force_, *f[d], *f[d]);
    }
  }

  const Vector& temperature() const { return T_; }
  std::vector<double> download() { return backend_.download(T_); }
  const FlowHeatTotals& totals() const { return totals_; }
  const std::string& failure() const { return failure_; }

private:
  Backend& backend_;
  const FlowHeatProblem& problem_;
  HeatAdvectionData advection_data_;
  Advection advection_;
  Sparse cell_mean_;
  std::unique_ptr<HeatOp> op_;
  std::int64_t nn_ = 0, nc_ = 0;
  Vector T_, rhs_, work_, KT_, rate_, inflow_, F_, load_, mass_, inverse_volume_, inverse_diagonal_;
  Vector Tc_, ones_c_, force_;
  Vector free_, x_rate_, x_inflow_;  // implicit advection
  Vector gx_, gy_, gz_;              // limited advection: ∇T
  double diagonal_dt_ = -1;
  FlowHeatTotals totals_;
  std::string failure_;
};

}  // namespace ss
