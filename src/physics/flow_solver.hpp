#pragma once
// The classical fractional-step time loop (thesis §7.3, eqs. 7.9–7.13; operators and equations in
// operators/flow_operators.hpp), written once for both backends: CpuBackend + CpuFlowOperators
// (double, the reference) and GpuBackend + GpuFlowOperators (float kernels). Per step, everything
// runs on the backend; only reduction results (CG scalars, CFL, energy, divergence) come back, and
// boundary values when they depend on time.
//
//   1. Δt from the CFL target (or fixed)
//   2. u = I Uⁿ;  f = −N(u) + ν(1−θ) Λ₀(u) + ν bc;  rhs = H Uⁿ/Δt + T f − G pⁿ + νθ K U_b
//      (curl–curl viscous term: f = −N(u) only, and rhs gains F M̃_e⁻¹(ν(1−θ) B Uⁿ + ν ḡ),
//       ḡ = θ gⁿ⁺¹ + (1−θ) gⁿ the tangential boundary velocity; operators/curl_curl_viscous.hpp)
//   3. momentum:   (H/Δt − νθ K) U* = rhs on free faces, U* = U_b on prescribed ones  (CG + Jacobi)
//      vorticity system (momentum_system() == vorticity; physics/momentum_vorticity_solve.hpp): the
//      same solution from CG on the edge vorticity with the whole viscous term there (2 then has
//      f = −N(u) only): S ω = θ B w + (1 − θ) B Uⁿ + ḡ, U* = w − νΔt D Bᵀ ω
//      implicit convection (problem.implicit_convection, Picard linearisation): the convecting flux
//      Uⁿ, the convected velocity I U* at the new level, C x = T N(Uⁿ; I x, u_b = 0) its linear part:
//        H (U* − Uⁿ)/Δt + T N(Uⁿ; I U*, u_b) = …  ⇔  (H/Δt + C − νθ K) U* = rhs + m C(Uⁿ − U_b)
//      (rhs as in 2, whose −T N(Uⁿ; I Uⁿ, u_b) the added term turns into the implicit one; U_b is 0
//      on free faces), nonsymmetric: BiCGStab, Jacobi of H/Δt − νθ K.
//   4. pressure:   P φ = −D U*/Δt                          (CG + multigrid V-cycle of P, or Jacobi)
//   5. projection: Uⁿ⁺¹ = U* − Δt W G φ,  pⁿ⁺¹ = pⁿ + φ
// The exact method (problem.method == exact, physics/exact_fractional_step.hpp) replaces 3–5 by
// one solve for the edge streamfunction s, Uⁿ⁺¹ = C s, with the right-hand side of 2 without the
// cell pressures; the pressure is recovered from the momentum residual ρ = m(rhs − A Uⁿ⁺¹) = m G p
// only when the state is asked for: P p = −D(W ρ).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "multigrid/multigrid.hpp"
#include "multigrid/pressure_matrix.hpp"
#include "operators/curl_curl_viscous.hpp"
#include "operators/edge_auxiliary_spaces.hpp"
#include "physics/exact_fractional_step.hpp"
#include "physics/flow_problem.hpp"
#include "physics/momentum_vorticity_solve.hpp"
#include "solver/bicgstab.hpp"
#include "solver/cg.hpp"
#include "util/error.hpp"

namespace ss {

// What the loop reports after each step.
struct FlowStepInfo {
  int step = 0;
  double time = 0, dt = 0;
  double cfl = 0;             // Δt · max_c (1/2V_c) Σ|U_f| of the new field
  double kinetic_energy = 0;  // ½ Σ_f H_f U_f² (the energy the scheme's convection conserves)
  double max_divergence = 0;  // max_c |D U|_c / max_f |U_f|
  int momentum_iterations = 0, pressure_iterations = 0;
  int streamfunction_iterations = 0;  // exact method
  double thermal_courant = 0;         // a [heat] run: Δt max_i q_i/V_i of the temperature step (flow_temperature.hpp)
  int temperature_iterations = 0;
  // Steady mode (flow_run.hpp): the relative changes per unit pseudo-time of the flow and (a [heat]
  // run) of the temperature; −1 where there is none.
  double steady_change = -1, temperature_change = -1;
};

struct FlowTotals {
  int steps = 0;
  long momentum_iterations = 0, pressure_iterations = 0;
  int max_momentum_iterations = 0, max_pressure_iterations = 0;
  long streamfunction_iterations = 0;  // exact method (pressure: the recoveries at output steps)
  int max_streamfunction_iterations = 0;
  double convection_seconds = 0, momentum_seconds = 0, pressure_seconds = 0, projection_seconds = 0;
  double streamfunction_seconds = 0;
  int streamfunction_preconditioner_setups = 0;  // exact method, ams: set-ups (included in streamfunction_seconds)
  double streamfunction_preconditioner_setup_seconds = 0;
  double diagnostics_seconds = 0;
};

// Host copy of the state (what a checkpoint holds).
struct FlowState {
  int step = 0;
  double time = 0, dt = 0;
  std::vector<double> flux;      // U_f per face
  std::vector<double> pressure;  // p per cell
  std::vector<double> previous_flux;  // Uⁿ⁻¹ per face (empty at the start: no previous step)
  std::vector<double> streamfunction;  // s per edge (exact method; empty otherwise)
  // The vorticity momentum system's last two ω per edge (ωⁿ, ωⁿ⁻¹; its next start vector
  // extrapolates them, so a restarted run continues as the uninterrupted one): empty otherwise.
  std::vector<double> vorticity, previous_vorticity;
  std::vector<double> temperature;  // T per node (a [heat] run, physics/flow_temperature.hpp); empty otherwise
  // Whose ids the arrays use (checkpoints): -1 the serial run's mesh; k >= 0 the partition-then-refine
  // ids of MPI runs (parallel/refined_entity_piece.hpp) over the file's mesh refined k times.
  int base_levels = -1;
};

// Backends over MPI ranks (parallel/distributed_backend.hpp) say `distributed = true`.
template <class B, class = void>
struct IsDistributedBackend : std::false_type {};
template <class B>
struct IsDistributedBackend<B, std::void_t<decltype(B::distributed)>> : std::bool_constant<B::distributed> {};

template <class Backend, class FlowOps>
class FlowSolver {
public:
  using Vector = typename Backend::Vector;
  using MeshOps = std::remove_reference_t<decltype(std::declval<FlowOps&>().mesh())>;
  static constexpr double kMaxCfl = 10.0;  // beyond this the explicit convection has blown up
  // Implicit convection: the CFL target may go up to kMaxImplicitCfl; a field whose CFL number
  // exceeds ten times that has blown up.
  static constexpr double kMaxImplicitCfl = 100.0;
  static constexpr double kMaxDtGrowth = 1.2;  // adaptive Δt: at most this factor from one step to the next
  // Over MPI ranks the pressure V-cycle and the exact method's boundary setup are the distributed
  // operators' (ops.pressure_v_cycle(): the multigrid over the ranks; ops.streamfunction_setup():
  // the boundary tree solved at rank 0); mesh_ and data_ are the rank's piece.
  static constexpr bool kDistributed = IsDistributedBackend<Backend>::value;

  // `data` is the operator coefficients `ops` was built from (build_flow_operator_data).
  FlowSolver(Backend& backend, FlowOps& ops, const FlowProblem& problem, const LoadedMesh& mesh,
             const FlowOperatorData& data)
      : backend_(backend), ops_(ops), problem_(problem), mesh_(mesh), data_(data), cfl_target_(problem.time.cfl) {
    nf_ = mesh.topology.num_faces;
    nc_ = mesh.topology.num_cells;
    U_ = backend.make_vector(nf_), Ustar_ = backend.make_vector(nf_), rhs_ = backend.make_vector(nf_);
    U_previous_ = backend.make_vector(nf_);
    p_ = backend.make_vector(nc_), phi_ = backend.make_vector(nc_), rhs_p_ = backend.make_vector(nc_);
    ones_c_ = backend.make_vector(nc_), ones_f_ = backend.make_vector(nf_);
    backend.fill(ones_c_, 1.0);
    backend.fill(ones_f_, 1.0);
    momentum_inverse_diagonal_ = backend.make_vector(nf_);
    pressure_inverse_diagonal_ = backend.make_vector(nc_);
    backend.divide(ones_c_, ops.pressure_diagonal(), pressure_inverse_diagonal_);
    face_mass_ = backend.upload(data.face_mass);
    free_mask_ = backend.upload(data.free_mask);
    if (problem.viscous == ViscousScheme::curl_curl) {
      curl_curl_data_ = build_curl_curl_viscous(mesh, problem.boundary_kinds(), kCurlCurlTolerance, data.edge_space.get());
      if constexpr (kDistributed) {  // a piece's rim misses cells: its owners' values on the ghosts
        ops.complete_ghosts(curl_curl_data_.diagonal);
        ops.complete_ghosts(curl_curl_data_.edge_inverse_diagonal);
      }
      curl_curl_ = std::make_unique<CurlCurlViscous<Backend>>(backend, curl_curl_data_);
      masked_ = backend.make_vector(nf_), lap_ = backend.make_vector(nf_), viscous_force_ = backend.make_vector(nf_);
      g_bar_ = backend.make_vector(curl_curl_data_.edge_mass.rows);
    }
    if (problem.method == FlowMethod::exact) build_exact();
    momentum_system_ = problem.resolved_momentum_system();
    if (momentum_system_ == MomentumSystem::vorticity) build_vorticity_solve();
    SS_REQUIRE(!problem.steady.enabled || problem.implicit_convection,
               "steady mode marches with implicit convection (problem.implicit_convection)");
    SS_REQUIRE(!problem.steady.enabled || !problem.time_dependent(),
               "steady mode needs boundary values that do not change in time");
    if (problem.implicit_convection) {
      SS_REQUIRE(problem.method == FlowMethod::classical,
                 "implicit convection is for the classical method (the exact method's convection is explicit)");
      SS_REQUIRE(!kDistributed, "implicit convection runs on one rank (not over MPI ranks yet)");
      SS_REQUIRE(problem.convection != Convection::none, "implicit convection needs convection (central or upwind)");
      boundary_zero_ = backend.make_vector(std::max<std::int64_t>(1, data.num_boundary_faces));
      backend.fill(boundary_zero_, 0.0);
      convection_x_ = backend.make_vector(nf_), convection_y_ = backend.make_vector(nf_);
    }
    upload_boundary(0.0);
    if (problem.pressure.multigrid) {  // P does not change: once, here
      if constexpr (kDistributed) pressure_v_cycle_ = ops.pressure_v_cycle();
      else build_pressure_multigrid();
      SS_REQUIRE(pressure_v_cycle_, "flow: the pressure multigrid was asked for but not built");
    }
  }

  MomentumSystem momentum_system() const { return momentum_system_; }

  // A body force per unit mass in every cell, added to the explicit cell terms f of each step
  // (before T f enters the momentum right-hand side): body(fx, fy, fz) adds its three components.
  // The Boussinesq buoyancy of a [heat] run (physics/flow_temperature.hpp); unset: none.
  void set_body_force(std::function<void(Vector&, Vector&, Vector&)> body) { body_force_ = std::move(body); }

  // Starts from the problem's initial velocity, made discretely divergence-free by one projection.
  void start() {
    state_time_ = 0.0, step_ = 0, dt_ = problem_.time.dt, has_previous_ = false;
    if (vorticity_solve_) vorticity_solve_->forget_history();
    std::vector<double> U0 = face_fluxes(mesh_, problem_.initial_velocity, 0.0);
    const FlowBoundaryValues b = evaluate_boundary(problem_, mesh_, 0.0);
    const std::vector<double>& mask = data_.free_mask;
    for (size_t f = 0; f < U0.size(); ++f) U0[f] = mask[f] * U0[f] + (1.0 - mask[f]) * b.flux[f];
    backend_.copy(backend_.upload(U0), Ustar_);
    backend_.fill(p_, 0.0);
    if (exact_) {
      project_onto_streamfunction("the initial projection");
      return;
    }
    int iterations = 0;
    SS_REQUIRE(pressure_solve(1.0, iterations), "the initial projection failed: " << last_failure_);
    ops_.project(Ustar_, phi_, 1.0, U_);
  }

  void restore(const FlowState& s) {
    SS_REQUIRE(std::int64_t(s.flux.size()) == nf_ && std::int64_t(s.pressure.size()) == nc_,
               "restart state has " << s.flux.size() << " faces and " << s.pressure.size() << " cells; the mesh has "
                                    << nf_ << " and " << nc_);
    SS_REQUIRE(s.previous_flux.empty() || std::int64_t(s.previous_flux.size()) == nf_,
               "restart state has " << s.previous_flux.size() << " previous fluxes; the mesh has " << nf_ << " faces");
    U_ = backend_.upload(s.flux);
    p_ = backend_.upload(s.pressure);
    has_previous_ = !s.previous_flux.empty();
    if (has_previous_) U_previous_ = backend_.upload(s.previous_flux);
    state_time_ = s.time, step_ = s.step, dt_ = s.dt > 0 ? s.dt : problem_.time.dt;
    if (vorticity_solve_) vorticity_solve_->restore_history(s.vorticity, s.previous_vorticity);
    // Boundary values of the restored time, as the uninterrupted run had them (twice: the curl–curl
    // term keeps the previous step's tangential source too).
    if (problem_.time_dependent()) upload_boundary(state_time_), upload_boundary(state_time_);
    pressure_current_ = true;
    if (!exact_) return;
    if (std::int64_t(s.streamfunction.size()) == mesh_.topology.num_edges) return exact_->restore(s.streamfunction);
    backend_.copy(U_, Ustar_);  // a state without s (a classical run's): s from its flux
    project_onto_streamfunction("the restart's projection onto a streamfunction");
  }

  // The state (exact method: recovers the pressure first, when the last step has not).
  FlowState state() {
    if (!pressure_current_) recover_pressure();
    FlowState s;
    s.step = step_, s.time = state_time_, s.dt = dt_;
    s.flux = backend_.download(U_), s.pressure = backend_.download(p_);
    if (has_previous_) s.previous_flux = backend_.download(U_previous_);
    if (exact_) s.streamfunction = backend_.download(exact_->streamfunction());
    if (vorticity_solve_) vorticity_solve_->history(s.vorticity, s.previous_vorticity);
    return s;
  }
  const Vector& flux() const { return U_; }
  const Vector& pressure() const { return p_; }
  int step_count() const { return step_; }
  double time() const { return state_time_; }
  const FlowTotals& totals() const { return totals_; }
  const std::string& failure() const { return last_failure_; }

  // The CFL target of the following steps (steady mode's controller; starts as [time] cfl).
  void set_cfl_target(double cfl) { cfl_target_ = cfl; }
  double cfl_target() const { return cfl_target_; }
  // ||Uⁿ⁺¹ − Uⁿ|| / ||Uⁿ⁺¹|| of the last step (one fused reduction; 0 before any step).
  double relative_change() {
    if (!has_previous_) return 0.0;
    backend_.axpy(-1.0, U_previous_, U_, rhs_);  // rhs_: scratch between steps
    const std::vector<double> d = backend_.dots({{&rhs_, &rhs_}, {&U_, &U_}});
    return d[1] > 0 ? std::sqrt(std::max(d[0], 0.0) / d[1]) : std::sqrt(std::max(d[0], 0.0));
  }
  double last_dt() const { return dt_; }

  // True when the run has reached its last step or end time.
  bool finished() const {
    const FlowTimeSettings& t = problem_.time;
    if (t.steps > 0) return step_ >= t.steps;
    return state_time_ >= t.end_time * (1.0 - 1e-12);
  }

  // One time step. Returns false (reason in failure()) when a solve fails or the field diverges;
  // the state is then the last good one's successor and must not be written.
  bool step(FlowStepInfo& info) {
    using Clock = std::chrono::steady_clock;
    const auto seconds_since = [](Clock::time_point t0) {
      return std::chrono::duration<double>(Clock::now() - t0).count();
    };
    const FlowTimeSettings& ts = problem_.time;
    // 1. Δt: fixed, or from the CFL target on the current field (capped, and ending on end_time).
    //    A fresh run's first step is the case's dt (a fluid at rest has no Courant rate, and a moving
    //    wall sets one only after it), and Δt grows by at most kMaxDtGrowth a step after that.
    double dt = ts.dt;
    if (cfl_target_ > 0) {
      const double rate = courant_rate();
      dt = rate > 0 ? std::min(ts.max_dt, cfl_target_ / rate) : ts.max_dt;
      dt = step_ == 0 ? std::min(dt, ts.dt) : std::min(dt, kMaxDtGrowth * dt_);
    }
    if (ts.steps == 0) dt = std::min(dt, ts.end_time - state_time_);
    const double t_new = state_time_ + dt, nu = problem_.viscosity, theta = problem_.theta;
    if (problem_.time_dependent()) upload_boundary(t_new);

    // 2. Explicit terms and the right-hand side.
    auto t0 = Clock::now();
    auto& mesh_ops = ops_.mesh();
    mesh_ops.interpolate(U_, ux_, uy_, uz_);
    if (curl_curl_) {
      ops_.cell_terms(problem_.convection, 0.0, 0.0, U_, ux_, uy_, uz_, bx_, by_, bz_, fx_, fy_, fz_);
      if (body_force_) body_force_(fx_, fy_, fz_);
      mesh_ops.integrate(fx_, fy_, fz_, integrated_);
      backend_.linear_combination({theta, 1.0 - theta}, {&g_, &g_previous_}, g_bar_);
      if (!vorticity_solve_) {  // the vorticity system takes the whole viscous term on its edges
        curl_curl_->force(nu * (1.0 - theta), U_, nu, g_bar_, viscous_force_);
        backend_.axpy(1.0, viscous_force_, integrated_, integrated_);
      }
    } else {
      ops_.cell_terms(problem_.convection, nu * (1.0 - theta), nu, U_, ux_, uy_, uz_, bx_, by_, bz_, fx_, fy_, fz_);
      if (body_force_) body_force_(fx_, fy_, fz_);
      mesh_ops.integrate(fx_, fy_, fz_, integrated_);
    }
    mesh_ops.gradient(exact_ ? zero_cells_ : p_, boundary_pressure_, pressure_gradient_);
    if (exact_) {
      // The momentum residual of Uⁿ = C sⁿ with H Uⁿ/Δt cancelled analytically (H is diagonal):
      // m(rhs − A m Uⁿ) = m(T f − G p_b + νθ K U_b) + νθ m K m Uⁿ, the exact solve's right-hand side.
      ops_.momentum_rhs(0.0, nu * theta, U_, integrated_, pressure_gradient_, fixed_columns_, boundary_flux_, rhs_);
      masked_momentum(0.0, nu * theta)(U_, Ustar_);
      backend_.axpy(-1.0, Ustar_, rhs_, exact_rhs_);
    } else if (vorticity_solve_) {  // viscous terms and fixed columns: on the edges
      ops_.momentum_rhs(1.0 / dt, 0.0, U_, integrated_, pressure_gradient_, fixed_columns_, boundary_flux_, rhs_);
    } else {
      ops_.momentum_rhs(1.0 / dt, nu * theta, U_, integrated_, pressure_gradient_, fixed_columns_, boundary_flux_, rhs_);
      if (problem_.implicit_convection) {  // rhs += m C(Uⁿ − U_b)
        backend_.axpy(-1.0, boundary_flux_, U_, convection_x_);
        linear_convection(convection_x_, convection_y_);
        backend_.axpy(1.0, convection_y_, rhs_, rhs_);
      }
    }
    backend_.finish();
    totals_.convection_seconds += seconds_since(t0);
    if (exact_) return exact_step(dt, t_new, info);

    // 3. Momentum predictor, from the linear extrapolation U* ≈ Uⁿ + (Δt/Δtⁿ⁻¹)(Uⁿ − Uⁿ⁻¹) (Uⁿ when
    //    there is no previous step).
    t0 = Clock::now();
    if (has_previous_) {
      const double ratio = dt / dt_;
      backend_.linear_combination({1.0 + ratio, -ratio}, {&U_, &U_previous_}, Ustar_);
    } else {
      backend_.copy(U_, Ustar_);
    }
    if (dt != momentum_diagonal_dt_) update_momentum_inverse_diagonal(dt);
    const CgOptions momentum_options = cg_options(problem_.momentum);
    const Vector* momentum_jacobi = problem_.momentum.jacobi ? &momentum_inverse_diagonal_ : nullptr;
    CgResult momentum;
    if (vorticity_solve_) {
      momentum = vorticity_solve_->solve(dt, dt_, nu, theta, rhs_, U_, g_bar_, Ustar_, *curl_curl_, momentum_options);
    } else if (problem_.implicit_convection) {
      // y = A x + m C(m x): the symmetric part as for CG, then the linearised convection
      const auto apply = [&](const Vector& x, Vector& y) {
        momentum_apply(1.0 / dt, nu * theta, x, y);
        backend_.multiply(free_mask_, x, convection_x_);
        linear_convection(convection_x_, convection_y_);
        backend_.axpy(1.0, convection_y_, y, y);
      };
      momentum = bicgstab(backend_, apply, rhs_, Ustar_, momentum_jacobi, momentum_options);
    } else {
      const auto apply = [&](const Vector& x, Vector& y) { momentum_apply(1.0 / dt, nu * theta, x, y); };
      momentum = conjugate_gradient(backend_, apply, rhs_, Ustar_, momentum_jacobi, momentum_options);
    }
    totals_.momentum_seconds += seconds_since(t0);
    if (!momentum.converged) return fail("momentum solve: " + describe_stop(momentum, momentum_options.tolerance), t_new);

    // 4. Pressure correction.
    t0 = Clock::now();
    int pressure_iterations = 0;
    if (!pressure_solve(dt, pressure_iterations)) return fail("pressure solve: " + last_failure_, t_new);
    totals_.pressure_seconds += seconds_since(t0);

    // 5. Projection (Uⁿ kept as the next step's Uⁿ⁻¹).
    t0 = Clock::now();
    std::swap(U_, U_previous_);
    has_previous_ = true;
    ops_.project(Ustar_, phi_, dt, U_);
    backend_.axpy(1.0, phi_, p_, p_);
    backend_.finish();
    totals_.projection_seconds += seconds_since(t0);

    totals_.max_momentum_iterations = std::max(totals_.max_momentum_iterations, momentum.iterations);
    totals_.max_pressure_iterations = std::max(totals_.max_pressure_iterations, pressure_iterations);
    totals_.momentum_iterations += momentum.iterations;
    totals_.pressure_iterations += pressure_iterations;
    return finish_step(dt, t_new, info, [&](FlowStepInfo& i) {
      i.momentum_iterations = momentum.iterations;
      i.pressure_iterations = pressure_iterations;
    });
  }

  // Diagnostics of the current field (reductions only).
  FlowStepInfo diagnostics() {
    FlowStepInfo info;
    info.step = step_, info.time = state_time_, info.dt = dt_;
    info.cfl = dt_ * courant_rate();
    backend_.multiply(face_mass_, U_, rhs_);
    info.kinetic_energy = 0.5 * backend_.dot(U_, rhs_);
    ops_.mesh().divergence(U_, rhs_p_);
    const double max_div = std::max(std::fabs(backend_.max(rhs_p_)), std::fabs(backend_.min(rhs_p_)));
    const double max_flux = std::max(std::fabs(backend_.max(U_)), std::fabs(backend_.min(U_)));
    info.max_divergence = max_flux > 0 ? max_div / max_flux : max_div;
    return info;
  }

private:
  // Step bookkeeping and diagnostics after the new flux is in U_ (`fill` adds the solve counts).
  template <class Fill>
  bool finish_step(double dt, double t_new, FlowStepInfo& info, Fill&& fill) {
    const auto t0 = std::chrono::steady_clock::now();
    state_time_ = t_new, dt_ = dt, ++step_;
    info = diagnostics();
    info.dt = dt;
    fill(info);
    totals_.diagnostics_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    totals_.steps++;
    if (!std::isfinite(info.kinetic_energy)) return fail("the velocity field is no longer finite", t_new);
    const double max_cfl = problem_.implicit_convection ? 10.0 * kMaxImplicitCfl : kMaxCfl;
    if (info.cfl > max_cfl && problem_.convection != Convection::none)  // Stokes flow has no CFL limit
      return fail("CFL number " + std::to_string(info.cfl) + " exceeds " + std::to_string(max_cfl) +
                      (problem_.implicit_convection ? " (the flow has blown up: lower dt or [time] cfl)"
                                                    : " (explicit convection is unstable: lower dt or set [time] cfl)"),
                  t_new);
    return true;
  }

  // y = A x = (H/Δt − νθ K) x on free faces, x on prescribed ones (operators/flow_operators.hpp).
  void momentum_apply(double inv_dt, double nu_theta, const Vector& x, Vector& y) {
    if (!curl_curl_) return ops_.momentum_apply(inv_dt, nu_theta, x, y);
    backend_.multiply(free_mask_, x, masked_);
    curl_curl_->apply(masked_, lap_);
    ops_.momentum_combine(inv_dt, nu_theta, x, lap_, y);
  }

  // y = m C x, C x = T N(Uⁿ; I x, u_b = 0): the linear part of the convection −T N with the current
  // flux Uⁿ convecting (cell_terms gives −N; boundary velocities 0, zero-gradient faces u_c).
  void linear_convection(const Vector& x, Vector& y) {
    auto& mesh_ops = ops_.mesh();
    mesh_ops.interpolate(x, cux_, cuy_, cuz_);
    ops_.cell_terms(problem_.convection, 0.0, 0.0, U_, cux_, cuy_, cuz_, boundary_zero_, boundary_zero_, boundary_zero_,
                    cfx_, cfy_, cfz_);
    mesh_ops.integrate(cfx_, cfy_, cfz_, convection_integrated_);
    backend_.multiply(free_mask_, convection_integrated_, y);
    backend_.scale(-1.0, y, y);
  }

  // y = m A m x: the momentum operator on the free faces only (the exact method's A).
  typename ExactFractionalStep<Backend, MeshOps>::MomentumApply masked_momentum(double inv_dt, double nu_theta) {
    return [this, inv_dt, nu_theta](const Vector& x, Vector& y) {
      momentum_apply(inv_dt, nu_theta, x, exact_scratch_);
      backend_.multiply(free_mask_, exact_scratch_, y);
    };
  }

  static CgOptions cg_options(const FlowLinearSolver& s) {
    CgOptions options;
    options.tolerance = s.tolerance;
    options.max_iterations = s.max_iterations;
    options.variant = s.variant;
    return options;
  }

  void build_exact() {
    if constexpr (kDistributed) exact_setup_ = ops_.streamfunction_setup();
    else exact_setup_ = serial_streamfunction_setup(mesh_, problem_);
    const StreamfunctionBoundary& boundary = exact_setup_.boundary;
    // Jacobi of Â: Σ_{f ∋ e} m_f H_f and Σ_{f ∋ e} m_f (−K_ff) per edge (a ghost edge over MPI
    // ranks may miss some of its faces: from its owner).
    const Topology& t = mesh_.topology;
    // (Both diagonals are right on ghost faces: completed above and in piece_operator_data.)
    const std::vector<double>& k_diagonal = curl_curl_ ? curl_curl_data_.diagonal : data_.laplacian_diagonal;
    std::vector<double> mass_sum(size_t(t.num_edges), 0.0), viscous_sum(size_t(t.num_edges), 0.0);
    for (size_t f = 0; f < size_t(nf_); ++f)
      for (std::int32_t e : t.face_edges[f]) {
        mass_sum[size_t(e)] += data_.free_mask[f] * data_.face_mass[f];
        viscous_sum[size_t(e)] -= data_.free_mask[f] * k_diagonal[f];
      }
    exact_setup_.complete_edges(mass_sum), exact_setup_.complete_edges(viscous_sum);
    for (size_t e = 0; e < mass_sum.size(); ++e)  // fixed edges: any non-zero (the free-edge mask zeroes 1/d)
      if (boundary.free_edge_mask[e] == 0.0) mass_sum[e] = 1.0, viscous_sum[e] = 0.0;
    if (problem_.streamfunction_gauge) exact_kernel_ = streamfunction_kernel(t, boundary.free_edge_mask);
    const StreamfunctionPreconditioner preconditioner = problem_.resolved_streamfunction_preconditioner();
    const bool ams = preconditioner == StreamfunctionPreconditioner::ams;
    streamfunction_jacobi_ = preconditioner == StreamfunctionPreconditioner::jacobi;
    if (ams) {  // over MPI ranks each rank's node spaces are its owned edges' (multigrid/auxiliary_space.hpp)
      exact_auxiliary_.curl = curl_matrix(t);
      exact_auxiliary_.edges = boundary.free_edge_mask;
      for (size_t e = 0; e < exact_auxiliary_.edges.size(); ++e) exact_auxiliary_.edges[e] *= exact_setup_.owned_edge_mask[e];
      exact_auxiliary_.interpolation = nedelec_interpolation(t, mesh_.mesh.nodes, exact_auxiliary_.edges);
      exact_auxiliary_.face_mass.resize(size_t(nf_)), exact_auxiliary_.face_viscous.resize(size_t(nf_));
      for (size_t f = 0; f < size_t(nf_); ++f) {
        exact_auxiliary_.face_mass[f] = data_.free_mask[f] * data_.face_mass[f];
        exact_auxiliary_.face_viscous[f] = -data_.free_mask[f] * k_diagonal[f];
      }
    }
    exact_ = std::make_unique<ExactFractionalStep<Backend, MeshOps>>(
        backend_, ops_.mesh(), exact_setup_, data_.free_mask, mass_sum, viscous_sum,
        problem_.streamfunction_gauge ? &exact_kernel_ : nullptr,
        ams ? &exact_auxiliary_ : nullptr);
    exact_rhs_ = backend_.make_vector(nf_), exact_scratch_ = backend_.make_vector(nf_);
    zero_cells_ = backend_.make_vector(nc_);
    backend_.fill(zero_cells_, 0.0);
    pressure_weight_ = backend_.upload(data_.pressure_weight);
  }

  // 3'. The exact method's solve: Uⁿ⁺¹ = C s (Uⁿ kept as Uⁿ⁻¹).
  bool exact_step(double dt, double t_new, FlowStepInfo& info) {
    const auto t0 = std::chrono::steady_clock::now();
    const double nu_theta = problem_.viscosity * problem_.theta;
    const auto result = exact_->solve(1.0 / dt, nu_theta, masked_momentum(1.0 / dt, nu_theta), exact_rhs_,
                                      cg_options(problem_.streamfunction), streamfunction_jacobi_, Ustar_);
    totals_.streamfunction_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!result.converged) return fail(result.failure, t_new);
    std::swap(U_, U_previous_);
    std::swap(U_, Ustar_);
    has_previous_ = true, pressure_current_ = false;
    totals_.streamfunction_iterations += result.iterations;
    totals_.max_streamfunction_iterations = std::max(totals_.max_streamfunction_iterations, result.iterations);
    totals_.streamfunction_preconditioner_setups += result.preconditioner_setups;
    totals_.streamfunction_preconditioner_setup_seconds += result.preconditioner_setup_seconds;
    return finish_step(dt, t_new, info, [&](FlowStepInfo& i) { i.streamfunction_iterations = result.iterations; });
  }

  // U = C s nearest to Ustar_ in the H norm: the exact solve with A = H (Δt = 1, ν = 0) from s = 0.
  void project_onto_streamfunction(const char* what) {
    exact_->reset();
    backend_.multiply(face_mass_, Ustar_, exact_rhs_);
    const auto result = exact_->solve(1.0, 0.0, masked_momentum(1.0, 0.0), exact_rhs_,
                                      cg_options(problem_.streamfunction), streamfunction_jacobi_, U_);
    SS_REQUIRE(result.converged, what << " failed: " << result.failure);
    pressure_current_ = true;
  }

  // p from the momentum residual of the last step: ρ = m(rhs − A U) = m G p, so P p = −D(W ρ).
  // From the step's residual of Uⁿ: ρ = exact_rhs_ − m A m (Uⁿ⁺¹ − Uⁿ) (on free faces).
  void recover_pressure() {
    const auto t0 = std::chrono::steady_clock::now();
    const double nu_theta = problem_.viscosity * problem_.theta;
    backend_.axpy(-1.0, U_previous_, U_, rhs_);
    masked_momentum(1.0 / dt_, nu_theta)(rhs_, Ustar_);
    backend_.multiply(free_mask_, exact_rhs_, rhs_);
    backend_.axpy(-1.0, Ustar_, rhs_, rhs_);
    backend_.multiply(pressure_weight_, rhs_, Ustar_);
    ops_.mesh().divergence(Ustar_, rhs_p_);
    backend_.scale(-1.0, rhs_p_, rhs_p_);
    int iterations = 0;
    if (!solve_pressure_system(iterations))
      SS_THROW("pressure recovery at step " << step_ << " failed: " << last_failure_);
    backend_.copy(phi_, p_);
    totals_.pressure_iterations += iterations;
    totals_.max_pressure_iterations = std::max(totals_.max_pressure_iterations, iterations);
    totals_.pressure_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    pressure_current_ = true;
  }

  double courant_rate() {
    ops_.courant(U_, courant_);
    return backend_.max(courant_);
  }

  // The momentum solve on the edge vorticity; over MPI ranks with the per-entity arrays right on
  // the ghosts too (a piece's rim misses cells), as the pointwise steps read them.
  void build_vorticity_solve() {
    std::vector<double> face_mass = data_.face_mass;
    if constexpr (kDistributed) ops_.complete_ghosts(face_mass);
    MomentumVorticitySystem system = build_momentum_vorticity_system(curl_curl_data_, face_mass, data_.free_mask);
    if constexpr (kDistributed)
      for (std::vector<double>* v : {&system.mass_diagonal, &system.coupling_diagonal, &system.free_edges})
        ops_.complete_ghosts(*v);
    vorticity_solve_ = std::make_unique<MomentumVorticitySolve<Backend>>(backend_, system);
  }

  // Jacobi preconditioner of the momentum system, 1 / diag(H/Δt − νθ K) (it changes with Δt only).
  void update_momentum_inverse_diagonal(double dt) {
    const double nu_theta = problem_.viscosity * problem_.theta;
    if (curl_curl_) {
      ops_.momentum_combine(1.0 / dt, nu_theta, ones_f_, curl_curl_->diagonal(), lap_);  // lap_: scratch here
      backend_.divide(ones_f_, lap_, momentum_inverse_diagonal_);
    } else {
      backend_.divide(ones_f_, ops_.momentum_diagonal(1.0 / dt, nu_theta), momentum_inverse_diagonal_);
    }
    momentum_diagonal_dt_ = dt;
  }

  void upload_boundary(double t) {
    const FlowBoundaryValues b = evaluate_boundary(problem_, mesh_, t);
    const auto at_least_one = [](std::vector<double> v) { return v.empty() ? std::vector<double>{0.0} : v; };
    bx_ = backend_.upload(at_least_one(b.bx)), by_ = backend_.upload(at_least_one(b.by));
    bz_ = backend_.upload(at_least_one(b.bz));
    boundary_pressure_ = backend_.upload(b.pressure);
    boundary_flux_ = backend_.upload(b.flux);
    if (exact_) exact_->set_boundary_flux(b.flux);
    // Fixed columns of the momentum system: K U_b.
    if (!curl_curl_) return ops_.viscous_apply(boundary_flux_, fixed_columns_);
    fixed_columns_ = backend_.make_vector(nf_);
    if (vorticity_solve_) backend_.fill(fixed_columns_, 0.0);  // it takes U_b on its edges instead
    else curl_curl_->apply(boundary_flux_, fixed_columns_);
    // Tangential boundary velocity: gⁿ⁺¹ now, gⁿ kept for the θ-weighted explicit part.
    std::vector<double> g =
        tangential_boundary_source(curl_curl_data_, mesh_, problem_.boundary_kinds(), b.bx, b.by, b.bz);
    // Over MPI ranks the vorticity system's right-hand side reads g on the ghost edges too.
    if constexpr (kDistributed) ops_.complete_ghosts(g);
    if (g_.size() == 0) g_ = backend_.upload(g);
    std::swap(g_previous_, g_);
    g_ = backend_.upload(g);
  }

  // P φ = −D U*/Δt by CG; singular P (no outlet): right-hand side and φ kept mean-free.
  // Preconditioner: one algebraic V-cycle of P (finest level: ops_.pressure_apply; built by the
  // constructor), Jacobi or none.
  bool pressure_solve(double dt, int& iterations) {
    ops_.mesh().divergence(Ustar_, rhs_p_);
    backend_.scale(-1.0 / dt, rhs_p_, rhs_p_);
    return solve_pressure_system(iterations);
  }

  // P φ = rhs_p_ (the right-hand side already in rhs_p_).
  bool solve_pressure_system(int& iterations) {
    const bool singular = !data_.pressure_fixed;
    const double cells = double(data_.global_cells);  // all ranks' cells
    if (singular) backend_.axpy(-backend_.sum(rhs_p_) / cells, ones_c_, rhs_p_, rhs_p_);
    backend_.fill(phi_, 0.0);
    const CgOptions options = cg_options(problem_.pressure);
    const auto apply = [&](const Vector& x, Vector& y) { ops_.pressure_apply(x, y); };
    CgResult r;
    if (pressure_v_cycle_) {
      r = preconditioned_conjugate_gradient(backend_, apply, rhs_p_, phi_, pressure_v_cycle_, options);
    } else {
      r = conjugate_gradient(backend_, apply, rhs_p_, phi_, problem_.pressure.jacobi ? &pressure_inverse_diagonal_ : nullptr,
                             options);
    }
    iterations = r.iterations;
    if (!r.converged) {
      last_failure_ = describe_stop(r, options.tolerance);
      return false;
    }
    if (singular) backend_.axpy(-backend_.sum(phi_) / cells, ones_c_, phi_, phi_);
    return true;
  }

  void build_pressure_multigrid() {
    const auto& face_cells = mesh_.topology.face_cells;
    std::vector<std::int32_t> cell0(face_cells.size()), cell1(face_cells.size());
    for (size_t f = 0; f < face_cells.size(); ++f) cell0[f] = face_cells[f][0], cell1[f] = face_cells[f][1];
    FlowOps* ops = &ops_;
    MultigridOptions options;  // a refined mesh's cells are numbered by families (refine_once): those first
    options.refinement_families = mesh_.report.refine_levels;
    pressure_multigrid_ = std::make_unique<Multigrid<Backend>>(
        backend_, pressure_matrix(cell0, cell1, data_), !data_.pressure_fixed,
        [ops](const Vector& x, Vector& y) { ops->pressure_apply(x, y); }, options);
    pressure_v_cycle_ = [this](const Vector& from, Vector& to) { (*pressure_multigrid_)(from, to); };
  }

  bool fail(const std::string& reason, double t) {
    last_failure_ = reason + " (step " + std::to_string(step_ + 1) + ", t = " + std::to_string(t) + ")";
    return false;
  }

  Backend& backend_;
  FlowOps& ops_;
  const FlowProblem& problem_;
  const LoadedMesh& mesh_;
  const FlowOperatorData& data_;
  std::int64_t nf_ = 0, nc_ = 0;
  int step_ = 0;
  double state_time_ = 0, dt_ = 0;
  std::string last_failure_;
  double cfl_target_ = 0;  // > 0: adaptive Δt (problem_.time.cfl, or steady mode's controller)
  FlowTotals totals_;
  Vector U_, Ustar_, rhs_, p_, phi_, rhs_p_, ones_c_, ones_f_, pressure_inverse_diagonal_, face_mass_;
  Vector momentum_inverse_diagonal_;
  MomentumSystem momentum_system_ = MomentumSystem::flux;
  std::unique_ptr<MomentumVorticitySolve<Backend>> vorticity_solve_;  // momentum_system_ == vorticity
  Vector U_previous_;          // Uⁿ⁻¹ (has_previous_): the momentum solve's starting guess extrapolates
  bool has_previous_ = false;
  double momentum_diagonal_dt_ = -1;  // the Δt momentum_inverse_diagonal_ was made for
  Vector ux_, uy_, uz_, fx_, fy_, fz_, integrated_, pressure_gradient_, courant_;
  std::function<void(Vector&, Vector&, Vector&)> body_force_;  // set_body_force
  Vector bx_, by_, bz_, boundary_pressure_, boundary_flux_, fixed_columns_;
  // Implicit convection (problem_.implicit_convection): C's scratch and zero boundary velocities.
  Vector boundary_zero_, convection_x_, convection_y_, convection_integrated_, cux_, cuy_, cuz_, cfx_, cfy_, cfz_;
  struct NoMultigrid {};  // over MPI ranks (kDistributed): the operators' V-cycle
  using PressureMultigrid = std::conditional_t<kDistributed, NoMultigrid, Multigrid<Backend>>;
  std::unique_ptr<PressureMultigrid> pressure_multigrid_;  // problem_.pressure.multigrid, serial
  std::function<void(const Vector&, Vector&)> pressure_v_cycle_;  // z = M⁻¹ r (problem_.pressure.multigrid)
  // Curl–curl viscous term (problem_.viscous == curl_curl; null for two-point).
  CurlCurlViscousData curl_curl_data_;
  std::unique_ptr<CurlCurlViscous<Backend>> curl_curl_;
  Vector free_mask_, masked_, lap_, viscous_force_, g_, g_previous_, g_bar_;
  // Exact method (problem_.method == exact; null for classical).
  StreamfunctionSetup exact_setup_;
  StreamfunctionKernel exact_kernel_;
  StreamfunctionAuxiliarySpaces exact_auxiliary_;  // with preconditioner = "ams"
  bool streamfunction_jacobi_ = true;              // preconditioner = "jacobi"
  std::unique_ptr<ExactFractionalStep<Backend, MeshOps>> exact_;
  Vector exact_rhs_, exact_scratch_, zero_cells_, pressure_weight_;
  bool pressure_current_ = true;  // p_ belongs to the current flux (exact method: recovered lazily)
};

}  // namespace ss
