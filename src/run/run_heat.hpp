#pragma once
// A heat run from a case file to its outputs, as a library call: node-based heat conduction, steady
// or transient, on the GPU or the CPU reference (or both, compared), serial or over MPI ranks. It
// writes what `streamsolve heat` writes (heat.json always; heat.vtu or heat_final.vtu, the heat.pvd
// series, heat.png when the solve converged) and returns what the command prints.
//
//   run_heat               dispatches: over MPI ranks (several ranks, or options.distributed), the
//                          finest level made on the GPU (finest_level gpu, or auto when it applies),
//                          else the host path.
//   run_heat_host          the host path: every level loaded and assembled on the host.
//   run_heat_gpu_finest    level K made on the GPU from level K − 1 (run_heat_gpu_finest.cpp).
//   run_heat_distributed   partition, then refine: every rank solves its piece (run_heat_distributed.cpp).
//
// Every mistake in the case (unknown key or group, missing mesh, ...) throws ss::Error before the
// output folder changes. A solve that does not converge is not an exception: the JSON says so, the
// fields are not written, and the result carries `failure` (throw_if_failed raises it).
#include <optional>
#include <string>
#include <vector>

#include <glm/vec3.hpp>
#include <nlohmann/json.hpp>

#include "cases/heat_case.hpp"
#include "physics/heat_solver.hpp"
#include "run/run_options.hpp"

namespace ss {

struct HeatRunOptions : RunOptions {
  // A case parsed already: used instead of reading case_file (serial runs; the MPI path sends the
  // case file's text to the ranks, so it reads case_file).
  std::optional<HeatCase> heat_case;
  std::string format = "R32F";  // GPU texture format: R32F or RGBA32F
  // Where level K is made: "gpu" from level K − 1 (run_heat_gpu_finest), "host" (run_heat_host),
  // "auto": the GPU's for a refined run on the GPU alone (no compare, no window, one process).
  std::string finest_level = "auto";
};

// The second backend's solve of a compared run.
struct HeatCompareResult {
  std::string backend;
  double max_abs_diff = 0, max_rel_diff = 0;  // max |T_a − T_b|, and of the range of T_a
};

struct HeatRunResult {
  // false on the ranks other than 0 of an MPI run: they wrote their pieces and report nothing.
  bool reports = true;
  std::string finest_level = "host";  // "host", "gpu" (made on the GPU), or "distributed"
  std::string backend, device;
  int ranks = 1;
  int refine = 0;  // the levels of refinement run
  HeatSolveReport report;  // of the (primary) solve: iterations, residual, seconds, convergence
  double true_residual = 0;
  double t_min = 0, t_max = 0;
  std::optional<HeatCompareResult> compare;
  // MPI runs: seconds per CG iteration, communication's share of the solve (largest over ranks),
  // and its halo and allreduce seconds.
  double seconds_per_iteration = 0, communication_share = 0, halo_seconds = 0, allreduce_seconds = 0;
  bool converged = false;  // every solve of the run
  std::string failure;     // when not: "<backend> solve did not converge: ... (summary in <json>)"
  std::string out_dir, json_path;
  nlohmann::json summary;  // what heat.json holds
  // keep_fields: the final temperature at each node and the node's coordinates (an MPI rank: its
  // owned nodes; the finest level made on the GPU: the nodes of level K as refine_once numbers them).
  std::vector<double> temperature;
  std::vector<glm::dvec3> nodes;
};

HeatRunResult run_heat(const HeatRunOptions& options);
HeatRunResult run_heat_host(const HeatRunOptions& options);
HeatRunResult run_heat_gpu_finest(const HeatRunOptions& options);
// Collective over MPI_COMM_WORLD (initialised here on one rank when the process was not launched
// by mpirun).
HeatRunResult run_heat_distributed(const HeatRunOptions& options);

// Throws result.failure as ss::Error when the run did not converge.
void throw_if_failed(const HeatRunResult& result);

}  // namespace ss
