#include "run/heat_summary.hpp"

#include "util/atomic_file.hpp"
#include "util/host_memory.hpp"

namespace ss {

void add_heat_solve_report(nlohmann::json& summary, const HeatSolveReport& report, double true_residual, bool mixed,
                           CgVariant variant) {
  summary["steps"] = report.steps;
  summary["iterations"] = report.iterations;
  summary["relative_residual"] = report.relative_residual;
  summary["true_relative_residual"] = true_residual;
  summary["outer_corrections"] = report.outer_corrections;  // defect corrections (inner solves), all solves
  summary["inner_iterations"] = report.inner_iterations;    // per correction of the last solve
  summary["precision"] = mixed ? "mixed" : "float";
  summary["variant"] = to_string(variant);
  summary["cg_fall_backs"] = report.cg_fall_backs;  // pipelined: inner solves whose recurrences diverged
  summary["converged"] = report.converged;
  summary["stop_reason"] = report.stop_reason;
}

nlohmann::json heat_summary(const HeatCase& heat_case, std::size_t nodes, std::size_t tets, const std::string& backend,
                            const std::string& device, const std::optional<LaunchChoice>& launch, const HeatProblem& problem,
                            const HeatSolveReport& report, double true_residual) {
  nlohmann::json summary;
  summary["problem"] = "heat";
  summary["case"] = heat_case.path;
  summary["mesh"] = {{"file", heat_case.mesh_file}, {"nodes", nodes}, {"tets", tets}, {"refine", heat_case.refine}};
  describe_backend(summary, backend, device, launch);
  add_heat_solve_report(summary, report, true_residual, problem.mixed, problem.variant);
  summary["solve_seconds"] = report.solve_seconds;
  summary["seconds_per_iteration"] = report.iterations ? report.solve_seconds / report.iterations : 0.0;
  return summary;
}

std::string write_heat_summary(nlohmann::json& summary, const StageTimings& timings, bool verbose,
                               const std::string& json_option, const std::string& out_dir) {
  summary["timings"] = timings.json();
  summary["peak_host_memory_bytes"] = peak_host_memory_bytes();
  if (verbose) timings.print("heat");
  const std::string json_path = output_path(json_option, out_dir, "heat.json");
  write_file_atomically(json_path, summary.dump(2) + "\n");
  return json_path;
}

}  // namespace ss
