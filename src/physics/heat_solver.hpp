#pragma once
// The heat solve, written once for both backends (GpuBackend + GpuHeatOperator, CpuBackend +
// CpuHeatOperator): steady K T = b, or the θ-scheme in time, each linear system by CG with the
// fixed nodes eliminated symmetrically (src/operators/heat_operator.hpp).
#include <cmath>
#include <functional>
#include <string>
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
};

template <class Backend, class Operator>
std::vector<double> solve_heat(Backend& backend, Operator& op, const HeatProblem& p, HeatSolveReport& report,
                               const HeatSolveHooks& hooks = {}) {
  using Vector = typename Backend::Vector;
  const std::int64_t n = std::int64_t(p.load.size());
  op.set_dirichlet(p.dirichlet_nodes);
  const Vector load = backend.upload(p.load);
  Vector T = backend.make_vector(n), rhs = backend.make_vector(n), system_rhs = backend.make_vector(n);
  if (p.time) backend.fill(T, p.time->initial);
  op.write_dirichlet_values(T, p.dirichlet_values);

  CgOptions options;
  options.tolerance = p.tolerance;
  options.max_iterations = p.max_iterations;
  options.progress = hooks.progress;

  // One linear solve of (a·M + s·K̃) T = b̃ from the current T; b̃ from `right` (T holds T_D on D).
  const auto solve = [&](double a, double s, const Vector& right) {
    op.dirichlet_rhs(right, T, s, system_rhs);
    Vector inverse_diagonal = backend.make_vector(n);
    if (p.jacobi) {
      Vector ones = backend.make_vector(n);
      backend.fill(ones, 1.0);
      backend.divide(ones, op.system_diagonal(a, s), inverse_diagonal);
    }
    const auto apply = [&](const Vector& x, Vector& y) { op.apply_system(a, s, x, y); };
    const CgResult r = conjugate_gradient(backend, apply, system_rhs, T, p.jacobi ? &inverse_diagonal : nullptr, options);
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

  if (!p.time) {
    solve(0.0, 1.0, load);  // steady: K T = b
  } else {
    const TimeSettings& t = *p.time;
    Vector KT = backend.make_vector(n), MT = backend.make_vector(n);
    if (hooks.snapshot) hooks.snapshot(0, 0.0, backend.download(T));
    for (int step = 1; step <= t.steps; ++step) {
      // rhs = (M/Δt) Tⁿ − (1−θ) K Tⁿ + b,  system M/Δt + θ K
      op.apply(T, KT);
      backend.multiply(op.lumped_mass(), T, MT);
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
