#pragma once
// What one flow run (physics/flow_time_loop.hpp's march_flow) is given and gives back, apart from the
// loop itself: the hooks it calls each step and its result. Output code includes this, not the solver.
#include <functional>
#include <optional>

#include "physics/flow_state.hpp"
#include "physics/flow_steady.hpp"

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
  FlowStartParts start_parts;  // and the solver's set-up within it
  double output_seconds = 0;  // and the outputs: progress lines, snapshots (the initial one too) and checkpoints, the final state
  std::optional<FlowSteadyReport> steady;  // steady mode: residual history and why it stopped
  std::optional<FlowHeatTotals> heat;      // a [heat] run: the temperature steps' totals
};

}  // namespace ss
