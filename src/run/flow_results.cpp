#include "run/flow_results.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include "render/render_slice.hpp"
#include "util/atomic_file.hpp"
#include "util/error.hpp"
#include "util/host_memory.hpp"

namespace ss {
namespace {

namespace fs = std::filesystem;

// "streamsolve: flow: cpu step 12/400, t = 0.06, dt = 0.005, CFL 0.31, kinetic energy 1.2e-02, max div 3e-08,
//  iterations momentum 5 pressure 40, 0.52 s" (exact method: "iterations streamfunction 120"; a [heat] run
//  adds " temperature 4 (thermal Courant 0.075)", steady mode ", change 3.1e-03 (temperature 2.2e-03)")
void print_progress(const std::string& backend, const FlowStepInfo& i, const FlowProblem& problem, double seconds) {
  const std::string of = problem.time.steps > 0 ? "/" + std::to_string(problem.time.steps) : "";
  const std::string iterations =
      problem.method == FlowMethod::exact
          ? "streamfunction " + std::to_string(i.streamfunction_iterations)
          : "momentum " + std::to_string(i.momentum_iterations) + " pressure " + std::to_string(i.pressure_iterations);
  const std::string temperature =
      i.thermal_courant > 0 || i.temperature_iterations > 0
          ? " temperature " + std::to_string(i.temperature_iterations) + " (thermal Courant " +
                std::to_string(i.thermal_courant).substr(0, 5) + ")"
          : "";
  // Steady mode: the relative changes per unit pseudo-time the march stops on.
  char change[96] = "";
  if (i.steady_change >= 0 && i.temperature_change >= 0)
    std::snprintf(change, sizeof change, ", change %.2e (temperature %.2e)", i.steady_change, i.temperature_change);
  else if (i.steady_change >= 0)
    std::snprintf(change, sizeof change, ", change %.2e", i.steady_change);
  std::fprintf(stderr,
               "streamsolve: flow: %s step %d%s, t = %.6g, dt = %.4g, CFL %.3f, kinetic energy %.6e, max div %.2e, "
               "iterations %s%s%s, %.2f s\n",
               backend.c_str(), i.step, of.c_str(), i.time, i.dt, i.cfl, i.kinetic_energy, i.max_divergence,
               iterations.c_str(), temperature.c_str(), change, seconds);
}

// "fall_backs": pipelined solves whose recurrences diverged, finished by single-sync CG (0 otherwise).
nlohmann::json iteration_summary(int last, long total, int max, int steps, int fall_backs = 0) {
  return {{"last", last}, {"mean", steps > 0 ? double(total) / steps : 0.0}, {"max", max}, {"fall_backs", fall_backs}};
}

nlohmann::json run_summary(const BackendFlowRun& run) {
  const FlowRunResult& r = run.result;
  const FlowTotals& t = r.totals;
  const int n = t.steps;
  const auto per_step = [n](double seconds) { return n > 0 ? seconds / n : 0.0; };
  nlohmann::json j;
  j["steps"] = r.state.step;
  j["steps_this_run"] = n;
  j["time"] = r.state.time;
  j["dt"] = r.state.dt;
  j["cfl"] = r.last.cfl;
  j["kinetic_energy"] = r.last.kinetic_energy;
  j["cell_kinetic_energy"] = r.last.cell_kinetic_energy;
  j["max_divergence"] = r.last.max_divergence;
  j["iterations"] = {
      {"momentum", iteration_summary(r.last.momentum_iterations, t.momentum_iterations, t.max_momentum_iterations, n,
                                     t.momentum_cg_fall_backs)},
      {"pressure", iteration_summary(r.last.pressure_iterations, t.pressure_iterations, t.max_pressure_iterations, n,
                                     t.pressure_cg_fall_backs)},
      {"streamfunction", iteration_summary(r.last.streamfunction_iterations, t.streamfunction_iterations,
                                           t.max_streamfunction_iterations, n)}};
  // Steps whose pressure CG from the extrapolated guess fell short of the tolerance and solved again from 0.
  j["iterations"]["pressure"]["guess_fall_backs"] = t.pressure_guess_fall_backs;
  j["seconds_per_step"] = {{"convection", per_step(t.convection_seconds)},
                           {"momentum", per_step(t.momentum_seconds)},
                           {"streamfunction", per_step(t.streamfunction_seconds)},
                           {"pressure", per_step(t.pressure_seconds)},
                           {"projection", per_step(t.projection_seconds)},
                           {"diagnostics", per_step(t.diagnostics_seconds)},
                           {"output", per_step(r.output_seconds)},
                           {"total", per_step(r.seconds - r.start_seconds - r.output_seconds)}};
  if (t.momentum_preconditioner_setups > 0)  // block Jacobi: its builds (their time is in momentum's)
    j["momentum_preconditioner"] = {{"setups", t.momentum_preconditioner_setups},
                                    {"setup_seconds", t.momentum_preconditioner_setup_seconds}};
  if (t.streamfunction_preconditioner_setups > 0)  // the exact method's auxiliary space (time in streamfunction's)
    j["streamfunction_preconditioner"] = {{"setups", t.streamfunction_preconditioner_setups},
                                          {"setup_seconds", t.streamfunction_preconditioner_setup_seconds},
                                          {"updates", t.streamfunction_preconditioner_updates},
                                          {"update_seconds", t.streamfunction_preconditioner_update_seconds}};
  j["start_seconds"] = r.start_seconds;
  const FlowStartParts& s = r.start_parts;  // the solver's set-up within the start
  j["start_parts"] = {{"momentum_operator", s.momentum_operator},
                      {"pressure", s.pressure},
                      {"momentum_system", s.momentum_system},
                      {"exact_method", s.exact_method},
                      {"initial_projection", s.initial_projection}};
  j["run_seconds"] = r.seconds;
  if (r.steady) {  // steady mode: why the march stopped; r_k (the relative steady residual), the CFL target and the
                   // momentum iterations per step
    j["steady"] = {{"stop_reason", r.steady->stop_reason}, {"residuals", r.steady->residuals}, {"cfl", r.steady->cfl},
                   {"momentum_iterations", r.steady->momentum_iterations}};
    if (!r.steady->temperature_residuals.empty())  // [heat]: the temperature's t_k likewise
      j["steady"]["temperature_residuals"] = r.steady->temperature_residuals;
  }
  return j;
}

// flow.json "forces" (and the outcome's): the force at the end of the run.
nlohmann::json forces_summary(const FlowForceMeter& meter, const FlowProblem& problem, const FlowState& state,
                              std::vector<FlowForceResult>& results) {
  const auto array = [](const glm::dvec3& v) { return nlohmann::json::array({v.x, v.y, v.z}); };
  nlohmann::json list = nlohmann::json::array();
  const std::vector<FlowForce> forces = meter.forces(state);
  for (size_t i = 0; i < forces.size(); ++i) {
    const FlowForceGroup& g = problem.forces[i];
    const FlowForce& f = forces[i];
    FlowForceResult r{g.label, f.total(), f.pressure, f.viscous, std::nullopt};
    nlohmann::json j = {{"group", g.label}, {"force", array(r.total)}, {"pressure", array(f.pressure)},
                        {"viscous", array(f.viscous)}};
    if (g.has_coefficients()) {
      r.coefficients = force_coefficients(g, r.total);
      j["coefficients"] = array(*r.coefficients);
      j["reference_velocity"] = g.reference_velocity;
      j["reference_area"] = g.reference_area;
    }
    results.push_back(r);
    list.push_back(j);
  }
  return list;
}

}  // namespace

nlohmann::json heat_summary_json(const FlowHeatProblem& heat, const std::vector<FlowGroupHeat>& measured,
                                 const std::vector<BackendFlowRun>& runs) {
  const FlowRunResult& primary = runs[0].result;
  nlohmann::json groups = nlohmann::json::array();
  for (const FlowGroupHeat& g : measured) {
    nlohmann::json j = {{"group", g.group},
                        {"condition", g.fixed_temperature ? "temperature" : "heat_flux"},
                        {"heat", g.heat},
                        {"area", g.area},
                        {"heat_flux", g.heat_flux}};
    if (g.nusselt) j["nusselt"] = *g.nusselt;
    groups.push_back(j);
  }
  const std::vector<double>& T = primary.state.temperature;
  nlohmann::json j = {{"conductivity", heat.conductivity},
                      {"heat_capacity", heat.heat_capacity},
                      {"groups", groups},
                      {"temperature_min", T.empty() ? 0.0 : *std::min_element(T.begin(), T.end())},
                      {"temperature_max", T.empty() ? 0.0 : *std::max_element(T.begin(), T.end())}};
  if (heat.reference_length > 0)
    j["reference_length"] = heat.reference_length,
    j["reference_temperature_difference"] = heat.reference_temperature_difference;
  if (primary.heat)
    j["max_thermal_courant"] = primary.heat->max_courant, j["temperature_iterations"] = primary.heat->iterations,
    j["max_temperature_iterations"] = primary.heat->max_iterations, j["temperature_seconds"] = primary.heat->seconds;
  if (runs.size() > 1 && runs[1].result.state.temperature.size() == T.size()) {
    double diff = 0.0;
    for (size_t i = 0; i < T.size(); ++i) diff = std::max(diff, std::fabs(T[i] - runs[1].result.state.temperature[i]));
    j["compare_max_temperature_diff"] = diff;
  }
  return j;
}

FlowRunHooks flow_progress_hooks(const std::string& label, const FlowProblem& problem) {
  FlowRunHooks hooks;
  hooks.progress = [label, throttle = ProgressThrottle(), &problem](const FlowStepInfo& info, double seconds,
                                                                   bool force) mutable {
    if (throttle.due(force || info.step == 1)) print_progress(label, info, problem, seconds);
  };
  return hooks;
}

FlowRunOutcome write_flow_results(const FlowRunOptions& o, const FlowCase& flow_case, const LoadedMesh& mesh,
                                  const FlowProblem& problem, std::vector<BackendFlowRun>& runs,
                                  const FlowForceMeter* meter, const FlowState* initial, StageTimings& timings,
                                  const std::string& out_dir, const nlohmann::json& extra,
                                  const FlowFieldSummary* reduced) {
  BackendFlowRun& primary = runs[0];
  SS_REQUIRE(o.no_vtu || primary.fields.cell_velocity.size() == size_t(mesh.topology.num_cells),
             "flow: no VTU of the fields on another mesh");
  FlowRunOutcome outcome;
  outcome.backend = primary.backend;
  outcome.device = primary.device;
  outcome.out_dir = out_dir;
  nlohmann::json summary = run_summary(primary);
  summary["problem"] = "flow";
  summary["case"] = flow_case.path;
  summary["mesh"] = {{"file", flow_case.mesh_file},           {"nodes", mesh.mesh.nodes.size()},
                     {"cells", mesh.topology.num_cells},       {"faces", mesh.topology.num_faces},
                     {"boundary_faces", mesh.topology.boundary_faces.size()}, {"refine", flow_case.refine}};
  describe_backend(summary, primary.backend, primary.device, primary.launch);
  const auto solver_json = [](const FlowLinearSolver& s) {
    return nlohmann::json{{"preconditioner", s.multigrid                ? "multigrid"
                                             : s.block_jacobi           ? "block_jacobi"
                                             : s.block_jacobi_when_slow ? "automatic"
                                             : s.chebyshev              ? "chebyshev"
                                             : s.jacobi                 ? "jacobi"
                                                                        : "none"},
                          {"variant", to_string(s.variant)},
                          {"tolerance", s.tolerance},
                          {"max_iterations", s.max_iterations}};
  };
  nlohmann::json momentum = solver_json(problem.momentum);
  if (problem.method == FlowMethod::classical) momentum["system"] = to_string(problem.resolved_momentum_system());
  summary["solver"] = {{"momentum", momentum},
                       {"pressure", solver_json(problem.pressure)},
                       {"streamfunction", solver_json(problem.streamfunction)}};
  summary["solver"]["streamfunction"]["preconditioner"] =
      to_string(problem.resolved_streamfunction_preconditioner());
  if (problem.pressure.multigrid)  // over MPI ranks `extra` names the ranks
    summary["solver"]["pressure"]["smoother_degree"] = pressure_smoother_degree(problem.pressure, extra.contains("ranks"));
  summary["scheme"] = {{"method", problem.method == FlowMethod::exact ? "exact" : "classical"},
                       {"convection", problem.convection == Convection::central ? "central" : "upwind"},
                       {"time_stepping", to_string(problem.time_scheme)},
                       {"theta", problem.theta},
                       {"convection_time", problem.implicit_convection ? "implicit" : "explicit"},
                       {"viscous", problem.viscous == ViscousScheme::curl_curl ? "curl_curl" : "two_point"}};
  summary["restarted_from"] = initial ? nlohmann::json(initial->step) : nlohmann::json(nullptr);
  if (extra.is_object()) summary.update(extra);
  FlowFieldSummary facts;
  if (reduced) {
    facts = *reduced;
  } else {
    const FlowDifference self = compare_flow_fields(primary.fields, primary.fields);
    facts.max_speed = self.max_speed, facts.pressure_range = self.pressure_range;
    if (problem.exact_velocity)
      facts.exact = velocity_error(mesh, primary.fields, problem.exact_velocity, primary.result.state.time);
  }
  if (facts.exact) {
    const FlowExactError& e = *facts.exact;
    summary["exact"] = {{"time", e.time}, {"velocity_l2_error", e.l2}, {"velocity_max_error", e.max}};
    outcome.exact = e;
  }
  if (meter) summary["forces"] = forces_summary(*meter, problem, primary.result.state, outcome.forces);
  summary["max_speed"] = facts.max_speed;
  summary["pressure_range"] = facts.pressure_range;
  outcome.max_speed = facts.max_speed, outcome.pressure_range = facts.pressure_range;
  if (o.compare) {
    const BackendFlowRun& other = runs[1];
    const FlowDifference d = compare_flow_fields(primary.fields, other.fields);
    nlohmann::json side = run_summary(other);
    side["backend"] = other.backend;
    side["device"] = other.device;
    summary["compare"] = {{"backend", other.backend},
                          {"max_velocity_diff", d.max_velocity_diff},
                          {"max_pressure_diff", d.max_pressure_diff},
                          {"runs", {{primary.backend, run_summary(primary)}, {other.backend, side}}}};
    outcome.compare = FlowCompareResult{other.backend, d.max_velocity_diff, d.max_pressure_diff};
  }
  const auto t0 = StageTimings::now();
  if (!o.no_vtu) write_flow_vtu((fs::path(out_dir) / "flow.vtu").string(), mesh.mesh, primary.fields);
  if (!o.no_png) {
    SliceOptions slice;
    slice.origin = flow_case.slice_origin ? *flow_case.slice_origin : default_slice_origin(mesh);
    slice.normal = flow_case.slice_normal;
    char subtitle[160];
    std::snprintf(subtitle, sizeof subtitle, "%s, %s, t = %g%s", fs::path(flow_case.path).filename().string().c_str(),
                  primary.backend.c_str(), primary.result.state.time,
                  reduced && flow_case.refine > 0 ? ", on the base mesh" : "");
    slice.subtitle = subtitle;
    const bool temperature = flow_case.slice_field == "temperature";  // the arrows show the flow either way
    if (temperature) slice.title = "temperature";
    render_slice_png(mesh, temperature ? primary.fields.node_temperature : magnitudes(primary.fields.node_velocity),
                     slice, output_path(o.png, out_dir, "flow.png"), primary.fields.node_velocity);
  }
  timings.add_since("write", t0);
  summary["timings"] = timings.json();
  summary["peak_host_memory_bytes"] = peak_host_memory_bytes();
  summary["peak_host_memory_bytes_per_cell"] = double(peak_host_memory_bytes()) / double(mesh.topology.num_cells);
  if (o.gl.verbose) timings.print("flow");
  outcome.json_path = output_path(o.json, out_dir, "flow.json");
  write_file_atomically(outcome.json_path, summary.dump(2) + "\n");

  outcome.summary = std::move(summary);
  if (o.keep_fields && primary.fields.cell_velocity.size() == size_t(mesh.topology.num_cells)) {
    outcome.fields = std::move(primary.fields);
    outcome.cell_centroids = mesh.geometry.cell_centroids;
  }
  outcome.run = std::move(primary.result);
  return outcome;
}

}  // namespace ss
