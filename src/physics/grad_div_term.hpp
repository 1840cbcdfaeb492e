#pragma once
// Steady mode's grad–div term in the implicit momentum system (physics/momentum_flux_solve.hpp):
//   (H/Δt + C − νθK + γ m Dᵀ V⁻¹ D) U* = rhs,   Dᵀ = −G  (operators/mesh_operators.hpp)
// It penalises the divergence of the predicted flux U*. The projection removes that divergence
// anyway, and at a steady state U* = Uⁿ⁺¹ is divergence-free, so the term vanishes there: the steady
// state is unchanged. What it changes is the system: the divergent modes of the face fluxes, which
// the reconstructed cell velocities barely see and only H/Δt holds at large Δt, get a diagonal of
// their own, and BiCGStab converges at CFL numbers where it stalls without it.
// Per face γ_f = κ (m H / d)_f · R / 10, d_f = Σ_{c ∋ f} 1/V_c the diagonal of Dᵀ V⁻¹ D and R the
// largest Courant rate of Uⁿ: the term's diagonal is κ times the mass term's at CFL 10, whatever the
// step's CFL number (κ = [steady] grad_div).
#include <cstdint>
#include <utility>
#include <vector>

#include "problems/flow_problem.hpp"
#include "util/error.hpp"

namespace ss {

template <class Backend, class FlowOps>
class GradDivTerm {
public:
  using Vector = typename Backend::Vector;

  GradDivTerm(Backend& backend, FlowOps& ops, const FlowOperatorData& data, double kappa)
      : backend_(backend), ops_(ops), kappa_(kappa) {
    const size_t nf = data.face_mass.size();
    SS_REQUIRE(data.inverse_volume_sum.size() == nf, "grad-div term: the operator data has no Σ 1/V per face");
    std::vector<double> mass(nf), weight(nf);
    for (size_t f = 0; f < nf; ++f) {
      mass[f] = data.free_mask[f] * data.face_mass[f];
      weight[f] = mass[f] / data.inverse_volume_sum[f];
    }
    masked_mass_ = backend.upload(mass), weight_ = backend.upload(weight);
    host_weight_ = std::move(weight);
    inverse_volume_ = backend.upload(data.inverse_volume);
    const std::int64_t nc = std::int64_t(data.inverse_volume.size());
    divergence_ = backend.make_vector(nc), scaled_ = backend.make_vector(nc);
    gradient_ = backend.make_vector(std::int64_t(nf)), term_ = backend.make_vector(std::int64_t(nf));
    ones_ = backend.make_vector(std::int64_t(nf)), diagonal_ = backend.make_vector(std::int64_t(nf));
    backend.fill(ones_, 1.0);
  }

  // γ for the step from Uⁿ (one Courant pass and a max reduction); `courant` is cell scratch.
  void set_flux(const Vector& flux, Vector& courant) {
    ops_.courant(flux, courant);
    scale_ = kappa_ * backend_.max(courant) / 10.0;
  }

  // y += c γ m Dᵀ V⁻¹ D x  (x: a flux, its prescribed faces as the caller wants them counted)
  void add(double c, const Vector& x, Vector& y) {
    ops_.mesh().divergence(x, divergence_);
    backend_.multiply(inverse_volume_, divergence_, scaled_);
    ops_.mesh().gradient(scaled_, gradient_);  // G = −Dᵀ
    backend_.multiply(weight_, gradient_, term_);
    backend_.axpy(-c * scale_, term_, y, y);
  }

  // The Jacobi preconditioner 1 / (diag + γ m d) from 1 / diag (inverse_diagonal), in its own vector.
  const Vector& jacobi(const Vector& inverse_diagonal) {
    backend_.divide(ones_, inverse_diagonal, term_);
    backend_.axpy(scale_, masked_mass_, term_, term_);  // γ_f d_f = scale m H
    backend_.divide(ones_, term_, diagonal_);
    return diagonal_;
  }

  // The term is scale() · weight_f · (Dᵀ V⁻¹ D m x)_f, weight = m H / d (host copy): the assembled
  // system's part (ImplicitMomentumMatrix::add_grad_div).
  double scale() const { return scale_; }
  const std::vector<double>& weight() const { return host_weight_; }

private:
  Backend& backend_;
  FlowOps& ops_;
  std::vector<double> host_weight_;
  double kappa_, scale_ = 0;  // scale_: κ R / 10 of the step
  Vector masked_mass_, weight_, inverse_volume_, divergence_, scaled_, gradient_, term_, ones_, diagonal_;
};

}  // namespace ss
