#pragma once
// The momentum solves on the face fluxes (momentum_solve.hpp).
//   FaceFluxMomentumSolve: explicit convection,
//     rhs = H Uⁿ/Δt + T f − G pⁿ + νθ K U_b,   (H/Δt − νθ K) U* = rhs   (CG + Jacobi)
//   ImplicitConvectionMomentumSolve: Picard linearisation, the convecting flux Uⁿ, the convected
//     velocity I U* at the new level, C x = T N(Uⁿ; I x, u_b = 0) its linear part:
//       H (U* − Uⁿ)/Δt + T N(Uⁿ; I U*, u_b) = …  ⇔  (H/Δt + C − νθ K) U* = rhs + m C(Uⁿ − U_b)
//     (rhs as above, whose −T N(Uⁿ; I Uⁿ, u_b) the added term turns into the implicit one; U_b is 0
//     on free faces); with Crank–Nicolson time stepping the convecting flux is Ũ, Uⁿ⁺½ extrapolated
//     (MomentumTerms), in the explicit terms too, and C is weighted by w = ½: the convection at the
//     half step, −N(Ũ; uⁿ) − ½ C(U* − Uⁿ) = −N(Ũ; ½(uⁿ + u*)); wC is made as C with the convecting
//     flux w Ũ (C is linear in it and w > 0 keeps the upwind directions); nonsymmetric: BiCGStab
//     with the Jacobi of H/Δt − νθ K or block Jacobi of the assembled system
//     (momentum_block_jacobi.hpp), or the first until its solves are slow ("automatic", flow_problem.hpp). In steady mode with [steady] grad_div > 0 the
//     system gains γ m Dᵀ (Γ/V) D U* (grad_div_term.hpp; its prescribed faces' part, from U_b, on the
//     right-hand side) and the Jacobi its diagonal; the solve is in delta form, A δ = rhs − A U₀ to
//     [steady] momentum_tolerance of its initial residual, U* = U₀ + δ; the pressure update adds the
//     pressure the grad–div term stands for (add_system_pressure). The steady residual (Δt = ∞) is
//     without the term.
// Both hold U* = U_b on prescribed faces. residual(): rhs − A U (with Δt = ∞ the steady residual).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <vector>

#include "physics/grad_div_term.hpp"
#include "physics/momentum_block_jacobi.hpp"
#include "physics/momentum_operator.hpp"
#include "physics/momentum_solve.hpp"
#include "solver/bicgstab.hpp"
#include "solver/cg.hpp"
#include "util/error.hpp"

namespace ss {

template <class Backend, class FlowOps>
class FaceFluxMomentumSolve : public MomentumSolve<Backend> {
public:
  using Vector = typename Backend::Vector;

  FaceFluxMomentumSolve(Backend& backend, FlowOps& ops, const FlowProblem& problem,
                        MomentumOperator<Backend, FlowOps>& momentum)
      : backend_(backend), ops_(ops), problem_(problem), A_(momentum) {}

  void right_hand_side(const MomentumTerms<Vector>& t, Vector& rhs) override {
    ops_.momentum_rhs(1.0 / t.dt, nu_theta(), t.flux, t.integrated, t.pressure_gradient, A_.fixed_columns(),
                      t.boundary_flux, rhs);
  }

  CgResult solve(const MomentumTerms<Vector>& t, const Vector& rhs, Vector& U) override {
    // The operator's last step on y is its halo update, if any (halo_last).
    const auto apply = halo_last([&](const Vector& x, Vector& y) { A_.apply(1.0 / t.dt, nu_theta(), x, y); });
    return conjugate_gradient(backend_, apply, rhs, U, jacobi(t.dt), cg_options(problem_.momentum));
  }

  void residual(const MomentumTerms<Vector>& t, const Vector& rhs, const Vector& U, Vector& r) override {
    A_.apply(1.0 / t.dt, nu_theta(), U, r);
    backend_.axpy(-1.0, r, rhs, r);
  }

protected:
  double nu_theta() const { return problem_.viscosity * problem_.theta; }
  const Vector* jacobi(double dt) { return problem_.momentum.jacobi ? &A_.inverse_diagonal(dt) : nullptr; }

  Backend& backend_;
  FlowOps& ops_;
  const FlowProblem& problem_;
  MomentumOperator<Backend, FlowOps>& A_;
};

template <class Backend, class FlowOps>
class ImplicitConvectionMomentumSolve : public FaceFluxMomentumSolve<Backend, FlowOps> {
  using Base = FaceFluxMomentumSolve<Backend, FlowOps>;

public:
  using Vector = typename Backend::Vector;

  ImplicitConvectionMomentumSolve(Backend& backend, FlowOps& ops, const FlowProblem& problem, const LoadedMesh& mesh,
                                  const FlowOperatorData& data, MomentumOperator<Backend, FlowOps>& momentum)
      : Base(backend, ops, problem, momentum), weight_(problem.implicit_convection_weight()) {
    SS_REQUIRE(problem.convection != Convection::none, "implicit convection needs convection (central or upwind)");
    boundary_zero_ = backend.make_vector(std::max<std::int64_t>(1, data.num_boundary_faces));
    backend.fill(boundary_zero_, 0.0);
    const std::int64_t nf = std::int64_t(data.face_mass.size());
    convection_x_ = backend.make_vector(nf), convection_y_ = backend.make_vector(nf);
    if (weight_ != 1.0) weighted_flux_ = backend.make_vector(nf);
    if (problem.steady.enabled && problem.steady.grad_div > 0) {
      grad_div_ = std::make_unique<GradDivTerm<Backend, FlowOps>>(backend, ops, data, problem.steady.grad_div,
                                                                 mesh.topology.face_cells);
      courant_ = backend.make_vector(std::int64_t(data.inverse_volume.size()));
    }
    if (problem.steady.enabled) initial_residual_ = backend.make_vector(nf), delta_ = backend.make_vector(nf);
    if (problem.momentum.block_jacobi || problem.momentum.block_jacobi_when_slow)
      block_jacobi_ = std::make_unique<MomentumBlockJacobi<Backend>>(backend, problem, mesh, data);
    use_block_jacobi_ = problem.momentum.block_jacobi;
  }

  // rhs += m C(Uⁿ − U_b) (and − γ m Dᵀ V⁻¹ D U_b with the grad–div term); the convecting flux w Ũ
  // of this step's system.
  void right_hand_side(const MomentumTerms<Vector>& t, Vector& rhs) override {
    Base::right_hand_side(t, rhs);
    if (weight_ != 1.0) this->backend_.scale(weight_, t.convecting_flux, weighted_flux_);
    this->backend_.axpy(-1.0, t.boundary_flux, t.flux, convection_x_);
    linear_convection(convecting_flux(t), convection_x_, convection_y_);
    this->backend_.axpy(1.0, convection_y_, rhs, rhs);
    if (with_grad_div(t)) {
      grad_div_->set_flux(t.flux, courant_);
      grad_div_->add(-1.0, t.boundary_flux, rhs);
    }
  }

  CgResult solve(const MomentumTerms<Vector>& t, const Vector& rhs, Vector& U) override {
    if (!this->problem_.steady.enabled) return krylov(t, rhs, U, cg_options(this->problem_.momentum));
    // Steady mode: A δ = r₀ = rhs − A U₀ from δ = 0, to momentum_tolerance of ||r₀||; U = U₀ + δ.
    residual(t, rhs, U, initial_residual_);
    this->backend_.fill(delta_, 0.0);
    CgOptions options = cg_options(this->problem_.momentum);
    options.tolerance = this->problem_.steady.momentum_tolerance;
    const CgResult result = krylov(t, initial_residual_, delta_, options);
    this->backend_.axpy(1.0, delta_, U, U);
    return result;
  }

  void add_system_pressure(const Vector& Ustar, const Vector& Un, Vector& pressure) override {
    if (grad_div_) grad_div_->add_pressure(Ustar, Un, pressure);
  }

  void residual(const MomentumTerms<Vector>& t, const Vector& rhs, const Vector& U, Vector& r) override {
    apply_system(t, U, r);
    this->backend_.axpy(-1.0, r, rhs, r);
  }

  std::pair<int, double> preconditioner_setups() const override {
    if (!block_jacobi_) return {0, 0.0};
    return {block_jacobi_->builds(), block_jacobi_->build_seconds()};
  }

private:
  // BiCGStab on A x = b with the block Jacobi or the (grad–div completed) Jacobi preconditioner.
  CgResult krylov(const MomentumTerms<Vector>& t, const Vector& b, Vector& x, const CgOptions& options) {
    const CgResult result = preconditioned_krylov(t, b, x, options);
    if (block_jacobi_ && !use_block_jacobi_) switch_when_slow(result.iterations);
    return result;
  }

  // "automatic": block Jacobi from the next solve on once the mean of the last kSlowSolves Jacobi
  // solves exceeds kSlowIterations (the counts are global, so every rank switches at the same solve).
  void switch_when_slow(int iterations) {
    recent_iterations_.push_back(iterations);
    if (int(recent_iterations_.size()) > kSlowSolves) recent_iterations_.erase(recent_iterations_.begin());
    double sum = 0;
    for (const int n : recent_iterations_) sum += n;
    use_block_jacobi_ = int(recent_iterations_.size()) == kSlowSolves && sum > kSlowIterations * kSlowSolves;
  }

  CgResult preconditioned_krylov(const MomentumTerms<Vector>& t, const Vector& b, Vector& x, const CgOptions& options) {
    const auto apply = [&](const Vector& v, Vector& y) { apply_system(t, v, y); };
    if (use_block_jacobi_) {
      static const std::vector<double> no_term;
      block_jacobi_->update(convecting_flux(t), t.dt, grad_div_ ? grad_div_->scale() : 0.0, grad_div_ ? grad_div_->weight() : no_term);
      const auto precondition = [&](const Vector& r, Vector& z) { block_jacobi_->apply(r, z); };
      return preconditioned_bicgstab(this->backend_, apply, b, x, precondition, options);
    }
    const Vector* jacobi = this->jacobi(t.dt);
    if (grad_div_ && jacobi) jacobi = &grad_div_->jacobi(*jacobi);
    return bicgstab(this->backend_, apply, b, x, jacobi, options);
  }

  // y = A x + m C(m x) (+ γ m Dᵀ V⁻¹ D m x): the symmetric part as for CG, then the linearised
  // convection with the flux Uⁿ and the grad–div term
  void apply_system(const MomentumTerms<Vector>& t, const Vector& x, Vector& y) {
    this->A_.apply(1.0 / t.dt, this->nu_theta(), x, y);
    this->backend_.multiply(this->A_.free_mask(), x, convection_x_);
    linear_convection(convecting_flux(t), convection_x_, convection_y_);
    this->backend_.axpy(1.0, convection_y_, y, y);
    if (with_grad_div(t)) grad_div_->add(1.0, convection_x_, y);  // convection_x_ = m x
  }

  // The flux that convects in wC: Ũ, or w Ũ (made by right_hand_side) when w ≠ 1.
  const Vector& convecting_flux(const MomentumTerms<Vector>& t) const {
    return weight_ != 1.0 ? weighted_flux_ : t.convecting_flux;
  }

  // The grad–div term is in every step's system, not in the steady residual (Δt = ∞): it vanishes at
  // the steady state, and in float32 it would only weigh the divergence's rounding.
  bool with_grad_div(const MomentumTerms<Vector>& t) const { return grad_div_ && std::isfinite(t.dt); }

  // y = m C x, C x = T N(Uⁿ; I x, u_b = 0): the linear part of the convection −T N with the flux Uⁿ
  // convecting (cell_terms gives −N; boundary velocities 0, zero-gradient faces u_c).
  void linear_convection(const Vector& flux, const Vector& x, Vector& y) {
    auto& mesh_ops = this->ops_.mesh();
    mesh_ops.interpolate(x, cux_, cuy_, cuz_);
    this->ops_.cell_terms(this->problem_.convection, 0.0, 0.0, flux, cux_, cuy_, cuz_, boundary_zero_, boundary_zero_,
                          boundary_zero_, cfx_, cfy_, cfz_);
    mesh_ops.integrate(cfx_, cfy_, cfz_, integrated_);
    this->backend_.multiply(this->A_.free_mask(), integrated_, y);
    this->backend_.scale(-1.0, y, y);
  }

  const double weight_;  // w: 1, or ½ with Crank–Nicolson time stepping
  Vector weighted_flux_;  // w Ũ
  Vector boundary_zero_, convection_x_, convection_y_, integrated_, cux_, cuy_, cuz_, cfx_, cfy_, cfz_;
  Vector initial_residual_, delta_;  // steady mode's delta form
  std::unique_ptr<GradDivTerm<Backend, FlowOps>> grad_div_;  // steady mode's, or none
  std::unique_ptr<MomentumBlockJacobi<Backend>> block_jacobi_;  // [solver.momentum] preconditioner, or none
  bool use_block_jacobi_ = false;        // false: the point Jacobi ("automatic" before its switch)
  std::vector<int> recent_iterations_;   // "automatic": the last Jacobi solves' iterations
  Vector courant_;                                           // its cell scratch
};

}  // namespace ss
