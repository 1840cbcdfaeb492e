#pragma once
// The flow command's pieces shared by its serial run (cmd_flow.cpp) and its run over MPI ranks
// (cmd_flow_distributed.cpp): options, progress lines, and the results written at the end.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/solve_command.hpp"
#include "mesh/load_mesh.hpp"
#include "physics/flow_case.hpp"
#include "physics/flow_fields.hpp"
#include "physics/flow_forces.hpp"
#include "physics/flow_run.hpp"

namespace ss {

struct FlowOptions : SolveOptions {
  bool restart = false;
};

// One finished run on one backend, with its fields on the whole mesh.
struct BackendFlowRun {
  std::string backend, device;
  FlowRunResult result;
  FlowFields fields;
};

// Progress on stderr at most four lines a second: "streamsolve: flow: <label> step 12/400, ...".
FlowRunHooks flow_progress_hooks(const std::string& label, const FlowProblem& problem);

// The end of a run (after every run finished): flow.json (with `extra` merged in), flow.vtu, flow.png
// and the stdout summary, from runs[0] (runs[1]: the --compare run).
// `reduced` (MPI runs): the field summary the ranks reduced over their pieces, instead of one from
// runs[0].fields. When rank 0 lacks the whole mesh, `mesh` is the base mesh, runs[0].fields holds
// only the node velocity at its nodes (for flow.png) and o.no_vtu is set (the ranks wrote pieces).
void write_flow_results(const FlowOptions& o, const GlobalOptions& globals, const FlowCase& flow_case,
                        const LoadedMesh& mesh, const FlowProblem& problem, const std::vector<BackendFlowRun>& runs,
                        const FlowForceMeter* meter, const FlowState* initial, StageTimings& timings,
                        const std::string& out_dir, const nlohmann::json& extra,
                        const FlowFieldSummary* reduced = nullptr);

// `mpirun -np N streamsolve flow CASE.toml` (cmd_flow_distributed.cpp).
void run_flow_distributed(const FlowOptions& o, const GlobalOptions& globals);

}  // namespace ss
