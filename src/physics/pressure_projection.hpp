#pragma once
// The classical method's pressure correction and projection (thesis §7.3, eqs. 7.11–7.13) as a part:
//   P φ = −D U*/Δt                      (CG + one algebraic V-cycle of P, Jacobi or none)
//   Uⁿ⁺¹ = U* − Δt W G φ,  pⁿ⁺¹ = pⁿ + φ
// P = D W G does not change, so its multigrid is made once, here (over MPI ranks it is the
// distributed operators' V-cycle over the ranks). Without an outlet P is singular: the right-hand
// side and φ are kept mean-free. The exact method uses the same solve to recover its pressure.
#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "multigrid/multigrid.hpp"
#include "multigrid/pressure_matrix.hpp"
#include "physics/distributed_traits.hpp"
#include "problems/flow_problem.hpp"
#include "solver/cg.hpp"
#include "util/error.hpp"

namespace ss {

template <class Backend, class FlowOps>
class PressureProjection {
public:
  using Vector = typename Backend::Vector;
  static constexpr bool kDistributed = IsDistributedBackend<Backend>::value;

  PressureProjection(Backend& backend, FlowOps& ops, const FlowProblem& problem, const LoadedMesh& mesh,
                     const FlowOperatorData& data)
      : backend_(backend), ops_(ops), settings_(problem.pressure), data_(data) {
    const std::int64_t nc = mesh.topology.num_cells;
    phi_ = backend.make_vector(nc), rhs_ = backend.make_vector(nc), ones_ = backend.make_vector(nc);
    backend.fill(ones_, 1.0);
    if (settings_.extrapolated_guess) steps_.older_rate = backend.make_vector(nc), steps_.guess = backend.make_vector(nc);
    inverse_diagonal_ = backend.make_vector(nc);
    backend.divide(ones_, ops.pressure_diagonal(), inverse_diagonal_);
    if (!settings_.multigrid) return;
    if constexpr (kDistributed) v_cycle_ = ops.pressure_v_cycle();
    else build_multigrid(mesh);
    SS_REQUIRE(v_cycle_, "flow: the pressure multigrid was asked for but not built");
  }

  // P φ = −D U*/Δt. False (reason in failure()) when CG does not converge. `step`: a time step's
  // correction, whose CG starts from the earlier steps' (otherwise from 0). φ is the pressure's
  // increment, Δt times its rate g = ∂p/∂t at the step's midpoint; g is smooth in time, so the guess
  // extrapolates it linearly from the last two steps' midpoints (from the last step alone after one):
  //   φ₀ = Δt (gⁿ + r (gⁿ − gⁿ⁻¹)),  gⁿ = φⁿ/Δtⁿ,  r = (Δt + Δtⁿ)/(Δtⁿ + Δtⁿ⁻¹).
  bool solve(const Vector& Ustar, double dt, int& iterations, bool step = false) {
    ops_.mesh().divergence(Ustar, rhs_);
    backend_.scale(-1.0 / dt, rhs_, rhs_);
    const bool from_previous = step && settings_.extrapolated_guess && steps_.dt > 0;
    if (from_previous) {
      if (steps_.older_dt > 0) {
        const double r = (dt + steps_.dt) / (steps_.dt + steps_.older_dt);
        backend_.linear_combination({dt * (1.0 + r) / steps_.dt, -dt * r}, {&phi_, &steps_.older_rate}, steps_.guess);
      } else {
        backend_.scale(dt / steps_.dt, phi_, steps_.guess);
      }
      backend_.scale(1.0 / steps_.dt, phi_, steps_.older_rate);  // gⁿ, the next step's gⁿ⁻¹
      std::swap(phi_, steps_.guess);
    }
    const double older_dt = steps_.dt;
    const bool ok = solve_system(iterations, from_previous);
    if (step && ok) steps_.older_dt = from_previous ? older_dt : 0.0, steps_.dt = dt;
    return ok;
  }

  // P φ = right_hand_side(), the right-hand side written there by the caller; CG from φ = 0, or from
  // φ as it is (`from_current`).
  bool solve_system(int& iterations, bool from_current = false) {
    const bool singular = !data_.pressure_fixed;
    const double cells = double(data_.global_cells);  // all ranks' cells
    if (singular) backend_.axpy(-backend_.sum(rhs_) / cells, ones_, rhs_, rhs_);
    if (!from_current) {
      backend_.fill(phi_, 0.0);
      steps_.dt = steps_.older_dt = 0;  // φ is no step's increment
    }
    const CgOptions options = cg_options(settings_);
    const auto apply = [&](const Vector& x, Vector& y) { ops_.pressure_apply(x, y); };
    CgResult r;
    if (v_cycle_) {
      r = preconditioned_conjugate_gradient(backend_, apply, rhs_, phi_, v_cycle_, options);
    } else {
      r = conjugate_gradient(backend_, apply, rhs_, phi_, settings_.jacobi ? &inverse_diagonal_ : nullptr, options);
    }
    iterations = r.iterations;
    if (r.fell_back) ++fall_backs_;
    if (!r.converged) {
      failure_ = describe_stop(r, options.tolerance);
      return false;
    }
    if (singular) backend_.axpy(-backend_.sum(phi_) / cells, ones_, phi_, phi_);
    return true;
  }

  // U = U* − Δt W G φ (the pressure itself: add correction()).
  void project(const Vector& Ustar, double dt, Vector& U) { ops_.project(Ustar, phi_, dt, U); }

  Vector& right_hand_side() { return rhs_; }
  const Vector& correction() const { return phi_; }  // φ
  const std::string& failure() const { return failure_; }
  int fall_backs() const { return fall_backs_; }  // pipelined solves finished by single-sync CG

private:
  void build_multigrid(const LoadedMesh& mesh) {
    const auto& face_cells = mesh.topology.face_cells;
    std::vector<std::int32_t> cell0(face_cells.size()), cell1(face_cells.size());
    for (size_t f = 0; f < face_cells.size(); ++f) cell0[f] = face_cells[f][0], cell1[f] = face_cells[f][1];
    FlowOps* ops = &ops_;
    MultigridOptions options;  // a refined mesh's cells are numbered by families (refine_once): those first
    options.refinement_families = mesh.report.refine_levels;
    multigrid_ = std::make_unique<Multigrid<Backend>>(
        backend_, pressure_matrix(cell0, cell1, data_), !data_.pressure_fixed,
        [ops](const Vector& x, Vector& y) { ops->pressure_apply(x, y); }, options);
    v_cycle_ = [this](const Vector& from, Vector& to) { (*multigrid_)(from, to); };
  }

  Backend& backend_;
  FlowOps& ops_;
  const FlowLinearSolver& settings_;
  const FlowOperatorData& data_;
  Vector phi_, rhs_, ones_, inverse_diagonal_;
  struct NoMultigrid {};  // over MPI ranks: the operators' V-cycle
  std::unique_ptr<std::conditional_t<kDistributed, NoMultigrid, Multigrid<Backend>>> multigrid_;
  std::function<void(const Vector&, Vector&)> v_cycle_;  // z = M⁻¹ r (settings_.multigrid)
  std::string failure_;
  int fall_backs_ = 0;
  struct StepHistory {  // the step corrections' initial guess (solve)
    double dt = 0, older_dt = 0;  // Δtⁿ (0: φ is no step's increment) and Δtⁿ⁻¹ (0: gⁿ⁻¹ unknown)
    Vector older_rate, guess;     // gⁿ⁻¹ = φⁿ⁻¹/Δtⁿ⁻¹; scratch (made with extrapolated_guess only)
  } steps_;
};

}  // namespace ss
