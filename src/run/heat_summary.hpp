#pragma once
// heat.json's parts every heat path shares, and the files a heat run leaves under their default names.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kernels/gpu_backend.hpp"
#include "cases/heat_case.hpp"
#include "problems/heat_problem.hpp"
#include "physics/heat_solver.hpp"
#include "run/outputs.hpp"

namespace ss {

// The final files of a heat run under their default names, summary first (TimeSeries::remove_previous_run).
inline const std::vector<std::string> kHeatFinalFiles = {"heat.json", "heat.png", "heat.vtu", "heat_final.vtu",
                                                         "heat.pvtu", "heat_final.pvtu"};

// heat.json's solve figures: steps, iterations, residuals (the true one given), corrections,
// precision, variant, convergence (every heat path, the MPI one too).
void add_heat_solve_report(nlohmann::json& summary, const HeatSolveReport& report, double true_residual, bool mixed,
                           CgVariant variant);
// heat.json's common part: case, mesh counts, backend and device (`gpu`: its launch path and why),
// add_heat_solve_report, solve times (the serial heat paths).
nlohmann::json heat_summary(const HeatCase& heat_case, std::size_t nodes, std::size_t tets, const std::string& backend,
                            const std::string& device, const std::optional<LaunchChoice>& launch, const HeatProblem& problem,
                            const HeatSolveReport& report, double true_residual);

// Adds the timings and the peak host memory to `summary`, prints the timings when `verbose`, writes
// it as heat.json (`json_option`, else in `out_dir`, atomically) and returns that path (the serial
// heat paths).
std::string write_heat_summary(nlohmann::json& summary, const StageTimings& timings, bool verbose,
                               const std::string& json_option, const std::string& out_dir);

}  // namespace ss
