#pragma once
// A flow run from a case file to its outputs, as a library call: incompressible Navier–Stokes by the
// fractional-step method (physics/flow_solver.hpp) on the GPU or the CPU reference (or both,
// compared), serial or over MPI ranks. It writes what `streamsolve flow` writes (snapshots with their
// checkpoints and flow.pvd, forces.csv, and at the end flow.vtu or flow.pvtu, flow.png, flow.json)
// and returns what the command prints.
//
//   run_flow               dispatches: over MPI ranks (several ranks, or options.distributed), else serial.
//   run_flow_serial        the whole mesh in one process.
//   run_flow_distributed   partition, then refine: every rank runs its piece (run_flow_distributed.cpp).
//
// (physics/flow_time_loop.hpp's march_flow template is the time loop over one backend these call; its
// FlowRunResult, the loop's outcome, is FlowRunOutcome::run here.)
//
// Every mistake in the case, and a checkpoint a restart cannot continue, throws ss::Error before the
// output folder changes.
#include <optional>
#include <string>
#include <vector>

#include <glm/vec3.hpp>
#include <nlohmann/json.hpp>

#include "cases/flow_case.hpp"
#include "postprocess/flow_fields.hpp"
#include "physics/flow_run_result.hpp"
#include "run/run_options.hpp"

namespace ss {

struct FlowRunOptions : RunOptions {
  // A case parsed already: used instead of reading case_file (serial runs; the MPI path sends the
  // case file's text to the ranks, so it reads case_file).
  std::optional<FlowCase> flow_case;
  bool restart = false;  // continue from the last checkpoint (flow_NNNNNN.state) in the output folder
};

// The force on one [[force]] group at the end of the run, per unit density.
struct FlowForceResult {
  std::string group;
  glm::dvec3 total{0.0}, pressure{0.0}, viscous{0.0};
  std::optional<glm::dvec3> coefficients;  // with a reference velocity and area
};

// The second backend's run of a compared run: max cell |u_a − u_b| of the max speed, max |p_a − p_b|
// of the pressure range.
struct FlowCompareResult {
  std::string backend;
  double max_velocity_diff = 0, max_pressure_diff = 0;
};

struct FlowRunOutcome {
  // false on the ranks other than 0 of an MPI run: they wrote their pieces and report nothing.
  bool reports = true;
  std::string backend, device;
  int ranks = 1;
  // The (primary) run's final state, last step, totals and seconds. MPI: the state gathered at rank 0
  // by global id (in the whole mesh's order when rank 0 holds it: single_vtu, [[force]] groups).
  FlowRunResult run;
  std::optional<FlowExactError> exact;  // against the case's exact solution, when it has one
  std::vector<FlowForceResult> forces;
  std::optional<FlowCompareResult> compare;
  double max_speed = 0, pressure_range = 0;
  std::string out_dir, json_path;
  nlohmann::json summary;  // what flow.json holds
  // keep_fields: the final fields (FlowFields) and the centroids of their cells, on the whole mesh
  // (MPI: at rank 0 when it holds the whole mesh, i.e. with single_vtu or [[force]] groups).
  FlowFields fields;
  std::vector<glm::dvec3> cell_centroids;
};

FlowRunOutcome run_flow(const FlowRunOptions& options);
FlowRunOutcome run_flow_serial(const FlowRunOptions& options);
// Collective over MPI_COMM_WORLD (initialised here on one rank when the process was not launched
// by mpirun).
FlowRunOutcome run_flow_distributed(const FlowRunOptions& options);

}  // namespace ss
