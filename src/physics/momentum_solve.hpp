#pragma once
// The classical method's momentum predictor (thesis §7.3, eq. 7.10) as a part: from the step's
// explicit terms, the right-hand side of the momentum system and U* from it. One implementation per
// system, chosen once when the solver is made (flow_solver.hpp):
//   FaceFluxMomentumSolve            (H/Δt − νθ K) U* = rhs, CG on the face fluxes
//   ImplicitConvectionMomentumSolve  (H/Δt + C − νθ K) U* = rhs + m C(Uⁿ − U_b), BiCGStab (Picard)
//   EdgeVorticityMomentumSolve       the same U* from CG on the edge vorticity (momentum_vorticity_solve.hpp)
#include <string>
#include <utility>
#include <vector>

#include "solver/cg.hpp"
#include "util/error.hpp"

namespace ss {

// The explicit terms of one step, as the momentum solves read them.
template <class Vector>
struct MomentumTerms {
  double dt = 0, previous_dt = 0;   // this step's Δt, the last step's
  const Vector& flux;               // Uⁿ
  const Vector& integrated;         // T f, f = −N(u) (+ viscous and body terms) per cell
  const Vector& pressure_gradient;  // G pⁿ with the boundary pressures
  const Vector& boundary_flux;      // U_b (0 on free faces)
  // The flux that convects in implicit convection's C: Uⁿ, or (Crank–Nicolson) Uⁿ⁺½ extrapolated,
  // (1 + r/2) Uⁿ − (r/2) Uⁿ⁻¹.
  const Vector& convecting_flux;
};

template <class Backend>
class MomentumSolve {
public:
  using Vector = typename Backend::Vector;
  virtual ~MomentumSolve() = default;

  // The right-hand side of the system from the step's explicit terms.
  virtual void right_hand_side(const MomentumTerms<Vector>& terms, Vector& rhs) = 0;
  // U* from `rhs`; `U` holds the start vector on entry (the extrapolation of the last two steps).
  virtual CgResult solve(const MomentumTerms<Vector>& terms, const Vector& rhs, Vector& U) = 0;
  // r = rhs − A U, the system's residual at U (with terms.dt = ∞: the steady momentum equation's
  // residual, flow_solver.hpp's steady_residual). The face-flux systems have it; the edge vorticity
  // system, which steady mode never uses, does not.
  virtual void residual(const MomentumTerms<Vector>& /*terms*/, const Vector& /*rhs*/, const Vector& /*U*/,
                        Vector& /*r*/) {
    SS_THROW("this momentum system has no residual (steady mode needs the face-flux system)");
  }

  // After the projection: adds to the new pressure what the system's own terms stand for, from the
  // step's U* and Uⁿ (the grad–div term's pressure, grad_div_term.hpp). Nothing by default.
  virtual void add_system_pressure(const Vector& /*Ustar*/, const Vector& /*Un*/, Vector& /*pressure*/) {}

  // The preconditioner's set-ups so far and their seconds (block Jacobi builds); none by default.
  virtual std::pair<int, double> preconditioner_setups() const { return {0, 0.0}; }

  // The history a start vector extrapolates beyond Uⁿ and Uⁿ⁻¹ (the vorticity system's ωⁿ, ωⁿ⁻¹):
  // forgotten at a fresh start, handed out and back with the state. None by default.
  virtual void forget_history() {}
  virtual void history(std::vector<double>& /*latest*/, std::vector<double>& /*previous*/) {}
  virtual void restore_history(const std::vector<double>& /*latest*/, const std::vector<double>& /*previous*/) {}
};

}  // namespace ss
