#pragma once
// One flow run on one backend: start (or continue from a checkpoint), step to the end, report each
// step and hand out snapshots. A failed step (FlowSolver::failure(): a solve that broke down, a
// non-finite field, a CFL blow-up) ends the run with an ss::Error carrying the reason. Steady mode
// (problem.steady.enabled): the CFL target of each step from SteadyController, and the run stops
// when it says so (converged or diverged) or at max_steps; the report says which. A temperature
// marches with the flow there (implicit advection, flow_temperature.hpp) and its relative change
// must fall below the tolerance too.
#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <type_traits>

#include "physics/flow_run_result.hpp"
#include "physics/flow_solver.hpp"
#include "physics/flow_steady.hpp"
#include "physics/flow_temperature.hpp"
#include "util/error.hpp"

namespace ss {

// The temperature a run carries: none (NoFlowTemperature), or a FlowTemperature on the run's backend.
struct NoFlowTemperature {};

// With `temperature` (a [heat] run; over MPI ranks a FlowTemperature on the DistributedBackend):
// one temperature step after each flow step, with the
// step's new fluxes (physics/flow_temperature.hpp), its buoyancy in the next flow step's momentum
// right-hand side, and T in every state handed out.
template <class Backend, class FlowOps, class Temperature = NoFlowTemperature>
FlowRunResult march_flow(Backend& backend, FlowOps& ops, const FlowProblem& problem, const LoadedMesh& mesh,
                       const FlowOperatorData& data, const FlowState* initial, const FlowRunHooks& hooks,
                       const std::string& label, Temperature* temperature = nullptr) {
  constexpr bool kHeat = !std::is_same_v<Temperature, NoFlowTemperature>;
  using Clock = std::chrono::steady_clock;
  const auto t0 = Clock::now();
  const auto seconds = [&] { return std::chrono::duration<double>(Clock::now() - t0).count(); };
  FlowSolver<Backend, FlowOps> solver(backend, ops, problem, mesh, data);
  FlowRunResult result;
  if (initial) solver.restore(*initial);
  else solver.start();
  // The state with its temperature.
  const auto state = [&] {
    FlowState s = solver.state();
    if constexpr (kHeat)
      if (temperature) s.temperature = temperature->download();
    return s;
  };
  if constexpr (kHeat) {
    if (temperature) {
      if (initial) {
        SS_REQUIRE(!initial->temperature.empty(), label << ": the restart state has no temperature");
        temperature->restore(initial->temperature);
      } else {
        temperature->start();
      }
      solver.set_body_force([temperature](auto& fx, auto& fy, auto& fz) { temperature->add_buoyancy(fx, fy, fz); });
    }
  }
  result.first_step = solver.step_count();
  result.start_seconds = seconds();
  result.start_parts = solver.start_parts();
  result.last = solver.diagnostics();
  if (hooks.snapshot && hooks.every > 0 && !initial) {  // the initial fields
    const double before_output = seconds();
    hooks.snapshot(state());
    result.output_seconds += seconds() - before_output;
  }
  std::optional<SteadyController> steady;
  if (problem.steady.enabled) {  // a restarted march resumes at its CFL number
    steady.emplace(problem.steady, initial ? result.last.cfl : problem.steady.cfl_start);
    solver.set_cfl_target(steady->cfl());
  }
  while (!solver.finished()) {
    if (!solver.step(result.last)) SS_THROW(label << " run stopped: " << solver.failure());
    std::optional<double> temperature_change;  // steady mode with a temperature: t_k (flow_steady.hpp)
    if constexpr (kHeat) {
      if (temperature) {
        FlowHeatStepInfo heat;
        if (!temperature->step(solver.flux(), result.last.dt, heat))
          SS_THROW(label << " run stopped: " << temperature->failure() << " (step " << result.last.step
                         << ", t = " << result.last.time << ")");
        result.last.thermal_courant = heat.courant;
        result.last.temperature_iterations = heat.iterations;
        if (steady) temperature_change = result.last.temperature_change = heat.relative_change / result.last.dt;
      }
    }
    bool stop = false;
    if (steady) {
      result.last.steady_change = solver.steady_residual();
      steady->record_momentum_iterations(result.last.momentum_iterations);
      stop = steady->update(result.last.steady_change, temperature_change);
      solver.set_cfl_target(steady->cfl());
    }
    const bool last = stop || solver.finished();
    const bool output = hooks.every > 0 && (result.last.step % hooks.every == 0 || last);
    const double before_output = seconds();
    if (hooks.progress) hooks.progress(result.last, before_output, last || output);
    if (hooks.snapshot && output) hooks.snapshot(state());
    result.output_seconds += seconds() - before_output;
    if (stop) break;
  }
  if (steady) {
    steady->out_of_steps();
    result.steady = steady->report();
  }
  const double before_state = seconds();
  result.state = state();
  result.output_seconds += seconds() - before_state;
  result.totals = solver.totals();
  if constexpr (kHeat)
    if (temperature) result.heat = temperature->totals();
  result.seconds = seconds();
  return result;
}

}  // namespace ss
