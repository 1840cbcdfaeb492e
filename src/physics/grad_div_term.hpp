#pragma once
// Steady mode's grad–div term in the implicit momentum system (physics/momentum_flux_solve.hpp):
//   (H/Δt + C − νθK + γ m Dᵀ Γ V⁻¹ D m) U* = rhs,   Dᵀ = −G  (operators/mesh_operators.hpp)
// It penalises the divergence of the predicted flux U*. The projection removes that divergence
// anyway, and at a steady state U* = Uⁿ⁺¹ is divergence-free, so the term vanishes there: the steady
// state is unchanged. What it changes is the system: the divergent modes of the face fluxes, which
// the reconstructed cell velocities barely see and only H/Δt holds at large Δt, get a diagonal of
// their own, and BiCGStab converges at CFL numbers where it stalls without it.
// Per cell Γ_c the mean over its four faces of (m H / d)_f, d_f = Σ_{c ∋ f} 1/V_c the diagonal of
// Dᵀ V⁻¹ D, and γ = κ R / 10 with R the largest Courant rate of Uⁿ: the term's diagonal is about κ
// times the mass term's at CFL 10, whatever the step's CFL number (κ = [steady] grad_div).
// The term is a pressure gradient: γ m Dᵀ Γ V⁻¹ D U* = m G(−γ Γ V⁻¹ D U*). The projection removes
// D U* from the flux but not this pressure from the momentum balance, so the pressure update adds
// it (add_pressure), the augmented-Lagrangian (Uzawa) update
//   pⁿ⁺¹ = pⁿ + φ − γ (Γ / V) D U*   (D (U* − Uⁿ) in the code: D Uⁿ = 0).
// By Sherman–Morrison–Woodbury the augmented system's Schur complement has S_γ⁻¹ = S⁻¹ + γ Γ V⁻¹:
// φ (a Poisson solve scaled by 1/Δt) stands for S⁻¹ and fades at large Δt; the second part does not.
// Without it the pressure falls behind the velocity at CFL numbers past about 20. Γ is per cell, not
// per face, so that the term is exactly that pressure's gradient.
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

  // `face_cells`: the two cells of each face (the second < 0 on the boundary), the Jacobi's diagonal.
  template <class FaceCells>
  GradDivTerm(Backend& backend, FlowOps& ops, const FlowOperatorData& data, double kappa, const FaceCells& face_cells)
      : backend_(backend), ops_(ops), kappa_(kappa) {
    const size_t nf = data.face_mass.size();
    SS_REQUIRE(data.inverse_volume_sum.size() == nf && face_cells.size() == nf,
               "grad-div term: the operator data has no Σ 1/V per face, or the cells of a face are missing");
    std::vector<double> face_weight(nf);
    for (size_t f = 0; f < nf; ++f) face_weight[f] = data.free_mask[f] * data.face_mass[f] / data.inverse_volume_sum[f];
    const std::int64_t nc = std::int64_t(data.inverse_volume.size());
    cell_weight_ = backend.make_vector(nc);  // Γ_c / V_c = ½ · (1/2V_c) Σ_f Γ_f: the Courant pass over the faces' Γ
    ops.courant(backend.upload(face_weight), cell_weight_);
    backend.scale(0.5, cell_weight_, cell_weight_);
    host_weight_ = backend.download(cell_weight_);
    std::vector<double> diagonal(nf, 0.0);  // (m Dᵀ Γ V⁻¹ D m)_ff = m_f Σ_{c ∋ f} Γ_c / V_c
    for (size_t f = 0; f < nf; ++f)
      for (int k = 0; k < 2; ++k)
        if (face_cells[f][k] >= 0) diagonal[f] += data.free_mask[f] * host_weight_[size_t(face_cells[f][k])];
    term_diagonal_ = backend.upload(diagonal), mask_ = backend.upload(data.free_mask);
    divergence_ = backend.make_vector(nc), scaled_ = backend.make_vector(nc);
    gradient_ = backend.make_vector(std::int64_t(nf)), term_ = backend.make_vector(std::int64_t(nf));
    ones_ = backend.make_vector(std::int64_t(nf)), diagonal_ = backend.make_vector(std::int64_t(nf));
    backend.fill(ones_, 1.0);
  }

  // γ for the step from Uⁿ (one Courant pass and a max reduction); `courant` is cell scratch.
  void set_flux(const Vector& flux, Vector& courant) {
    ops_.courant_owned(flux, courant);  // a max reduction reads it: no exchange over ranks
    scale_ = kappa_ * backend_.max(courant) / 10.0;
  }

  // y += c γ m Dᵀ Γ V⁻¹ D x  (x: a flux, its prescribed faces as the caller wants them counted)
  void add(double c, const Vector& x, Vector& y) {
    ops_.mesh().divergence(x, divergence_);
    backend_.multiply(cell_weight_, divergence_, scaled_);
    ops_.mesh().gradient(scaled_, gradient_);  // G = −Dᵀ
    backend_.multiply(mask_, gradient_, term_);
    backend_.axpy(-c * scale_, term_, y, y);
  }

  // p −= γ (Γ / V) D (U* − Uⁿ): the pressure the term stands for. D Uⁿ = 0 but for rounding, which
  // the same every step would pile up in p in float32; so the step's change.
  void add_pressure(const Vector& Ustar, const Vector& Un, Vector& p) {
    backend_.axpy(-1.0, Un, Ustar, term_);
    ops_.mesh().divergence(term_, divergence_);
    backend_.multiply(cell_weight_, divergence_, scaled_);
    backend_.axpy(-scale_, scaled_, p, p);
  }

  // The Jacobi preconditioner 1 / (diag + γ m Σ_{c ∋ f} w_c) from 1 / diag (inverse_diagonal), in its own vector.
  const Vector& jacobi(const Vector& inverse_diagonal) {
    backend_.divide(ones_, inverse_diagonal, term_);
    backend_.axpy(scale_, term_diagonal_, term_, term_);
    backend_.divide(ones_, term_, diagonal_);
    return diagonal_;
  }

  // The term is scale() · m (Dᵀ w D m x), w_c = Γ_c / V_c per cell (host copy): the assembled
  // system's part (ImplicitMomentumMatrix::add_grad_div).
  double scale() const { return scale_; }
  const std::vector<double>& weight() const { return host_weight_; }

private:
  Backend& backend_;
  FlowOps& ops_;
  std::vector<double> host_weight_;
  double kappa_, scale_ = 0;  // scale_: κ R / 10 of the step
  Vector cell_weight_, term_diagonal_, mask_, divergence_, scaled_, gradient_, term_, ones_, diagonal_;
};

}  // namespace ss
