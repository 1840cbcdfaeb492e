#pragma once
// The heat solve, written once for both backends (GpuBackend + GpuHeatOperator, CpuBackend +
// CpuHeatOperator): steady K T = b, or the θ-scheme in time, each linear system by CG with the
// fixed nodes eliminated symmetrically (src/operators/heat_operator.hpp).
#include <cmath>
#include <functional>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "physics/heat_problem.hpp"
#include "solver/cg.hpp"
#include "util/error.hpp"

namespace ss {

struct HeatSolveReport {
  bool converged = true;
  int steps = 0;                  // time steps (0 for a steady solve)
  int iterations = 0;             // CG iterations over all solves
  double relative_residual = 0;   // recursive ||r|| / ||b|| of the last solve
  std::string stop_reason = "converged";
  double solve_seconds = 0;       // time inside CG
  std::vector<double> last_rhs;   // right-hand side b̃ of the last solve (for the true residual)
  double mass_coefficient = 0, stiffness_coefficient = 1;  // the last system a·M + s·K
};

struct HeatSolveHooks {
  std::function<void(int, double, double)> progress;                         // CG (iteration, residual, seconds)
  std::function<void(int, double, const std::vector<double>&)> snapshot;     // (step, time, T) every `every` steps
  int every = 0;
  std::function<void()> before_solve, after_solve;                           // around each CG solve
};

// What a heat solve needs from the operator with its fixed nodes (serial: EliminatedHeatSystem
// below; MPI: the distributed operator of src/parallel/):
//   prepare_solution(T)                   fixed values into T (free entries kept)
//   system_rhs(right, T, s, out)          b̃ of the system a·M + s·K̃ (T holds the fixed values)
//   system_diagonal(a, s)                 diag(a·M + s·K̃), for Jacobi
//   apply_system(a, s, x, y)              y = (a·M + s·K̃) x
//   apply(T, KT)                          KT = K·T, no boundary conditions
//   lumped_mass()                         M
// Builds the preconditioner z = M⁻¹ r of the system a·M + s·K̃ (multigrid, src/multigrid/); empty:
// Jacobi or none as HeatSolveSettings::jacobi says.
template <class Vector>
using PreconditionerFactory = std::function<std::function<void(const Vector&, Vector&)>(double a, double s)>;

template <class Operator>
struct EliminatedHeatSystem {
  Operator& op;
  const std::vector<double>& fixed_values;
  using Vector = typename Operator::Vector;
  PreconditionerFactory<Vector> preconditioner = {};
  void prepare_solution(Vector& T) { op.write_dirichlet_values(T, fixed_values); }
  void system_rhs(const Vector& right, const Vector& T, double s, Vector& out) { op.dirichlet_rhs(right, T, s, out); }
  Vector system_diagonal(double a, double s) { return op.system_diagonal(a, s); }
  void apply_system(double a, double s, const Vector& x, Vector& y) { op.apply_system(a, s, x, y); }
  void apply(Vector& T, Vector& KT) { op.apply(T, KT); }
  const Vector& lumped_mass() { return op.lumped_mass(); }
};

struct HeatSolveSettings {
  double tolerance = 1e-6;
  int max_iterations = 20000;
  bool jacobi = true;
  std::optional<TimeSettings> time;  // absent: steady
};

namespace detail {
template <class S, class = void> struct has_preconditioner : std::false_type {};
template <class S> struct has_preconditioner<S, std::void_t<decltype(std::declval<S&>().preconditioner)>> : std::true_type {};
}  // namespace detail

// Steady (a·M + s·K̃ with a = 0, s = 1) or the θ-scheme from the T given (its initial values), each
// linear system by CG on `backend` (whose reductions may be distributed). T ends as the solution.
template <class Backend, class System>
void solve_heat_system(Backend& backend, System& system, const typename Backend::Vector& load,
                       typename Backend::Vector& T, const HeatSolveSettings& settings, HeatSolveReport& report,
                       const HeatSolveHooks& hooks = {}) {
  using Vector = typename Backend::Vector;
  const std::int64_t n = std::int64_t(T.size());
  Vector rhs = backend.make_vector(n), system_rhs = backend.make_vector(n);
  CgOptions options;
  options.tolerance = settings.tolerance;
  options.max_iterations = settings.max_iterations;
  options.progress = hooks.progress;

  // One linear solve of (a·M + s·K̃) T = b̃ from the current T, b̃ from `right`.
  const auto solve = [&](double a, double s, const Vector& right) {
    system.prepare_solution(T);
    system.system_rhs(right, T, s, system_rhs);
    Vector inverse_diagonal = backend.make_vector(n);
    if (settings.jacobi) {
      Vector ones = backend.make_vector(n);
      backend.fill(ones, 1.0);
      backend.divide(ones, system.system_diagonal(a, s), inverse_diagonal);
    }
    const auto apply = [&](const Vector& x, Vector& y) { system.apply_system(a, s, x, y); };
    std::function<void(const Vector&, Vector&)> custom;  // multigrid, when the system brings one
    if constexpr (detail::has_preconditioner<System>::value)
      if (system.preconditioner) custom = system.preconditioner(a, s);
    if (hooks.before_solve) hooks.before_solve();
    const CgResult r =
        custom ? preconditioned_conjugate_gradient(backend, apply, system_rhs, T, custom, options)
               : conjugate_gradient(backend, apply, system_rhs, T, settings.jacobi ? &inverse_diagonal : nullptr, options);
    if (hooks.after_solve) hooks.after_solve();
    report.iterations += r.iterations;
    report.solve_seconds += r.seconds;
    report.relative_residual = r.relative_residual;
    report.mass_coefficient = a;
    report.stiffness_coefficient = s;
    if (!r.converged) {
      report.converged = false;
      report.stop_reason = r.stop_reason;
    }
    return r.converged;
  };

  if (!settings.time) {
    solve(0.0, 1.0, load);  // steady: K T = b
  } else {
    const TimeSettings& t = *settings.time;
    Vector KT = backend.make_vector(n), MT = backend.make_vector(n);
    system.prepare_solution(T);
    if (hooks.snapshot) hooks.snapshot(0, 0.0, backend.download(T));
    for (int step = 1; step <= t.steps; ++step) {
      // rhs = (M/Δt) Tⁿ − (1−θ) K Tⁿ + b,  system M/Δt + θ K
      system.apply(T, KT);
      backend.multiply(system.lumped_mass(), T, MT);
      backend.linear_combination({1.0 / t.dt, -(1.0 - t.theta), 1.0}, {&MT, &KT, &load}, rhs);
      const bool ok = solve(1.0 / t.dt, t.theta, rhs);
      report.steps = step;
      if (!ok) break;  // a diverging step stops the run; the caller reports why
      const bool last = step == t.steps;
      if (hooks.snapshot && hooks.every > 0 && (step % hooks.every == 0 || last))
        hooks.snapshot(step, step * t.dt, backend.download(T));
    }
  }
  report.last_rhs = backend.download(system_rhs);
}

// A serial heat problem on one backend: fixed nodes eliminated, T from the initial values (p.initial).
template <class Backend, class Operator>
std::vector<double> solve_heat(Backend& backend, Operator& op, const HeatProblem& p, HeatSolveReport& report,
                               const HeatSolveHooks& hooks = {},
                               PreconditionerFactory<typename Backend::Vector> preconditioner = {}) {
  const std::int64_t n = std::int64_t(p.load.size());
  op.set_dirichlet(p.dirichlet_nodes);
  EliminatedHeatSystem<Operator> system{op, p.dirichlet_values, std::move(preconditioner)};
  const typename Backend::Vector load = backend.upload(p.load);
  SS_REQUIRE(p.initial.empty() || std::int64_t(p.initial.size()) == n,
             "heat problem: " << p.initial.size() << " initial values for " << n << " nodes");
  typename Backend::Vector T = p.time && !p.initial.empty() ? backend.upload(p.initial) : backend.make_vector(n);
  if (p.time && p.initial.empty()) backend.fill(T, 0.0);
  solve_heat_system(backend, system, load, T, HeatSolveSettings{p.tolerance, p.max_iterations, p.jacobi, p.time},
                    report, hooks);
  return backend.download(T);
}

// ||b̃ − (a·M + s·K̃) T|| / ||b̃|| in double on the CPU reference, for the solution of any backend.
template <class CpuOperator>
double true_relative_residual(CpuOperator& cpu_op, const std::vector<std::int32_t>& dirichlet_nodes,
                              const HeatSolveReport& report, const std::vector<double>& T) {
  cpu_op.set_dirichlet(dirichlet_nodes);
  std::vector<double> AT(T.size());
  cpu_op.apply_system(report.mass_coefficient, report.stiffness_coefficient, T, AT);
  double r2 = 0, b2 = 0;
  for (size_t i = 0; i < T.size(); ++i) {
    r2 += (report.last_rhs[i] - AT[i]) * (report.last_rhs[i] - AT[i]);
    b2 += report.last_rhs[i] * report.last_rhs[i];
  }
  return b2 > 0 ? std::sqrt(r2 / b2) : std::sqrt(r2);
}

}  // namespace ss
