#pragma once
// One flow run on one backend: start (or continue from a checkpoint), step to the end, report each
// step and hand out snapshots. A failed step (FlowSolver::failure(): a solve that broke down, a
// non-finite field, a CFL blow-up) ends the run with an ss::Error carrying the reason. Steady mode
// (problem.steady.enabled): the CFL target of each step from SteadyController, and the run stops
// when it says so (converged or diverged) or at max_steps; the report says which.
#include <chrono>
#include <functional>
#include <optional>
#include <string>

#include "physics/flow_solver.hpp"
#include "physics/flow_steady.hpp"
#include "util/error.hpp"

namespace ss {

struct FlowRunHooks {
  int every = 0;  // snapshot every `every` steps, at the start of a fresh run and at the last step (0: none)
  std::function<void(const FlowStepInfo& info, double seconds, bool last)> progress;
  std::function<void(const FlowState& state)> snapshot;
};

struct FlowRunResult {
  FlowState state;       // at the end
  FlowStepInfo last;     // the last step's report (the start's diagnostics when no step ran)
  FlowTotals totals;     // of the steps this run took
  int first_step = 0;    // the step it started from (0, or the checkpoint's)
  double seconds = 0;    // wall time of start and steps
  double start_seconds = 0;  // of which the start (or restore)
  std::optional<FlowSteadyReport> steady;  // steady mode: residual history and why it stopped
};

template <class Backend, class FlowOps>
FlowRunResult run_flow(Backend& backend, FlowOps& ops, const FlowProblem& problem, const LoadedMesh& mesh,
                       const FlowOperatorData& data, const FlowState* initial, const FlowRunHooks& hooks,
                       const std::string& label) {
  using Clock = std::chrono::steady_clock;
  const auto t0 = Clock::now();
  const auto seconds = [&] { return std::chrono::duration<double>(Clock::now() - t0).count(); };
  FlowSolver<Backend, FlowOps> solver(backend, ops, problem, mesh, data);
  FlowRunResult result;
  if (initial) solver.restore(*initial);
  else solver.start();
  result.first_step = solver.step_count();
  result.start_seconds = seconds();
  result.last = solver.diagnostics();
  if (hooks.snapshot && hooks.every > 0 && !initial) hooks.snapshot(solver.state());
  std::optional<SteadyController> steady;
  if (problem.steady.enabled) {  // a restarted march resumes at its CFL number
    steady.emplace(problem.steady, initial ? result.last.cfl : problem.steady.cfl_start);
    solver.set_cfl_target(steady->cfl());
  }
  while (!solver.finished()) {
    if (!solver.step(result.last)) SS_THROW(label << " run stopped: " << solver.failure());
    bool stop = false;
    if (steady) {
      stop = steady->update(solver.relative_change() / result.last.dt);
      solver.set_cfl_target(steady->cfl());
    }
    const bool last = stop || solver.finished();
    const bool output = hooks.every > 0 && (result.last.step % hooks.every == 0 || last);
    if (hooks.progress) hooks.progress(result.last, seconds(), last || output);
    if (hooks.snapshot && output) hooks.snapshot(solver.state());
    if (stop) break;
  }
  if (steady) {
    steady->out_of_steps();
    result.steady = steady->report();
  }
  result.state = solver.state();
  result.totals = solver.totals();
  result.seconds = seconds();
  return result;
}

}  // namespace ss
