#pragma once
// The fractional-step flow solver (thesis §7.3–7.4; operators and equations in
// operators/flow_operators.hpp), written once for both backends: CpuBackend + CpuFlowOperators
// (double, the reference) and GpuBackend + GpuFlowOperators (float kernels), and over MPI ranks on a
// DistributedBackend. Per step everything runs on the backend; only reduction results (CG scalars,
// CFL, energy, divergence) come back, and boundary values when they depend on time.
//
//   1. Δt from the CFL target, or fixed                                       FlowTimeStep
//      (steady mode's local pseudo-time steps Δt_f = s_f Δt: the data's H and W hold H/s and s W,
//      use_local_pseudo_time_steps, and the CFL number is the largest cell's s_c Δt · rate)
//   2. u = I Uⁿ;  f = −N(u) (+ viscous and body terms);  T f                   FlowExplicitTerms
//      (Crank–Nicolson time stepping: convection at the half step, by Adams–Bashforth 2 or implicitly)
//   3. momentum:   U* from the momentum system and its right-hand side        MomentumSolve, chosen once:
//                  (H/Δt − νθ K) U* = H Uⁿ/Δt + T f − G pⁿ + νθ K U_b            faces (CG), edge vorticity (CG),
//                  (+ C, the linearised convection, with implicit convection)    implicit convection (BiCGStab)
//   4. pressure:   P φ = −D U*/Δt                                              PressureProjection
//   5. projection: Uⁿ⁺¹ = U* − Δt W G φ,  pⁿ⁺¹ = pⁿ + φ                          PressureProjection
//      (steady mode with the grad–div term: − γ Γ V⁻¹ D U* too, its pressure)      GradDivTerm
// The exact method (ExactMethod) replaces 3–5 by one solve for the edge streamfunction, Uⁿ⁺¹ = C s,
// and recovers the pressure only when the state is asked for.
#include <chrono>
#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "physics/exact_method.hpp"
#include "physics/flow_boundary_vectors.hpp"
#include "physics/flow_explicit_terms.hpp"
#include "physics/flow_state.hpp"
#include "physics/flow_time_step.hpp"
#include "physics/momentum_flux_solve.hpp"
#include "physics/momentum_operator.hpp"
#include "physics/momentum_solve.hpp"
#include "physics/momentum_vorticity_solve.hpp"
#include "physics/pressure_projection.hpp"
#include "problems/flow_problem.hpp"
#include "util/error.hpp"

namespace ss {

template <class Backend, class FlowOps>
class FlowSolver {
public:
  using Vector = typename Backend::Vector;

  // `data` is the operator coefficients `ops` was built from (build_flow_operator_data).
  FlowSolver(Backend& backend, FlowOps& ops, const FlowProblem& problem, const LoadedMesh& mesh,
             const FlowOperatorData& data)
      : backend_(backend), ops_(ops), problem_(problem), mesh_(mesh), data_(data), time_step_(problem), boundary_(backend, problem, mesh),
        momentum_operator_(backend, ops, problem, mesh, data,
                           problem.resolved_momentum_system() == MomentumSystem::vorticity),
        momentum_operator_built_(Clock::now()), pressure_(backend, ops, problem, mesh, data),
        explicit_(backend, ops, problem, boundary_, momentum_operator_, mesh.topology.num_faces) {
    start_parts_.momentum_operator = std::chrono::duration<double>(momentum_operator_built_ - constructed_).count();
    start_parts_.pressure = seconds_since(momentum_operator_built_);
    SS_REQUIRE(!problem.steady.enabled || problem.implicit_convection,
               "steady mode marches with implicit convection (problem.implicit_convection)");
    SS_REQUIRE(!problem.steady.enabled || !problem.time_dependent(),
               "steady mode needs boundary values that do not change in time");
    SS_REQUIRE(!problem.implicit_convection || problem.method == FlowMethod::classical,
               "implicit convection is for the classical method (the exact method's convection is explicit)");
    SS_REQUIRE(problem.time_scheme != TimeScheme::crank_nicolson || (problem.theta == 0.5 && !problem.steady.enabled),
               "Crank-Nicolson time stepping has theta = 0.5 and is for time-accurate runs (got theta = "
                   << problem.theta << (problem.steady.enabled ? ", steady mode)" : ")"));
    const std::int64_t nf = mesh.topology.num_faces, nc = mesh.topology.num_cells;
    U_ = backend.make_vector(nf), U_previous_ = backend.make_vector(nf);
    Ustar_ = backend.make_vector(nf), rhs_ = backend.make_vector(nf);
    p_ = backend.make_vector(nc), cell_scratch_ = backend.make_vector(nc);
    energy_x_ = backend.make_vector(nc), energy_y_ = backend.make_vector(nc), energy_z_ = backend.make_vector(nc);
    if (!data.face_step_scale.empty()) {  // local pseudo-time steps: Δt_f = s_f Δt
      face_step_scale_ = backend.upload(data.face_step_scale);
      cell_step_scale_ = backend.upload(data.cell_step_scale);
    }
    if (problem.steady.enabled) {  // 1/H on the free faces, 0 on prescribed ones: steady_residual's weight
      std::vector<double> inverse(data.face_mass.size(), 0.0);
      for (size_t f = 0; f < inverse.size(); ++f) {
        const double s = data.face_step_scale.empty() ? 1.0 : data.face_step_scale[f];
        if (data.free_mask[f] > 0) inverse[f] = 1.0 / (s * data.face_mass[f]);
      }
      inverse_mass_ = backend.upload(inverse);
    }
    const auto t0 = Clock::now();
    if (problem.method == FlowMethod::exact)
      exact_ = std::make_unique<ExactMethod<Backend, FlowOps>>(backend, ops, problem, mesh, data, momentum_operator_);
    else
      momentum_ = make_momentum_solve(data);
    momentum_operator_.release_host_factors();
    backend.finish();
    (exact_ ? start_parts_.exact_method : start_parts_.momentum_system) = seconds_since(t0);
    update_boundary(0.0);
  }

  // A body force per unit mass in every cell, added to the explicit cell terms f of each step
  // (before T f enters the momentum right-hand side): body(fx, fy, fz) adds its three components.
  // The Boussinesq buoyancy of a [heat] run (physics/flow_temperature.hpp); unset: none.
  void set_body_force(std::function<void(Vector&, Vector&, Vector&)> body) { explicit_.set_body_force(std::move(body)); }

  // Starts from the problem's initial velocity, made discretely divergence-free by one projection.
  void start() {
    time_ = 0.0, step_ = 0, dt_ = problem_.time.dt, has_previous_ = false;
    explicit_.forget_history();
    if (momentum_) momentum_->forget_history();
    std::vector<double> U0 = face_fluxes(mesh_, problem_.initial_velocity, 0.0);
    const FlowBoundaryValues b = evaluate_boundary(problem_, mesh_, 0.0);
    const std::vector<double>& mask = data_.free_mask;
    for (size_t f = 0; f < U0.size(); ++f) U0[f] = mask[f] * U0[f] + (1.0 - mask[f]) * b.flux[f];
    backend_.copy(backend_.upload(U0), Ustar_);
    backend_.fill(p_, 0.0);
    pressure_current_ = true;
    const auto t0 = Clock::now();
    if (exact_) {
      count_setups(exact_->project(Ustar_, U_, "the initial projection"));
    } else {
      int iterations = 0;
      SS_REQUIRE(pressure_.solve(Ustar_, 1.0, iterations), "the initial projection failed: " << pressure_.failure());
      pressure_.project(Ustar_, 1.0, U_);
    }
    backend_.finish();
    start_parts_.initial_projection = seconds_since(t0);
  }

  void restore(const FlowState& s) {
    const std::int64_t nf = mesh_.topology.num_faces, nc = mesh_.topology.num_cells;
    SS_REQUIRE(std::int64_t(s.flux.size()) == nf && std::int64_t(s.pressure.size()) == nc,
               "restart state has " << s.flux.size() << " faces and " << s.pressure.size() << " cells; the mesh has "
                                    << nf << " and " << nc);
    SS_REQUIRE(s.previous_flux.empty() || std::int64_t(s.previous_flux.size()) == nf,
               "restart state has " << s.previous_flux.size() << " previous fluxes; the mesh has " << nf << " faces");
    SS_REQUIRE(s.previous_convection.empty() || std::int64_t(s.previous_convection.size()) == nf,
               "restart state has " << s.previous_convection.size() << " previous convection terms; the mesh has " << nf
                                    << " faces");
    SS_REQUIRE((s.pressure_increment.empty() || std::int64_t(s.pressure_increment.size()) == nc) &&
                   (s.previous_pressure_rate.empty() || std::int64_t(s.previous_pressure_rate.size()) == nc),
               "restart state has " << s.pressure_increment.size() << " pressure increments and "
                                    << s.previous_pressure_rate.size() << " earlier pressure rates; the mesh has " << nc
                                    << " cells");
    U_ = backend_.upload(s.flux);
    p_ = backend_.upload(s.pressure);
    pressure_.restore_history(s.pressure_increment, s.pressure_increment_dt, s.previous_pressure_rate,
                              s.previous_pressure_increment_dt);
    has_previous_ = !s.previous_flux.empty();
    if (has_previous_) U_previous_ = backend_.upload(s.previous_flux);
    // A θ-scheme state (or an older file) has no convection history: the next step starts Adams–Bashforth anew.
    explicit_.restore_history(s.previous_convection);
    time_ = s.time, step_ = s.step, dt_ = s.dt > 0 ? s.dt : problem_.time.dt;
    if (momentum_) momentum_->restore_history(s.vorticity, s.previous_vorticity);
    // Boundary values of the restored time, as the uninterrupted run had them (twice: the curl–curl
    // term keeps the previous step's tangential source too).
    if (problem_.time_dependent()) update_boundary(time_), update_boundary(time_);
    pressure_current_ = true;
    if (!exact_) return;
    if (std::int64_t(s.streamfunction.size()) == mesh_.topology.num_edges) return exact_->restore(s.streamfunction);
    backend_.copy(U_, Ustar_);  // a state without s (a classical run's): s from its flux
    const auto t0 = Clock::now();
    count_setups(exact_->project(Ustar_, U_, "the restart's projection onto a streamfunction"));
    backend_.finish();
    start_parts_.initial_projection = seconds_since(t0);
  }

  // The state (exact method: recovers the pressure first, when the last step has not).
  FlowState state() {
    if (!pressure_current_) recover_pressure();
    FlowState s;
    s.step = step_, s.time = time_, s.dt = dt_;
    s.flux = backend_.download(U_), s.pressure = backend_.download(p_);
    if (has_previous_) s.previous_flux = backend_.download(U_previous_);
    s.previous_convection = explicit_.history();
    if (exact_) s.streamfunction = backend_.download(exact_->streamfunction());
    if (momentum_) momentum_->history(s.vorticity, s.previous_vorticity);
    pressure_.history(s.pressure_increment, s.pressure_increment_dt, s.previous_pressure_rate,
                      s.previous_pressure_increment_dt);
    return s;
  }
  const Vector& flux() const { return U_; }
  const Vector& pressure() const { return p_; }
  int step_count() const { return step_; }
  double time() const { return time_; }
  double last_dt() const { return dt_; }
  const FlowTotals& totals() const { return totals_; }
  const FlowStartParts& start_parts() const { return start_parts_; }
  const std::string& failure() const { return failure_; }
  bool finished() const { return time_step_.finished(step_, time_); }  // the last step or end time reached

  // The CFL target of the following steps (steady mode's controller; starts as [time] cfl).
  void set_cfl_target(double cfl) { time_step_.set_cfl_target(cfl); }
  double cfl_target() const { return time_step_.cfl_target(); }

  // The steady residual of the state (Uⁿ, pⁿ), relative: ||H⁻¹ R|| / ||Uⁿ||, R = rhs − A Uⁿ the
  // momentum system's residual with Δt = ∞ (the steady momentum equation T f(Uⁿ) − G pⁿ − (C − νK) Uⁿ
  // on the free faces) and H the face mass (with local pseudo-time steps H = s · face_mass). Where the
  // march moves with the implicit step H (Uⁿ⁺¹ − Uⁿ)/Δt = R, H⁻¹ R is the change per unit pseudo-time;
  // unlike the change of a step it does not lag behind the Picard linearisation at large steps.
  // Costs the explicit terms and one application of the system.
  double steady_residual() {
    const auto t0 = Clock::now();
    constexpr double kSteady = std::numeric_limits<double>::infinity();
    explicit_.theta_scheme(U_);
    ops_.mesh().gradient(p_, boundary_.pressure(), pressure_gradient_);
    const MomentumTerms<Vector> terms{kSteady, kSteady, U_, explicit_.integrated(), pressure_gradient_, boundary_.flux(), U_};
    momentum_->right_hand_side(terms, rhs_);  // rhs_, Ustar_: scratch between steps
    momentum_->residual(terms, rhs_, U_, Ustar_);
    backend_.multiply(inverse_mass_, Ustar_, rhs_);
    const std::vector<double> d = backend_.dots({{&rhs_, &rhs_}, {&U_, &U_}});
    totals_.diagnostics_seconds += seconds_since(t0);
    return d[1] > 0 ? std::sqrt(std::max(d[0], 0.0) / d[1]) : std::sqrt(std::max(d[0], 0.0));
  }

  // One time step. Returns false (reason in failure()) when a solve fails or the field diverges;
  // the state is then the last good one's successor and must not be written.
  bool step(FlowStepInfo& info) {
    // 1. Δt
    const double dt = time_step_.next(step_, dt_, time_, [this] { return courant_rate(); });
    const double t_new = time_ + dt;
    const auto to_new_time = [&] {
      if (problem_.time_dependent()) update_boundary(t_new);
    };
    const bool crank_nicolson = problem_.time_scheme == TimeScheme::crank_nicolson;
    if (!crank_nicolson) to_new_time();

    // 2. The explicit terms T f (Crank–Nicolson: moving the boundary values to t_new on the way) and
    //    the right-hand side.
    auto t0 = Clock::now();
    if (crank_nicolson) explicit_.crank_nicolson(U_, U_previous_, has_previous_, dt, dt_, to_new_time);
    else explicit_.theta_scheme(U_);
    if (exact_) {
      exact_->right_hand_side(U_, explicit_.integrated(), boundary_, pressure_gradient_);
      backend_.finish();
      totals_.convection_seconds += seconds_since(t0);
      return exact_step(dt, t_new, info);
    }
    ops_.mesh().gradient(p_, boundary_.pressure(), pressure_gradient_);
    const MomentumTerms<Vector> terms{dt, dt_, U_, explicit_.integrated(), pressure_gradient_, boundary_.flux(),
                                      explicit_.convecting_flux(U_)};
    momentum_->right_hand_side(terms, rhs_);
    backend_.finish();
    totals_.convection_seconds += seconds_since(t0);

    // 3. Momentum predictor, from the linear extrapolation U* ≈ Uⁿ + (Δt/Δtⁿ⁻¹)(Uⁿ − Uⁿ⁻¹) (Uⁿ when
    //    there is no previous step).
    t0 = Clock::now();
    if (has_previous_) {
      const double ratio = dt / dt_;
      backend_.linear_combination({1.0 + ratio, -ratio}, {&U_, &U_previous_}, Ustar_);
    } else {
      backend_.copy(U_, Ustar_);
    }
    const CgResult momentum = momentum_->solve(terms, rhs_, Ustar_);
    totals_.momentum_seconds += seconds_since(t0);
    if (!momentum.converged) return fail("momentum solve: " + describe_stop(momentum, problem_.momentum.tolerance), t_new);

    // 4. Pressure correction.
    t0 = Clock::now();
    int pressure_iterations = 0;
    using Correction = typename PressureProjection<Backend, FlowOps>::Correction;
    const Correction correction = step_ == 0 ? Correction::first_step : Correction::step;
    if (!pressure_.solve(Ustar_, dt, pressure_iterations, correction))
      return fail("pressure solve: " + pressure_.failure(), t_new);
    totals_.pressure_seconds += seconds_since(t0);

    // 5. Projection (Uⁿ kept as the next step's Uⁿ⁻¹).
    t0 = Clock::now();
    std::swap(U_, U_previous_);
    has_previous_ = true;
    pressure_.project(Ustar_, dt, U_);
    backend_.axpy(1.0, pressure_.correction(), p_, p_);
    momentum_->add_system_pressure(Ustar_, U_previous_, p_);
    backend_.finish();
    totals_.projection_seconds += seconds_since(t0);

    totals_.max_momentum_iterations = std::max(totals_.max_momentum_iterations, momentum.iterations);
    totals_.max_pressure_iterations = std::max(totals_.max_pressure_iterations, pressure_iterations);
    totals_.momentum_iterations += momentum.iterations;
    if (momentum.fell_back) ++totals_.momentum_cg_fall_backs;
    totals_.pressure_cg_fall_backs = pressure_.fall_backs();
    totals_.pressure_guess_fall_backs = pressure_.guess_fall_backs();
    std::tie(totals_.momentum_preconditioner_setups, totals_.momentum_preconditioner_setup_seconds) =
        momentum_->preconditioner_setups();
    totals_.pressure_iterations += pressure_iterations;
    return finish_step(dt, t_new, info, [&](FlowStepInfo& i) {
      i.momentum_iterations = momentum.iterations;
      i.pressure_iterations = pressure_iterations;
    });
  }

  // Diagnostics of the current field (reductions only).
  FlowStepInfo diagnostics() {
    FlowStepInfo info;
    info.step = step_, info.time = time_, info.dt = dt_;
    info.cfl = dt_ * courant_rate();
    if (local_time_steps()) {  // the operators' mass is H/s: ½ Uᵀ (H/s)(s U)
      backend_.multiply(face_step_scale_, U_, Ustar_);
      backend_.multiply(momentum_operator_.face_mass(), Ustar_, rhs_);
    } else {
      backend_.multiply(momentum_operator_.face_mass(), U_, rhs_);
    }
    info.kinetic_energy = 0.5 * backend_.dot(U_, rhs_);
    info.cell_kinetic_energy = cell_kinetic_energy();
    ops_.mesh().divergence_owned(U_, cell_scratch_);  // reductions only: no exchange over ranks
    const double max_div = std::max(std::fabs(backend_.max(cell_scratch_)), std::fabs(backend_.min(cell_scratch_)));
    const double max_flux = std::max(std::fabs(backend_.max(U_)), std::fabs(backend_.min(U_)));
    info.max_divergence = max_flux > 0 ? max_div / max_flux : max_div;
    return info;
  }

private:
  // ½ Σ_c V_c |u_c|²: u_c = I U, then V · (ux² + uy² + uz²) summed (one reduction).
  double cell_kinetic_energy() {
    auto& mesh = ops_.mesh();
    mesh.interpolate_owned(U_, energy_x_, energy_y_, energy_z_);
    for (Vector* u : {&energy_x_, &energy_y_, &energy_z_}) backend_.multiply(*u, *u, *u);
    backend_.linear_combination({1.0, 1.0, 1.0}, {&energy_x_, &energy_y_, &energy_z_}, energy_x_);
    return 0.5 * backend_.dot(mesh.cell_volumes(), energy_x_);
  }

  using Clock = std::chrono::steady_clock;
  static double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

  std::unique_ptr<MomentumSolve<Backend>> make_momentum_solve(const FlowOperatorData& data) {
    if (problem_.resolved_momentum_system() == MomentumSystem::vorticity)
      return std::make_unique<EdgeVorticityMomentumSolve<Backend, FlowOps>>(backend_, ops_, problem_, mesh_, data,
                                                                             momentum_operator_);
    if (problem_.implicit_convection)
      return std::make_unique<ImplicitConvectionMomentumSolve<Backend, FlowOps>>(backend_, ops_, problem_, mesh_, data,
                                                                                 momentum_operator_);
    return std::make_unique<FaceFluxMomentumSolve<Backend, FlowOps>>(backend_, ops_, problem_, momentum_operator_);
  }

  // 3'–5'. The exact method's solve: Uⁿ⁺¹ = C s (Uⁿ kept as Uⁿ⁻¹).
  bool exact_step(double dt, double t_new, FlowStepInfo& info) {
    const auto t0 = Clock::now();
    const auto result = exact_->step(dt, Ustar_);
    totals_.streamfunction_seconds += seconds_since(t0);
    if (!result.converged) return fail(result.failure, t_new);
    std::swap(U_, U_previous_);
    std::swap(U_, Ustar_);
    has_previous_ = true, pressure_current_ = false;
    totals_.streamfunction_iterations += result.iterations;
    totals_.max_streamfunction_iterations = std::max(totals_.max_streamfunction_iterations, result.iterations);
    count_setups(result);
    return finish_step(dt, t_new, info, [&](FlowStepInfo& i) { i.streamfunction_iterations = result.iterations; });
  }

  // The exact method's auxiliary-space set-ups made by a solve.
  template <class Result>
  void count_setups(const Result& result) {
    totals_.streamfunction_preconditioner_setups += result.preconditioner_setups;
    totals_.streamfunction_preconditioner_setup_seconds += result.preconditioner_setup_seconds;
    totals_.streamfunction_preconditioner_updates += result.preconditioner_updates;
    totals_.streamfunction_preconditioner_update_seconds += result.preconditioner_update_seconds;
  }

  void recover_pressure() {
    const auto t0 = Clock::now();
    int iterations = 0;
    if (!exact_->recover_pressure(U_, U_previous_, dt_, pressure_, iterations))
      SS_THROW("pressure recovery at step " << step_ << " failed: " << pressure_.failure());
    backend_.copy(pressure_.correction(), p_);
    totals_.pressure_iterations += iterations;
    totals_.max_pressure_iterations = std::max(totals_.max_pressure_iterations, iterations);
    totals_.pressure_seconds += seconds_since(t0);
    pressure_current_ = true;
  }

  // Step bookkeeping and diagnostics after the new flux is in U_ (`fill` adds the solve counts).
  template <class Fill>
  bool finish_step(double dt, double t_new, FlowStepInfo& info, Fill&& fill) {
    const auto t0 = Clock::now();
    time_ = t_new, dt_ = dt, ++step_;
    info = diagnostics();
    info.dt = dt;
    fill(info);
    totals_.diagnostics_seconds += seconds_since(t0);
    totals_.steps++;
    if (!std::isfinite(info.kinetic_energy)) return fail("the velocity field is no longer finite", t_new);
    const std::string blow_up = time_step_.blow_up(info.cfl);
    return blow_up.empty() || fail(blow_up, t_new);
  }

  bool fail(const std::string& reason, double t) {
    failure_ = reason + " (step " + std::to_string(step_ + 1) + ", t = " + std::to_string(t) + ")";
    return false;
  }

  // The largest Courant rate, Δt · rate = the step's CFL number; with local pseudo-time steps the
  // largest s_c × rate, so that no cell marches beyond the CFL target.
  double courant_rate() {
    ops_.courant_owned(U_, courant_);  // a max reduction (over the owned cells) reads it
    if (!local_time_steps()) return backend_.max(courant_);
    backend_.multiply(cell_step_scale_, courant_, cell_scratch_);
    return backend_.max(cell_scratch_);
  }

  bool local_time_steps() const { return !data_.face_step_scale.empty(); }

  void update_boundary(double t) {
    const FlowBoundaryValues b = boundary_.update(t);
    if (exact_) exact_->set_boundary_flux(b.flux);
    momentum_operator_.set_boundary(b, boundary_.flux());
  }

  Clock::time_point constructed_ = Clock::now();  // first: start_parts_ times the members' construction
  Backend& backend_;
  FlowOps& ops_;
  const FlowProblem& problem_;
  const LoadedMesh& mesh_;
  const FlowOperatorData& data_;
  FlowTimeStep time_step_;
  FlowBoundaryVectors<Backend> boundary_;
  MomentumOperator<Backend, FlowOps> momentum_operator_;
  Clock::time_point momentum_operator_built_;
  PressureProjection<Backend, FlowOps> pressure_;
  FlowExplicitTerms<Backend, FlowOps> explicit_;
  std::unique_ptr<MomentumSolve<Backend>> momentum_;        // the classical method
  std::unique_ptr<ExactMethod<Backend, FlowOps>> exact_;    // the exact method

  int step_ = 0;
  double time_ = 0, dt_ = 0;
  bool has_previous_ = false;     // U_previous_ holds Uⁿ⁻¹ (the predictor's start extrapolates)
  bool pressure_current_ = true;  // p_ belongs to the current flux (exact method: recovered lazily)
  FlowTotals totals_;
  FlowStartParts start_parts_;
  std::string failure_;
  Vector U_, U_previous_, Ustar_, rhs_, p_, cell_scratch_;
  Vector energy_x_, energy_y_, energy_z_;  // cell_kinetic_energy's scratch
  Vector pressure_gradient_, courant_;
  Vector face_step_scale_, cell_step_scale_;  // s_f, s_c (local steps)
  Vector inverse_mass_;                        // steady mode: 1/H on free faces (steady_residual)
};

}  // namespace ss
