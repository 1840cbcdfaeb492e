#pragma once
// What the serial flow run (run_flow.cpp) and the run over MPI ranks (run_flow_distributed.cpp)
// share: progress lines, and the results written at the end.
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "mesh/load_mesh.hpp"
#include "cases/flow_case.hpp"
#include "postprocess/flow_fields.hpp"
#include "postprocess/flow_forces.hpp"
#include "postprocess/flow_heat_flux.hpp"
#include "problems/flow_heat_problem.hpp"
#include "physics/flow_run_result.hpp"
#include "run/outputs.hpp"
#include "run/run_flow.hpp"

namespace ss {

// One finished run on one backend, with its fields on the whole mesh.
struct BackendFlowRun {
  std::string backend, device;
  FlowRunResult result;
  FlowFields fields;
  std::optional<LaunchChoice> launch;  // the GPU's launch path and why (none on the CPU)
};

// Progress on stderr at most four lines a second: "streamsolve: flow: <label> step 12/400, ...".
FlowRunHooks flow_progress_hooks(const std::string& label, const FlowProblem& problem);

// The end of a run (after every run finished): flow.json (with `extra` merged in), flow.vtu and
// flow.png from runs[0] (runs[1]: the compare run); returns what the run reports.
// `reduced` (MPI runs): the field summary the ranks reduced over their pieces, instead of one from
// runs[0].fields. When rank 0 lacks the whole mesh, `mesh` is the base mesh, runs[0].fields holds
// only the node velocity at its nodes (for flow.png) and o.no_vtu is set (the ranks wrote pieces).
FlowRunOutcome write_flow_results(const FlowRunOptions& o, const FlowCase& flow_case, const LoadedMesh& mesh,
                                  const FlowProblem& problem, std::vector<BackendFlowRun>& runs,
                                  const FlowForceMeter* meter, const FlowState* initial, StageTimings& timings,
                                  const std::string& out_dir, const nlohmann::json& extra,
                                  const FlowFieldSummary* reduced = nullptr);

// flow.json "heat" of a [heat] run: each thermal group's heat into the fluid, mean wall heat flux and
// (with the references) Nusselt number at the end of runs[0] (`measured`: FlowHeatMeter's on that
// state, postprocess/flow_heat_flux.hpp), the temperature range, the temperature steps' totals; with
// --compare the largest node temperature difference between the two runs.
nlohmann::json heat_summary_json(const FlowHeatProblem& heat, const std::vector<FlowGroupHeat>& measured,
                                 const std::vector<BackendFlowRun>& runs);

}  // namespace ss
