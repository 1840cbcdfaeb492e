#pragma once
// `streamsolve heat CASE.toml --refine K --finest-level gpu` (issue 13, item 4; the default for a
// refined run on the GPU alone): level K − 1 is loaded on the host with every table (geometry: its
// cells' volumes only; with multigrid every coarser level too, each with its operator); level K's
// problem comes from it (build_refined_heat_problem), its operator is made on the GPU from level
// K − 1's tables (gpu_refine_heat_tables) and solved there (GpuRefinedHeatSystem in
// solve_heat_system): level K's mesh, topology and operator never exist on the host. Multigrid:
// levels 0 .. K − 1 on the host, level K's smoother data from the GPU
// (multigrid/refined_level_multigrid.hpp). Outputs as `heat` writes them: the JSON (with
// "finest_level": "gpu"), the PNG on level K's surface (its nodes' coordinates and the children of
// level K − 1's boundary faces), and the VTU on level K's mesh, refined on the host from level K − 1
// (refine_once, the GPU refinement's CPU twin) when the first VTU is written (--no-vtu: never).
// Not here: --compare, --window, MPI ranks (the host path, --finest-level host, serves them). The
// true residual is that of the GPU-made operator (float K, exact arithmetic in the refinement's
// fp64 residual), not of the host's double K, which is never built.
#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/commands.hpp"
#include "app/solve_command.hpp"
#include "physics/heat_case.hpp"
#include "physics/heat_problem.hpp"
#include "physics/heat_solver.hpp"

namespace ss {

void run_heat_gpu_finest_level(const SolveOptions& options, const std::string& format, const GlobalOptions& globals);

// heat.json's solve figures: steps, iterations, residuals (the true one given), corrections,
// precision, variant, convergence (every heat path, the MPI one too).
void add_heat_solve_report(nlohmann::json& summary, const HeatSolveReport& report, double true_residual, bool mixed,
                           CgVariant variant);
// heat.json's common part: case, mesh counts, backend and device, add_heat_solve_report, solve times
// (the serial heat paths).
nlohmann::json heat_summary(const HeatCase& heat_case, std::size_t nodes, std::size_t tets, const std::string& backend,
                            const std::string& device, const GlobalOptions& globals, const HeatProblem& problem,
                            const HeatSolveReport& report, double true_residual);

// Adds the timings and the peak host memory to `summary`, prints the timings with -v, writes it as
// heat.json (--json, else in `out_dir`, atomically) and returns that path (the serial heat paths).
std::string write_heat_summary(nlohmann::json& summary, const StageTimings& timings, const GlobalOptions& globals,
                               const std::string& json_option, const std::string& out_dir);

}  // namespace ss
