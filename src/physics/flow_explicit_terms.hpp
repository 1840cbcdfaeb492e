#pragma once
// Step 2 of the flow solver (flow_solver.hpp) as a part: the explicit terms T f of a step on the
// face fluxes. u = I Uⁿ, the cell terms f = −N(u) (+ the two-point viscous terms and the body force),
// T f, and the curl–curl viscous force on the faces (MomentumOperator), by either time stepping
// (TimeScheme, problems/flow_problem.hpp), r = Δt/Δtⁿ⁻¹:
//   θ-scheme:       T f of Uⁿ with the boundary values as they are (the solver has moved them to tⁿ⁺¹);
//   Crank–Nicolson, explicit convection: T f̃ = (1 + r/2) cⁿ − (r/2) cⁿ⁻¹ (Adams–Bashforth 2; cⁿ
//     alone on a run's first step), cⁿ = T(−N(Uⁿ; uⁿ) + body) with the boundary values of tⁿ, kept
//     as the next step's cⁿ⁻¹ (the history that travels with the state);
//   Crank–Nicolson, implicit convection: T f = T(−N(Ũ; uⁿ, ū_b) + body) with the convecting flux
//     Ũ = (1 + r/2) Uⁿ − (r/2) Uⁿ⁻¹ (Uⁿ on the first step) and ū_b = ½(u_bⁿ + u_bⁿ⁺¹), the mean of the
//     terms with either (N is affine in u_b); the momentum solve adds −½ C(Ũ)(U* − Uⁿ);
//   then (both) the explicit viscous part with the boundary values of tⁿ⁺¹, and T b of a constant
//   body force b ([fluid] body_force: made once, the same at every time level).
#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include "physics/flow_boundary_vectors.hpp"
#include "physics/momentum_operator.hpp"
#include "problems/flow_problem.hpp"

namespace ss {

template <class Backend, class FlowOps>
class FlowExplicitTerms {
public:
  using Vector = typename Backend::Vector;
  using BodyForce = std::function<void(Vector&, Vector&, Vector&)>;

  FlowExplicitTerms(Backend& backend, FlowOps& ops, const FlowProblem& problem, const FlowBoundaryVectors<Backend>& boundary,
                    MomentumOperator<Backend, FlowOps>& momentum, std::int64_t faces)
      : backend_(backend), ops_(ops), problem_(problem), boundary_(boundary), momentum_(momentum) {
    integrated_ = backend.make_vector(faces);
    if (problem.body_force != glm::dvec3(0.0)) {  // T b of the constant body force, once
      Vector b[3];
      for (int d = 0; d < 3; ++d) b[d] = backend.upload(std::vector<double>(size_t(ops.mesh().num_cells()), problem.body_force[d]));
      constant_force_ = backend.make_vector(faces);
      ops.mesh().integrate(b[0], b[1], b[2], constant_force_);
    }
    if (problem.time_scheme != TimeScheme::crank_nicolson) return;
    convection_ = backend.make_vector(faces);
    if (problem.implicit_convection) extrapolated_flux_ = backend.make_vector(faces);
    else convection_previous_ = backend.make_vector(faces);
  }

  // A body force per unit mass in every cell, added to f (set_body_force of the solver).
  void set_body_force(BodyForce body) { body_force_ = std::move(body); }

  // θ-scheme (and steady mode): T f of U with the boundary values as they are.
  void theta_scheme(const Vector& U) {
    auto& mesh_ops = ops_.mesh();
    mesh_ops.interpolate(U, ux_, uy_, uz_);
    const auto [nu_explicit, nu_boundary] = momentum_.cell_term_viscosities();
    ops_.cell_terms(problem_.convection, nu_explicit, nu_boundary, U, ux_, uy_, uz_, boundary_.velocity_x(),
                    boundary_.velocity_y(), boundary_.velocity_z(), fx_, fy_, fz_);
    if (body_force_) body_force_(fx_, fy_, fz_);
    mesh_ops.integrate(fx_, fy_, fz_, integrated_);
    add_constant_force();
    momentum_.add_explicit_viscous_force(U, integrated_);
  }

  // Crank–Nicolson for the step Δt from U = Uⁿ (Uⁿ⁻¹ in `previous` when `has_previous`, Δtⁿ⁻¹ =
  // previous_dt): the boundary values are those of tⁿ on entry; `to_new_time` moves them to tⁿ⁺¹.
  void crank_nicolson(const Vector& U, const Vector& previous, bool has_previous, double dt, double previous_dt,
                      const std::function<void()>& to_new_time) {
    const double half_ratio = 0.5 * dt / previous_dt;
    if (!problem_.implicit_convection) {
      convection_terms(U, U, convection_);
      if (has_history_) {
        backend_.linear_combination({1.0 + half_ratio, -half_ratio}, {&convection_, &convection_previous_}, integrated_);
      } else {
        backend_.copy(convection_, integrated_);
      }
      std::swap(convection_, convection_previous_);
      has_history_ = true;
      to_new_time();
    } else {
      if (has_previous) backend_.linear_combination({1.0 + half_ratio, -half_ratio}, {&U, &previous}, extrapolated_flux_);
      else backend_.copy(U, extrapolated_flux_);
      convection_terms(extrapolated_flux_, U, integrated_);
      if (problem_.time_dependent()) {
        to_new_time();
        convection_terms(extrapolated_flux_, U, convection_);
        backend_.linear_combination({0.5, 0.5}, {&integrated_, &convection_}, integrated_);
      }
    }
    add_constant_force();  // the same at every time level: its extrapolation is itself
    add_viscous_terms(U);
  }

  const Vector& integrated() const { return integrated_; }  // T f
  // The flux that convects in implicit convection's C: Ũ after a Crank–Nicolson step's terms, else U.
  const Vector& convecting_flux(const Vector& U) const {
    return problem_.time_scheme == TimeScheme::crank_nicolson && problem_.implicit_convection ? extrapolated_flux_ : U;
  }

  // Crank–Nicolson's explicit convection history cⁿ⁻¹ (empty when there is none: a fresh run, the
  // θ-scheme, implicit convection), handed out and back with the state.
  void forget_history() { has_history_ = false; }
  std::vector<double> history() { return has_history_ ? backend_.download(convection_previous_) : std::vector<double>{}; }
  void restore_history(const std::vector<double>& previous) {
    has_history_ = convection_previous_.size() > 0 && !previous.empty();
    if (has_history_) convection_previous_ = backend_.upload(previous);
  }

private:
  // out = T(−N(convecting; I U, u_b) + body) with the boundary values as they are.
  void convection_terms(const Vector& convecting, const Vector& U, Vector& out) {
    auto& mesh_ops = ops_.mesh();
    mesh_ops.interpolate(U, ux_, uy_, uz_);
    ops_.cell_terms(problem_.convection, 0.0, 0.0, convecting, ux_, uy_, uz_, boundary_.velocity_x(),
                    boundary_.velocity_y(), boundary_.velocity_z(), fx_, fy_, fz_);
    if (body_force_) body_force_(fx_, fy_, fz_);
    mesh_ops.integrate(fx_, fy_, fz_, out);
  }

  void add_constant_force() {
    if (constant_force_.size() > 0) backend_.axpy(1.0, constant_force_, integrated_, integrated_);
  }

  // T f += the explicit viscous part: the two-point scheme's ν(1−θ) Λ₀(uⁿ) + ν bc per cell (a second
  // pass of the cell terms, without convection), the curl–curl force on the faces.
  void add_viscous_terms(const Vector& U) {
    const auto [nu_explicit, nu_boundary] = momentum_.cell_term_viscosities();
    if (nu_explicit != 0.0 || nu_boundary != 0.0) {
      ops_.cell_terms(Convection::none, nu_explicit, nu_boundary, U, ux_, uy_, uz_, boundary_.velocity_x(),
                      boundary_.velocity_y(), boundary_.velocity_z(), fx_, fy_, fz_);
      ops_.mesh().integrate(fx_, fy_, fz_, convection_);  // convection_: scratch until the next step
      backend_.axpy(1.0, convection_, integrated_, integrated_);
    }
    momentum_.add_explicit_viscous_force(U, integrated_);
  }

  Backend& backend_;
  FlowOps& ops_;
  const FlowProblem& problem_;
  const FlowBoundaryVectors<Backend>& boundary_;
  MomentumOperator<Backend, FlowOps>& momentum_;
  BodyForce body_force_;
  bool has_history_ = false;  // convection_previous_ holds cⁿ⁻¹
  Vector ux_, uy_, uz_, fx_, fy_, fz_, integrated_;
  Vector constant_force_;  // T b of problem.body_force (empty without one)
  Vector convection_, convection_previous_;  // Crank–Nicolson: cⁿ and cⁿ⁻¹ (explicit convection; cⁿ: scratch else)
  Vector extrapolated_flux_;                 // Crank–Nicolson with implicit convection: Ũ
};

}  // namespace ss
