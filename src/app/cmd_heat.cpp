// `streamsolve heat CASE.toml`: node-based heat conduction, steady or transient, on the GPU or the
// CPU reference (or both, compared), serial or over MPI ranks (run/run_heat.hpp runs it and writes
// its files; this file parses the options and prints the summary).
#include <cstdio>

#include "app/commands.hpp"
#include "app/solve_command.hpp"
#include "run/run_heat.hpp"

namespace ss {
namespace {

// The stdout summary of a run (rank 0's under MPI): the comparison, then, once every solve
// converged, the solve's line and the output folder.
void print_heat_summary(const HeatRunResult& r) {
  if (!r.reports) return;
  if (r.compare)
    std::printf("compare: max |T_%s - T_%s| = %.3e (%.3e of the range of T)\n", r.backend.c_str(),
                r.compare->backend.c_str(), r.compare->max_abs_diff, r.compare->max_rel_diff);
  throw_if_failed(r);
  if (r.finest_level == "distributed")
    std::printf("heat: %s on %d ranks: %d CG iterations, relative residual %.2e (true %.2e), %.3f s in CG, "
                "%.3f ms per iteration, communication %.1f%% (halo %.3f s, allreduce %.3f s), T in [%g, %g]\n",
                r.backend.c_str(), r.ranks, r.report.iterations, r.report.relative_residual, r.true_residual,
                r.report.solve_seconds, 1e3 * r.seconds_per_iteration, 100.0 * r.communication_share, r.halo_seconds,
                r.allreduce_seconds, r.t_min, r.t_max);
  else if (r.finest_level == "gpu")
    std::printf("heat: gpu on %s, level %d made on the GPU: %d CG iterations, relative residual %.2e, %.3f s in CG, T in "
                "[%g, %g]\n",
                r.device.c_str(), r.refine, r.report.iterations, r.report.relative_residual, r.report.solve_seconds,
                r.t_min, r.t_max);
  else
    std::printf("heat: %s on %s: %d CG iterations, relative residual %.2e (true %.2e), %.3f s in CG, T in [%g, %g]\n",
                r.backend.c_str(), r.device.c_str(), r.report.iterations, r.report.relative_residual, r.true_residual,
                r.report.solve_seconds, r.t_min, r.t_max);
  std::printf("wrote %s\n", r.out_dir.c_str());
}

}  // namespace

void add_heat_command(CLI::App& app, GlobalOptions& globals) {
  static HeatRunOptions o;
  auto* heat = app.add_subcommand("heat", "node-based heat conduction from a case file (steady or transient)");
  add_solve_options(*heat, o, "heat", "the surface temperature");
  heat->add_option("--format", o.format, "GPU texture format: R32F or RGBA32F")->check(CLI::IsMember({"R32F", "RGBA32F"}));
  heat->add_option("--finest-level", o.finest_level,
                   "where the finest level (refine K) is made: gpu = from level K-1 on the GPU (K >= 1; its mesh, "
                   "topology and operator never exist on the host; the VTU refines level K-1 on the host), host = on the "
                   "host (the CPU reference's own), auto = gpu for a refined run on the GPU alone (no --compare, no "
                   "--window, one process), else host")
      ->check(CLI::IsMember({"auto", "gpu", "host"}));
  heat->callback([&globals] {
    set_device_options(o, globals);
    print_heat_summary(run_heat(o));
  });
}

}  // namespace ss
