#pragma once
// The heat solve, written once for both backends (GpuBackend + GpuHeatOperator, CpuBackend +
// CpuHeatOperator): steady K T = b, or the θ-scheme in time, each linear system with the fixed nodes
// eliminated symmetrically (src/operators/heat_operator.hpp) and solved by mixed-precision defect
// correction (src/solver/refinement.hpp): T, the right-hand sides and the residuals in double,
// the inner CG (textbook or single-sync) in the backend's working precision.
#include <chrono>
#include <cmath>
#include <functional>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "problems/heat_problem.hpp"
#include "solver/cg.hpp"
#include "solver/refinement.hpp"
#include "util/error.hpp"

namespace ss {

struct HeatSolveReport {
  bool converged = true;
  int steps = 0;                  // time steps (0 for a steady solve)
  int iterations = 0;             // inner CG iterations over all solves and corrections
  double relative_residual = 0;   // TRUE ||b̃ − K̃ T|| / ||b̃|| of the last solve (double)
  std::string stop_reason = "converged";
  double solve_seconds = 0;       // time inside the solves (refinement loop included)
  std::vector<double> last_rhs;   // right-hand side b̃ of the last solve, in double (for the true residual)
  double mass_coefficient = 0, stiffness_coefficient = 1;  // the last system a·M + s·K
  int outer_corrections = 0;      // inner solves (defect corrections) over all solves
  std::vector<int> inner_iterations;  // per correction of the last solve
  int cg_fall_backs = 0;          // pipelined inner solves finished by single-sync CG, all solves
  double download_seconds = 0;    // the final field back to the host (solve_heat)
};

struct HeatSolveHooks {
  std::function<void(int, double, double)> progress;                         // (iteration, residual, seconds)
  std::function<void(int, double, const std::vector<double>&)> snapshot;     // (step, time, T) every `every` steps
  int every = 0;
  std::function<void()> before_solve, after_solve;                           // around each linear solve
};

// What a heat solve needs from the operator with its fixed nodes (serial: EliminatedHeatSystem
// below; MPI: the distributed operator of src/distributed/):
//   system_diagonal(a, s)                 diag(a·M + s·K̃), for Jacobi
//   apply_system(a, s, x, y)              y = (a·M + s·K̃) x                 (working precision: inner CG)
//   prepare_solution_precise(X)           fixed values into X exactly (free entries kept)
//   residual_precise(a, s, f, X, out, fixed_rows)   out = f − (a·M + s·K) X on free rows, in double
//                                         (heat_operator.hpp; b̃ when X = (T_D, 0) and fixed_rows)
// A system may also bring `preconditioner`: it builds z = M⁻¹ r of a·M + s·K̃ (multigrid,
// src/multigrid/); empty: Jacobi or none as HeatSolveSettings::jacobi says.
template <class Vector>
using PreconditionerFactory = std::function<std::function<void(const Vector&, Vector&)>(double a, double s)>;

template <class Operator>
struct EliminatedHeatSystem {
  Operator& op;
  const std::vector<double>& fixed_values;
  using Vector = typename Operator::Vector;
  using PreciseVector = typename Operator::PreciseVector;
  PreconditionerFactory<Vector> preconditioner = {};
  Vector system_diagonal(double a, double s) { return op.system_diagonal(a, s); }
  void apply_system(double a, double s, const Vector& x, Vector& y) { op.apply_system(a, s, x, y); }
  void prepare_solution_precise(PreciseVector& X) { op.write_dirichlet_values_precise(X, fixed_values); }
  void residual_precise(double a, double s, const PreciseVector& f, const PreciseVector& X, PreciseVector& out,
                        bool fixed_rows) {
    op.residual_precise(a, s, f, X, out, fixed_rows);
  }
};

struct HeatSolveSettings {
  double tolerance = 1e-6;   // mixed: on the true relative residual; float: on CG's recursive one
  int max_iterations = 20000;
  bool jacobi = true;
  std::optional<TimeSettings> time;  // absent: steady
  bool mixed = true;                 // defect correction in double around working-precision CG
  double inner_tolerance = 1e-5;     // each correction's relative reduction (mixed)
  CgVariant variant = CgVariant::single_sync;
};

namespace detail {
template <class S, class = void> struct has_preconditioner : std::false_type {};
template <class S> struct has_preconditioner<S, std::void_t<decltype(std::declval<S&>().preconditioner)>> : std::true_type {};
}  // namespace detail

// Steady (a·M + s·K̃ with a = 0, s = 1) or the θ-scheme from the T given (its initial values), each
// linear system by mixed-precision refinement (solver/refinement.hpp) around CG on `backend` (whose
// reductions may be distributed). T is held in double (PreciseVector) and ends as the solution.
// `load` is b per local node, in double.
template <class Backend, class System>
void solve_heat_system(Backend& backend, System& system, const std::vector<double>& load,
                       typename Backend::PreciseVector& T, const HeatSolveSettings& settings, HeatSolveReport& report,
                       const HeatSolveHooks& hooks = {}) {
  using Vector = typename Backend::Vector;
  using Precise = typename Backend::PreciseVector;
  const std::int64_t n = std::int64_t(backend.working(T).size());
  const Precise load_precise = backend.upload_precise(load);
  Precise right = backend.make_precise(n), rhs = backend.make_precise(n), start = backend.make_precise(n),
          residual = backend.make_precise(n);
  const Vector zeros = backend.make_vector(n);
  RefinementOptions options;
  options.tolerance = settings.tolerance;
  options.max_iterations = settings.max_iterations;
  options.inner_tolerance = settings.inner_tolerance;
  options.single_correction = !settings.mixed;
  options.variant = settings.variant;
  options.progress = hooks.progress;

  // One linear solve of (a·M + s·K̃) T = b̃, b̃ from `f` (the un-eliminated right-hand side).
  const auto solve = [&](double a, double s, const Precise& f) {
    system.prepare_solution_precise(T);
    // b̃ = the residual at (T_D, 0) with its fixed rows kept: f_F − s·K_FD T_D, and T_D.
    backend.to_precise(zeros, start);
    system.prepare_solution_precise(start);
    system.residual_precise(a, s, f, start, rhs, true);
    const double b_norm = std::sqrt(backend.norm2(backend.working(rhs)));
    Vector inverse_diagonal = backend.make_vector(n);
    if (settings.jacobi) {
      Vector ones = backend.make_vector(n);
      backend.fill(ones, 1.0);
      backend.divide(ones, system.system_diagonal(a, s), inverse_diagonal);
    }
    // r = b̃ − K̃ X in double (free rows; 0 on fixed rows since X_D = T_D exactly)
    const auto true_residual = [&](const Precise& X) -> const Vector& {
      system.residual_precise(a, s, f, X, residual, false);
      return backend.working(residual);
    };
    const auto apply = [&](const Vector& x, Vector& y) { system.apply_system(a, s, x, y); };
    // z = M⁻¹ r: the system's own (multigrid), else Jacobi (product with the inverse diagonal) or none
    std::function<void(const Vector&, Vector&)> precondition;
    if constexpr (detail::has_preconditioner<System>::value)
      if (system.preconditioner) precondition = system.preconditioner(a, s);
    if (!precondition)
      precondition = [&](const Vector& from, Vector& to) {
        if (settings.jacobi) backend.multiply(inverse_diagonal, from, to);
        else backend.copy(from, to);
      };
    if (hooks.before_solve) hooks.before_solve();
    const RefinementResult r = refine_solution(backend, true_residual, b_norm, apply, T, precondition, options);
    if (hooks.after_solve) hooks.after_solve();
    report.iterations += r.iterations;
    report.solve_seconds += r.seconds;
    report.relative_residual = r.relative_residual;
    report.outer_corrections += r.corrections;
    report.inner_iterations = r.inner_iterations;
    report.cg_fall_backs += r.fall_backs;
    report.mass_coefficient = a;
    report.stiffness_coefficient = s;
    if (!r.converged) {
      report.converged = false;
      report.stop_reason = r.stop_reason;
    }
    return r.converged;
  };

  if (!settings.time) {
    solve(0.0, 1.0, load_precise);  // steady: K T = b
  } else {
    const TimeSettings& t = *settings.time;
    system.prepare_solution_precise(T);
    if (hooks.snapshot) hooks.snapshot(0, 0.0, backend.download_precise(T));
    for (int step = 1; step <= t.steps; ++step) {
      // right = (M/Δt) Tⁿ − (1−θ) K Tⁿ + b = b − (−M/Δt + (1−θ) K) Tⁿ  (in double), system M/Δt + θ K
      system.prepare_solution_precise(T);
      system.residual_precise(-1.0 / t.dt, 1.0 - t.theta, load_precise, T, right, false);
      const bool ok = solve(1.0 / t.dt, t.theta, right);
      report.steps = step;
      if (!ok) break;  // a diverging step stops the run; the caller reports why
      const bool last = step == t.steps;
      if (hooks.snapshot && hooks.every > 0 && (step % hooks.every == 0 || last))
        hooks.snapshot(step, step * t.dt, backend.download_precise(T));
    }
  }
  report.last_rhs = backend.download_precise(rhs);
}

inline HeatSolveSettings heat_solve_settings(const HeatProblem& p) {
  HeatSolveSettings s;
  s.tolerance = p.tolerance;
  s.max_iterations = p.max_iterations;
  s.jacobi = p.jacobi;
  s.time = p.time;
  s.mixed = p.mixed;
  s.inner_tolerance = p.inner_tolerance;
  s.variant = p.variant;
  return s;
}

// A serial heat problem on one backend: fixed nodes eliminated, T from the initial values (p.initial).
template <class Backend, class Operator>
std::vector<double> solve_heat(Backend& backend, Operator& op, const HeatProblem& p, HeatSolveReport& report,
                               const HeatSolveHooks& hooks = {},
                               PreconditionerFactory<typename Backend::Vector> preconditioner = {}) {
  const std::int64_t n = std::int64_t(p.load.size());
  op.set_dirichlet(p.dirichlet_nodes);
  EliminatedHeatSystem<Operator> system{op, p.dirichlet_values, std::move(preconditioner)};
  SS_REQUIRE(p.initial.empty() || std::int64_t(p.initial.size()) == n,
             "heat problem: " << p.initial.size() << " initial values for " << n << " nodes");
  typename Backend::PreciseVector T =
      backend.upload_precise(p.time && !p.initial.empty() ? p.initial : std::vector<double>(size_t(n), 0.0));
  solve_heat_system(backend, system, p.load, T, heat_solve_settings(p), report, hooks);
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<double> result = backend.download_precise(T);
  report.download_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return result;
}

// ||b̃ − (a·M + s·K̃) T|| / ||b̃|| in double on the CPU reference tables, for the solution of any backend.
inline double true_relative_residual(const HeatOperatorData& data, const std::vector<std::int32_t>& dirichlet_nodes,
                                     const HeatSolveReport& report, const std::vector<double>& T) {
  const std::vector<double> r = eliminated_system_residual(data, dirichlet_nodes, report.mass_coefficient,
                                                           report.stiffness_coefficient, report.last_rhs, T);
  double r2 = 0, b2 = 0;
  for (size_t i = 0; i < T.size(); ++i) {
    r2 += r[i] * r[i];
    b2 += report.last_rhs[i] * report.last_rhs[i];
  }
  return b2 > 0 ? std::sqrt(r2 / b2) : std::sqrt(r2);
}

}  // namespace ss
