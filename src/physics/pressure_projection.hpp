#pragma once
// The classical method's pressure correction and projection (thesis §7.3, eqs. 7.11–7.13) as a part:
//   P φ = −D U*/Δt                      (CG + one algebraic V-cycle of P, Jacobi or none)
//   Uⁿ⁺¹ = U* − Δt W G φ,  pⁿ⁺¹ = pⁿ + φ
// P = D W G does not change, so its multigrid is made once, here (over MPI ranks it is the
// distributed operators' V-cycle over the ranks). Without an outlet P is singular: the right-hand
// side and φ are kept mean-free. The exact method uses the same solve to recover its pressure.
#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
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

  // What a solve's φ is: no step's (the initial projection's), the first step's after the start
  // (pⁿ = 0 there, so φ is the whole pressure, not an increment), or a later step's increment.
  enum class Correction { none, first_step, step };

  // P φ = −D U*/Δt. False (reason in failure()) when CG does not converge. A later step's correction
  // starts from the earlier steps' (otherwise from 0). φ is the pressure's increment, Δt times its
  // rate g = ∂p/∂t at the step's midpoint; g is smooth in time, so the guess extrapolates it linearly
  // from the last two steps' midpoints (from the last step alone after one):
  //   φ₀ = Δt (gⁿ + r (gⁿ − gⁿ⁻¹)),  gⁿ = φⁿ/Δtⁿ,  r = (Δt + Δtⁿ)/(Δtⁿ + Δtⁿ⁻¹).
  // The first step's φ is no rate (from the start's zero pressure): the history begins after it.
  bool solve(const Vector& Ustar, double dt, int& iterations, Correction correction = Correction::none) {
    right_hand_side_from(Ustar, dt);
    const bool from_previous = correction == Correction::step && settings_.extrapolated_guess && steps_.dt > 0;
    if (!from_previous) {
      const bool ok = solve_system(iterations);
      if (correction == Correction::step && ok) steps_.dt = dt;  // φ: the history's first rate
      return ok;
    }
    Vector& guess = steps_.guess;
    if (steps_.older_dt > 0) {
      const double r = (dt + steps_.dt) / (steps_.dt + steps_.older_dt);
      backend_.linear_combination({dt * (1.0 + r) / steps_.dt, -dt * r}, {&phi_, &steps_.older_rate}, guess);
    } else {
      backend_.scale(dt / steps_.dt, phi_, guess);
    }
    backend_.scale(1.0 / steps_.dt, phi_, steps_.older_rate);  // gⁿ, the next step's gⁿ⁻¹
    const double older_dt = steps_.dt;
    bool ok = solve_from(guess, iterations);
    const bool fell_back = !ok;
    if (fell_back) {  // from the guess short of the tolerance (float32's floor): from 0, the history anew
      ++guess_fall_backs_;
      right_hand_side_from(Ustar, dt);
      int more = 0;
      ok = solve_system(more);
      iterations += more;
    }
    if (ok) steps_.older_dt = fell_back ? 0.0 : older_dt, steps_.dt = dt;
    return ok;
  }

  // P φ = right_hand_side(), the right-hand side written there by the caller, by CG from φ = 0.
  bool solve_system(int& iterations) {
    steps_.dt = steps_.older_dt = 0;  // φ is no step's increment
    if (singular()) remove_mean(rhs_);
    CgOptions options = cg_options(settings_);
    options.zero_start = true;
    return finish(conjugate_gradient(rhs_, options), options.tolerance, iterations);
  }

  // U = U* − Δt W G φ (the pressure itself: add correction()).
  void project(const Vector& Ustar, double dt, Vector& U) { ops_.project(Ustar, phi_, dt, U); }

  // The step corrections' history for a checkpoint (FlowState's pressure_increment …; empty and 0
  // where there is none), and its restoration: the next step's guess is then the uninterrupted run's.
  void history(std::vector<double>& increment, double& increment_dt, std::vector<double>& older_rate,
               double& older_dt) const {
    increment.clear(), older_rate.clear();
    increment_dt = older_dt = 0;
    if (!settings_.extrapolated_guess || steps_.dt <= 0) return;
    increment = backend_.download(phi_), increment_dt = steps_.dt;
    if (steps_.older_dt > 0) older_rate = backend_.download(steps_.older_rate), older_dt = steps_.older_dt;
  }
  void restore_history(const std::vector<double>& increment, double increment_dt, const std::vector<double>& older_rate,
                       double older_dt) {
    steps_.dt = steps_.older_dt = 0;
    if (!settings_.extrapolated_guess || increment.empty() || increment_dt <= 0) return;
    phi_ = backend_.upload(increment), steps_.dt = increment_dt;
    if (!older_rate.empty() && older_dt > 0) steps_.older_rate = backend_.upload(older_rate), steps_.older_dt = older_dt;
  }

  Vector& right_hand_side() { return rhs_; }
  const Vector& correction() const { return phi_; }  // φ
  const std::string& failure() const { return failure_; }
  int fall_backs() const { return fall_backs_; }  // pipelined solves finished by single-sync CG
  int guess_fall_backs() const { return guess_fall_backs_; }  // steps solved again from 0 after the guess's solve failed

private:
  bool singular() const { return !data_.pressure_fixed; }  // no outlet: the constants are P's null space
  double cells() const { return double(data_.global_cells); }  // all ranks' cells
  void remove_mean(Vector& v) { backend_.axpy(-backend_.sum(v) / cells(), ones_, v, v); }

  // The correction δ = φ − φ₀ by CG from 0: P δ = b − P φ₀, stopped where ||b − P (φ₀ + δ)|| ≤ tol ||b||
  // as CG from φ₀ would stop; then φ = φ₀ + δ. Without an outlet b − P φ₀ is made mean-free (P's
  // range): in float32 its rounding leaves a constant part that CG from φ₀ kept, which a singular P
  // cannot reduce (its iteration diverged at a 1e-8 tolerance).
  bool solve_from(const Vector& guess, int& iterations) {
    apply_for_cg(guess, phi_);
    backend_.axpy(-1.0, phi_, rhs_, phi_);  // b − P φ₀ (φ as its store)
    const std::vector<double> d = backend_.dots({{&rhs_, &rhs_}, {&rhs_, &ones_}, {&phi_, &ones_}});
    const double b_norm2 = singular() ? d[0] - d[1] * d[1] / cells() : d[0];  // ||b||² of the mean-free b
    if (singular()) backend_.axpy(-d[2] / cells(), ones_, phi_, phi_);
    std::swap(rhs_, phi_);
    CgOptions options = cg_options(settings_);
    options.reference_norm = std::sqrt(std::max(b_norm2, 0.0));
    options.zero_start = true;
    const CgResult r = conjugate_gradient(rhs_, options);
    backend_.axpy(1.0, guess, phi_, phi_);
    return finish(r, options.tolerance, iterations);
  }

  CgResult conjugate_gradient(const Vector& b, const CgOptions& options) {
    if (owned_products()) {
      const auto apply = [&](const Vector& x, Vector& y) { apply_for_cg(x, y); };
      // The V-cycle's last step on z is its halo update (distributed_pressure_multigrid.hpp): r·z rides in it.
      return preconditioned_conjugate_gradient(backend_, apply, b, phi_, halo_last(v_cycle_), options);
    }
    // The operator's last step on y is its halo update (halo_last).
    const auto apply = halo_last([&](const Vector& x, Vector& y) { ops_.pressure_apply(x, y); });
    if (v_cycle_) return preconditioned_conjugate_gradient(backend_, apply, b, phi_, v_cycle_, options);
    return ss::conjugate_gradient(backend_, apply, b, phi_, settings_.jacobi ? &inverse_diagonal_ : nullptr, options);
  }

  // b = −D U*/Δt; with owned_products() on the owned cells alone (no halo round trip): nothing reads
  // b's ghosts then — the V-cycle reads r's owned entries, the products and reductions owned rows.
  void right_hand_side_from(const Vector& Ustar, double dt) {
    if (owned_products()) ops_.mesh().divergence_owned(Ustar, rhs_);
    else ops_.mesh().divergence(Ustar, rhs_);
    backend_.scale(-1.0 / dt, rhs_, rhs_);
  }

  // Over MPI ranks with the V-cycle, CG's products P x are right on the owned cells alone (no halo
  // round trip): the V-cycle reads only its input's owned entries and returns its output right on
  // the ghosts, so every vector CG applies P to — the guess, the V-cycle's outputs and their linear
  // combinations — is right on its ghosts whatever the products' ghosts hold, and the reductions
  // read the owned entries. Otherwise (Jacobi: z = D⁻¹ r reads r's ghosts) P x whole.
  bool owned_products() const { return kDistributed && bool(v_cycle_); }
  void apply_for_cg(const Vector& x, Vector& y) {
    if constexpr (kDistributed) {
      if (owned_products()) return ops_.pressure_apply_owned(x, y);
    }
    ops_.pressure_apply(x, y);
  }

  // The solve's report; φ mean-free without an outlet.
  bool finish(const CgResult& r, double tolerance, int& iterations) {
    iterations = r.iterations;
    if (r.fell_back) ++fall_backs_;
    if (!r.converged) {
      failure_ = describe_stop(r, tolerance);
      return false;
    }
    if (singular()) remove_mean(phi_);
    return true;
  }

  void build_multigrid(const LoadedMesh& mesh) {
    const auto& face_cells = mesh.topology.face_cells;
    std::vector<std::int32_t> cell0(face_cells.size()), cell1(face_cells.size());
    for (size_t f = 0; f < face_cells.size(); ++f) cell0[f] = face_cells[f][0], cell1[f] = face_cells[f][1];
    FlowOps* ops = &ops_;
    // A refined mesh's cells are numbered by families (refine_once): those first. The coarsest on
    // the device, as over MPI ranks: a host solve would drain the device each V-cycle.
    MultigridOptions options = with_dense_coarsest({});
    options.refinement_families = mesh.report.refine_levels;
    options.smoother_degree = pressure_smoother_degree(settings_, false);
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
  int fall_backs_ = 0, guess_fall_backs_ = 0;
  struct StepHistory {  // the step corrections' initial guess (solve)
    double dt = 0, older_dt = 0;  // Δtⁿ (0: φ is no step's increment) and Δtⁿ⁻¹ (0: gⁿ⁻¹ unknown)
    Vector older_rate, guess;     // gⁿ⁻¹ = φⁿ⁻¹/Δtⁿ⁻¹; scratch (made with extrapolated_guess only)
  } steps_;
};

}  // namespace ss
