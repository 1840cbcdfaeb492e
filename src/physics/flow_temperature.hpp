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
// Buoyancy (FlowBuoyancy): the cell force −β (T_c − T_ref) g per unit mass, T_c the mean of the
// cell's four nodes, for the flow's momentum right-hand side (FlowSolver::set_body_force).
#include <algorithm>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "operators/heat_advection.hpp"
#include "operators/heat_operator.hpp"
#include "operators/sparse_kernels.hpp"
#include "physics/flow_heat_problem.hpp"
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

// What one temperature step reports.
struct FlowHeatStepInfo {
  double courant = 0;  // Δt max_i q_i / V_i
  int iterations = 0;
};

struct FlowHeatTotals {
  long iterations = 0;
  int max_iterations = 0;
  double max_courant = 0;
  double seconds = 0;
};

template <class Backend>
class FlowTemperature {
public:
  using Vector = typename Backend::Vector;
  using HeatOp = typename HeatOperatorOn<Backend>::type;
  using Advection = typename HeatAdvectionOn<Backend>::type;
  using Sparse = typename SparseMatrixOn<Backend>::type;
  static constexpr double kMaxCourant = 1.0;  // the upwind step's bound (heat_advection.hpp)

  FlowTemperature(Backend& backend, const LoadedMesh& mesh, const FlowHeatProblem& problem)
      : backend_(backend), problem_(problem), advection_data_(build_heat_advection(mesh)),
        advection_(backend, advection_data_), cell_mean_(backend, node_to_cell_mean(mesh)) {
    const HeatProblem& h = problem.conduction;
    auto data = std::make_shared<HeatOperatorData>(assemble_heat_system(mesh, h, HeatTables::operator_only));
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
    advection_.apply(F_, T_, rate_, inflow_);
    backend_.multiply(inflow_, inverse_volume_, work_);
    info.courant = dt * backend_.max(work_);
    totals_.max_courant = std::max(totals_.max_courant, info.courant);
    if (!(info.courant <= kMaxCourant)) {
      failure_ = "thermal Courant number " + std::to_string(info.courant) +
                 " exceeds 1 (the upwind temperature step is bounded only below 1: lower dt or [time] cfl)";
      return false;
    }
    // rhs = (M/Δt) Tⁿ − (1−θ) K Tⁿ + ρc R + b, then b̃ with the fixed nodes eliminated.
    op_->apply(T_, KT_);
    backend_.multiply(mass_, T_, work_);
    backend_.linear_combination({1.0 / dt, -(1.0 - theta), rho_c, 1.0}, {&work_, &KT_, &rate_, &load_}, rhs_);
    op_->dirichlet_rhs(rhs_, T_, theta, work_);
    if (dt != diagonal_dt_) {
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
    const CgResult r =
        conjugate_gradient(backend_, apply, rhs_, work_, problem_.solver.jacobi ? &inverse_diagonal_ : nullptr, options);
    backend_.axpy(1.0, work_, T_, T_);
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
  double diagonal_dt_ = -1;
  FlowHeatTotals totals_;
  std::string failure_;
};

}  // namespace ss
