// `streamsolve flow CASE.toml`: incompressible Navier–Stokes by the fractional-step method on the
// GPU or the CPU reference (or both, compared), serial or over MPI ranks, with VTU/PVD snapshots and
// checkpoints (--restart continues from the last), a slice PNG and a JSON summary (run/run_flow.hpp
// runs it and writes its files; this file parses the options and prints the summary).
#include <cstdio>
#include <optional>

#include "app/commands.hpp"
#include "app/solve_command.hpp"
#include "run/run_flow.hpp"
#include "util/error.hpp"

namespace ss {
namespace {

// The stdout summary of a run (rank 0's under MPI): the error against the exact solution, the force
// on each [[force]] group, the heat of each thermal group, the comparison, the run's line and the
// output folder.
void print_flow_summary(const FlowRunOutcome& r) {
  if (!r.reports) return;
  if (r.exact)
    std::printf("exact: cell velocity error at t = %g: %.4e (L2, relative), %.4e (max, of the max speed)\n",
                r.exact->time, r.exact->l2, r.exact->max);
  for (const FlowForceResult& f : r.forces) {
    std::printf("force on %s: (%.6e, %.6e, %.6e) per unit density (pressure (%.4e, %.4e, %.4e), viscous (%.4e, %.4e, "
                "%.4e))",
                f.group.c_str(), f.total.x, f.total.y, f.total.z, f.pressure.x, f.pressure.y, f.pressure.z, f.viscous.x,
                f.viscous.y, f.viscous.z);
    if (f.coefficients) std::printf(", coefficients (%.5f, %.5f, %.5f)", f.coefficients->x, f.coefficients->y, f.coefficients->z);
    std::printf("\n");
  }
  if (r.summary.contains("heat"))  // a [heat] run: each thermal group's heat into the fluid
    for (const auto& g : r.summary["heat"]["groups"]) {
      std::printf("heat from %s: %.6e (mean flux %.6e", g["group"].get<std::string>().c_str(), g["heat"].get<double>(),
                  g["heat_flux"].get<double>());
      if (g.contains("nusselt")) std::printf(", Nusselt number %.4f", g["nusselt"].get<double>());
      std::printf(")\n");
    }
  if (r.compare)
    std::printf("compare: max |u_%s - u_%s| = %.3e of the max speed, max |p_%s - p_%s| = %.3e of the pressure range\n",
                r.backend.c_str(), r.compare->backend.c_str(), r.compare->max_velocity_diff, r.backend.c_str(),
                r.compare->backend.c_str(), r.compare->max_pressure_diff);
  const FlowRunResult& run = r.run;
  std::printf("flow: %s on %s: %d steps to t = %g, kinetic energy %.6e, max div %.2e, %.3f s per step\n",
              r.backend.c_str(), r.device.c_str(), run.state.step, run.state.time, run.last.kinetic_energy,
              run.last.max_divergence, run.totals.steps > 0 ? (run.seconds - run.start_seconds) / run.totals.steps : 0.0);
  if (run.steady) {
    const std::vector<double>& t = run.steady->temperature_residuals;  // [heat]: the temperature's too
    char temperature[64] = "";
    if (!t.empty()) std::snprintf(temperature, sizeof temperature, ", temperature %.2e", t.back());
    std::printf("flow: steady mode stopped (%s) with relative change %.2e%s per unit pseudo-time (tolerance %.0e)\n",
                run.steady->stop_reason.c_str(), run.steady->residuals.empty() ? 0.0 : run.steady->residuals.back(),
                temperature, run.steady->tolerance);
  }
  std::printf("wrote %s\n", r.out_dir.c_str());
}

}  // namespace

void add_flow_command(CLI::App& app, GlobalOptions& globals) {
  static FlowRunOptions o;
  auto* flow = app.add_subcommand("flow", "incompressible Navier-Stokes (fractional step) from a case file");
  add_solve_options(*flow, o, "flow", "the velocity magnitude on a slice");
  flow->add_flag("--restart", o.restart, "continue from the last checkpoint (flow_NNNNNN.state) in the output directory");
  flow->callback([&globals] {
    set_device_options(o, globals);
    const FlowRunOutcome outcome = run_flow(o);
    print_flow_summary(outcome);
    // A steady march that stopped short of its tolerance: its outputs, JSON and last checkpoint are
    // written (--restart continues it), and the run fails.
    const std::optional<FlowSteadyReport>& steady = outcome.run.steady;
    SS_REQUIRE(!steady || steady->stop_reason == "converged",
               "steady mode did not converge: " << steady->stop_reason << " after " << outcome.run.totals.steps
                                                << " steps, relative change "
                                                << (steady->residuals.empty() ? 0.0 : steady->residuals.back())
                                                << " per unit pseudo-time (tolerance " << steady->tolerance
                                                << "); its last state is in " << outcome.out_dir
                                                << " (--restart continues the march)");
  });
}

}  // namespace ss
