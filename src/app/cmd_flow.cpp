// `streamsolve flow CASE.toml`: incompressible Navier–Stokes by the classical fractional-step method
// (physics/flow_solver.hpp) on the GPU or the CPU reference (or both, compared), with VTU/PVD
// snapshots and checkpoints (--restart continues from the last), a slice PNG and a JSON summary.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <optional>

#include <nlohmann/json.hpp>

#include "app/commands.hpp"
#include "app/flow_command.hpp"
#include "app/flow_output.hpp"
#include "app/solve_command.hpp"
#include "gl/context.hpp"
#include "mesh/load_mesh.hpp"
#include "operators/flow_operators.hpp"
#include "parallel/mpi_env.hpp"
#include "physics/flow_case.hpp"
#include "physics/flow_case_problem.hpp"
#include "physics/flow_fields.hpp"
#include "physics/flow_forces.hpp"
#include "physics/flow_run.hpp"
#include "render/render_slice.hpp"
#include "util/atomic_file.hpp"
#include "util/error.hpp"
#include "util/host_memory.hpp"

namespace ss {
namespace {

namespace fs = std::filesystem;

// "streamsolve: flow: cpu step 12/400, t = 0.06, dt = 0.005, CFL 0.31, kinetic energy 1.2e-02, max div 3e-08,
//  iterations momentum 5 pressure 40, 0.52 s" (exact method: "iterations streamfunction 120")
void print_progress(const std::string& backend, const FlowStepInfo& i, const FlowProblem& problem, double seconds) {
  const std::string of = problem.time.steps > 0 ? "/" + std::to_string(problem.time.steps) : "";
  const std::string iterations =
      problem.method == FlowMethod::exact
          ? "streamfunction " + std::to_string(i.streamfunction_iterations)
          : "momentum " + std::to_string(i.momentum_iterations) + " pressure " + std::to_string(i.pressure_iterations);
  std::fprintf(stderr,
               "streamsolve: flow: %s step %d%s, t = %.6g, dt = %.4g, CFL %.3f, kinetic energy %.6e, max div %.2e, "
               "iterations %s, %.2f s\n",
               backend.c_str(), i.step, of.c_str(), i.time, i.dt, i.cfl, i.kinetic_energy, i.max_divergence,
               iterations.c_str(), seconds);
}

}  // namespace

FlowRunHooks flow_progress_hooks(const std::string& label, const FlowProblem& problem) {
  FlowRunHooks hooks;
  hooks.progress = [label, throttle = ProgressThrottle(), &problem](const FlowStepInfo& info, double seconds,
                                                                   bool force) mutable {
    if (throttle.due(force || info.step == 1)) print_progress(label, info, problem, seconds);
  };
  return hooks;
}

namespace {

nlohmann::json iteration_summary(int last, long total, int max, int steps) {
  return {{"last", last}, {"mean", steps > 0 ? double(total) / steps : 0.0}, {"max", max}};
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
  j["max_divergence"] = r.last.max_divergence;
  j["iterations"] = {
      {"momentum", iteration_summary(r.last.momentum_iterations, t.momentum_iterations, t.max_momentum_iterations, n)},
      {"pressure", iteration_summary(r.last.pressure_iterations, t.pressure_iterations, t.max_pressure_iterations, n)},
      {"streamfunction", iteration_summary(r.last.streamfunction_iterations, t.streamfunction_iterations,
                                           t.max_streamfunction_iterations, n)}};
  j["seconds_per_step"] = {{"convection", per_step(t.convection_seconds)},
                           {"momentum", per_step(t.momentum_seconds)},
                           {"streamfunction", per_step(t.streamfunction_seconds)},
                           {"pressure", per_step(t.pressure_seconds)},
                           {"projection", per_step(t.projection_seconds)},
                           {"diagnostics", per_step(t.diagnostics_seconds)},
                           {"total", per_step(r.seconds - r.start_seconds)}};
  j["start_seconds"] = r.start_seconds;
  j["run_seconds"] = r.seconds;
  if (r.steady)  // steady mode: why the march stopped and r_k (relative change per unit pseudo-time) per step
    j["steady"] = {{"stop_reason", r.steady->stop_reason}, {"residuals", r.steady->residuals}, {"cfl", r.steady->cfl}};
  return j;
}

// flow.json "forces" (and one stdout line per group): the force at the end of the run.
nlohmann::json forces_summary(const FlowForceMeter& meter, const FlowProblem& problem, const FlowState& state) {
  const auto array = [](const glm::dvec3& v) { return nlohmann::json::array({v.x, v.y, v.z}); };
  nlohmann::json list = nlohmann::json::array();
  const std::vector<FlowForce> forces = meter.forces(state);
  for (size_t i = 0; i < forces.size(); ++i) {
    const FlowForceGroup& g = problem.forces[i];
    const FlowForce& f = forces[i];
    const glm::dvec3 total = f.total();
    nlohmann::json j = {{"group", g.label}, {"force", array(total)}, {"pressure", array(f.pressure)},
                        {"viscous", array(f.viscous)}};
    std::printf("force on %s: (%.6e, %.6e, %.6e) per unit density (pressure (%.4e, %.4e, %.4e), viscous (%.4e, %.4e, "
                "%.4e))",
                g.label.c_str(), total.x, total.y, total.z, f.pressure.x, f.pressure.y, f.pressure.z, f.viscous.x,
                f.viscous.y, f.viscous.z);
    if (g.has_coefficients()) {
      const glm::dvec3 c = force_coefficients(g, total);
      j["coefficients"] = array(c);
      j["reference_velocity"] = g.reference_velocity;
      j["reference_area"] = g.reference_area;
      std::printf(", coefficients (%.5f, %.5f, %.5f)", c.x, c.y, c.z);
    }
    std::printf("\n");
    list.push_back(j);
  }
  return list;
}

void run_flow_command(const FlowOptions& o, const GlobalOptions& globals) {
  // Under mpirun with several ranks (or --distributed): partitioned run, cmd_flow_distributed.cpp.
  if (mpi::size() > 1 || o.distributed) return run_flow_distributed(o, globals);
  SS_REQUIRE(!globals.gl.window, "flow has no live window; drop --window (flow.png and the VTU files show the result)");
  StageTimings timings;
  // 1. Case file, mesh, problem: every mistake stops here, before any work.
  FlowCase flow_case = read_flow_case(o.case_file);
  if (o.refine) flow_case.refine = *o.refine;
  auto t0 = StageTimings::now();
  const LoadedMesh mesh = load_mesh(flow_case.mesh_file, flow_case.refine);
  add_mesh_timings(timings, mesh.report, std::chrono::duration<double>(StageTimings::now() - t0).count(), false);
  t0 = StageTimings::now();
  const FlowProblem problem = build_flow_problem(flow_case, mesh);
  timings.add_since("problem", t0);
  t0 = StageTimings::now();
  const MeshOperatorTables tables = build_mesh_operator_tables(mesh.topology, mesh.geometry);
  const FlowOperatorData data = build_flow_operator_data(tables, problem.boundary_kinds());
  timings.add_since("assemble", t0);
  std::fprintf(stderr, "streamsolve: flow: %zu nodes, %d cells, %d faces (%zu on the boundary), nu = %g, %s\n",
               mesh.mesh.nodes.size(), mesh.topology.num_cells, mesh.topology.num_faces,
               mesh.topology.boundary_faces.size(), problem.viscosity,
               problem.time.steps > 0 ? (std::to_string(problem.time.steps) + " steps").c_str()
                                      : ("to t = " + std::to_string(problem.time.end_time)).c_str());

  // 2. Output directory: a fresh run clears the previous one's series; --restart continues it.
  const std::string out_dir = prepare_output_directory(o.out, flow_case.output_directory);
  FlowCheckpoints checkpoints(out_dir, !problem.forces.empty());
  std::optional<FlowState> initial;
  if (o.restart) {
    initial = checkpoints.resume([&](const FlowState& s) {
      SS_REQUIRE(s.base_levels < 0, "--restart: the checkpoint of step "
                                        << s.step << " in '" << out_dir
                                        << "' was written by a run over MPI ranks (its partition-then-refine ids); "
                                           "continue it with mpirun ... --distributed");
      require_checkpoint_fits(s, mesh.topology.num_faces, mesh.topology.num_cells, out_dir);
    });
    std::fprintf(stderr, "streamsolve: flow: continuing from step %d (t = %g)\n", initial->step, initial->time);
  } else {
    checkpoints.clear_previous_run();
  }
  CpuMeshOperators output_ops(mesh);
  FlowRunHooks primary_hooks;
  primary_hooks.every = o.every ? *o.every : flow_case.output_every;
  std::optional<FlowForceMeter> meter;
  if (!problem.forces.empty()) meter.emplace(mesh, problem);
  primary_hooks.snapshot = [&](const FlowState& s) {
    const std::vector<std::string> forces = meter ? force_rows(*meter, problem, s) : std::vector<std::string>{};
    if (o.no_vtu) checkpoints.write_checkpoint(s, forces);
    else checkpoints.write(s, mesh.mesh, compute_flow_fields(output_ops, mesh, problem, s), forces);
  };

  // 3. Run on the chosen backend, and on the other one too with --compare (from the same start).
  std::optional<GlContext> context;
  // Stage times of the primary run only (the --compare run is one "compare" stage).
  StageTimings* stages = &timings;
  const auto run_gpu = [&](FlowRunHooks hooks) {
    auto t = StageTimings::now();
    if (!context) context.emplace(globals.gl);
    if (stages) stages->add_since("gl_context", t);
    t = StageTimings::now();
    GpuBackend gpu(*context, LayoutOptions{}, globals.gpu_options());
    GpuMeshOperators mesh_ops(gpu, tables);
    GpuFlowOperators ops(gpu, mesh_ops, data);
    if (stages) stages->add_since("upload", t);
    t = StageTimings::now();
    BackendFlowRun run{"gpu", context->info().renderer,
                       run_flow(gpu, ops, problem, mesh, data, initial ? &*initial : nullptr, hooks, "gpu"), {}};
    if (stages) stages->add_since("solve", t);
    return run;
  };
  const auto run_cpu = [&](FlowRunHooks hooks) {
    auto t = StageTimings::now();
    CpuBackend cpu;
    CpuMeshOperators mesh_ops(mesh);
    CpuFlowOperators ops(mesh_ops, data);
    if (stages) stages->add_since("upload", t);
    t = StageTimings::now();
    BackendFlowRun run{"cpu", cpu_device_name(),
                       run_flow(cpu, ops, problem, mesh, data, initial ? &*initial : nullptr, hooks, "cpu"), {}};
    if (stages) stages->add_since("solve", t);
    return run;
  };
  const auto run_backend = [&](const std::string& backend, const FlowRunHooks& extra) {
    FlowRunHooks hooks = flow_progress_hooks(backend, problem);
    hooks.every = extra.every;
    hooks.snapshot = extra.snapshot;
    BackendFlowRun run = backend == "gpu" ? run_gpu(hooks) : run_cpu(hooks);
    auto t = StageTimings::now();
    run.fields = compute_flow_fields(output_ops, mesh, problem, run.result.state);
    if (stages) stages->add_since("fields", t);
    return run;
  };
  std::vector<BackendFlowRun> runs;
  runs.push_back(run_backend(o.backend, primary_hooks));
  if (o.compare) {
    stages = nullptr;
    t0 = StageTimings::now();
    runs.push_back(run_backend(other_backend(o.backend), FlowRunHooks{}));
    timings.add_since("compare", t0);
  }
  write_flow_results(o, globals, flow_case, mesh, problem, runs, meter ? &*meter : nullptr,
                     initial ? &*initial : nullptr, timings, out_dir, nlohmann::json::object());
}

}  // namespace

void write_flow_results(const FlowOptions& o, const GlobalOptions& globals, const FlowCase& flow_case,
                        const LoadedMesh& mesh, const FlowProblem& problem, const std::vector<BackendFlowRun>& runs,
                        const FlowForceMeter* meter, const FlowState* initial, StageTimings& timings,
                        const std::string& out_dir, const nlohmann::json& extra, const FlowFieldSummary* reduced) {
  const BackendFlowRun& primary = runs[0];
  SS_REQUIRE(o.no_vtu || primary.fields.cell_velocity.size() == size_t(mesh.topology.num_cells),
             "flow: no VTU of the fields on another mesh");
  nlohmann::json summary = run_summary(primary);
  summary["problem"] = "flow";
  summary["case"] = flow_case.path;
  summary["mesh"] = {{"file", flow_case.mesh_file},           {"nodes", mesh.mesh.nodes.size()},
                     {"cells", mesh.topology.num_cells},       {"faces", mesh.topology.num_faces},
                     {"boundary_faces", mesh.topology.boundary_faces.size()}, {"refine", flow_case.refine}};
  describe_backend(summary, primary.backend, primary.device, globals);
  const auto solver_json = [](const FlowLinearSolver& s) {
    return nlohmann::json{{"preconditioner", s.multigrid ? "multigrid" : s.jacobi ? "jacobi" : "none"},
                          {"variant", to_string(s.variant)},
                          {"tolerance", s.tolerance},
                          {"max_iterations", s.max_iterations}};
  };
  summary["solver"] = {{"momentum", solver_json(problem.momentum)},
                       {"pressure", solver_json(problem.pressure)},
                       {"streamfunction", solver_json(problem.streamfunction)}};
  summary["scheme"] = {{"method", problem.method == FlowMethod::exact ? "exact" : "classical"},
                       {"convection", problem.convection == Convection::central ? "central" : "upwind"},
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
    std::printf("exact: cell velocity error at t = %g: %.4e (L2, relative), %.4e (max, of the max speed)\n", e.time,
                e.l2, e.max);
  }
  if (meter) summary["forces"] = forces_summary(*meter, problem, primary.result.state);
  summary["max_speed"] = facts.max_speed;
  summary["pressure_range"] = facts.pressure_range;
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
    std::printf("compare: max |u_%s - u_%s| = %.3e of the max speed, max |p_%s - p_%s| = %.3e of the pressure range\n",
                primary.backend.c_str(), other.backend.c_str(), d.max_velocity_diff, primary.backend.c_str(),
                other.backend.c_str(), d.max_pressure_diff);
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
    render_slice_png(mesh, magnitudes(primary.fields.node_velocity), slice, output_path(o.png, out_dir, "flow.png"));
  }
  timings.add_since("write", t0);
  summary["timings"] = timings.json();
  summary["peak_host_memory_bytes"] = peak_host_memory_bytes();
  if (globals.gl.verbose) timings.print("flow");
  write_file_atomically(output_path(o.json, out_dir, "flow.json"), summary.dump(2) + "\n");

  const FlowRunResult& r = primary.result;
  std::printf("flow: %s on %s: %d steps to t = %g, kinetic energy %.6e, max div %.2e, %.3f s per step\n",
              primary.backend.c_str(), primary.device.c_str(), r.state.step, r.state.time, r.last.kinetic_energy,
              r.last.max_divergence, r.totals.steps > 0 ? (r.seconds - r.start_seconds) / r.totals.steps : 0.0);
  if (r.steady)
    std::printf("flow: steady mode stopped (%s) with relative change %.2e per unit pseudo-time (tolerance %.0e)\n",
                r.steady->stop_reason.c_str(), r.steady->residuals.empty() ? 0.0 : r.steady->residuals.back(),
                problem.steady.tolerance);
  std::printf("wrote %s\n", out_dir.c_str());
}

void add_flow_command(CLI::App& app, GlobalOptions& globals) {
  static FlowOptions o;
  auto* flow = app.add_subcommand("flow", "incompressible Navier-Stokes (fractional step) from a case file");
  add_solve_options(*flow, o, "flow", "the velocity magnitude on a slice");
  flow->add_flag("--restart", o.restart, "continue from the last checkpoint (flow_NNNNNN.state) in the output directory");
  flow->callback([&globals] { run_flow_command(o, globals); });
}

}  // namespace ss
