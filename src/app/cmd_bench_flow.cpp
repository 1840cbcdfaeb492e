// `streamsolve bench flow --mesh FILE [--case CASE.toml] [--refine K] [--steps N] [--warmup-steps W]
//                       [--cpu-steps M] [--cfl C] [--methods classical,classical-flux,exact] [--real] [--json FILE]`
// Seconds per time step of the fractional-step flow solver, split into convection (explicit terms and
// right-hand side), momentum solve, pressure solve, projection and diagnostics, with the iterations
// of each solve: on the GPU once per launch path of `--launch` (e.g. fragment,compute) and on the
// CPU reference (double, OpenMP). Every run continues from the same developed state: the first GPU
// path steps W times from rest (untimed), and each run then restores that state and takes N steps
// (the CPU M steps, as it is slow on big meshes). Each method of --methods runs so, side by side:
//   classical           the classical method as a run picks it (the momentum system `automatic`)
//   classical-flux      its momentum solve on the face fluxes (CG on H/Δt − νθK)
//   classical-implicit  implicit convection (BiCGStab on the face fluxes)
//   exact               the exact method (it first takes one untimed step from the developed state:
//                       its streamfunction starts at 0), its streamfunction CG as a run picks it
//   exact-jacobi        the same with the Jacobi preconditioner instead of the auxiliary-space one
// With --real each run instead starts from the case's initial state and its own time step settings
// (its first Δt and CFL target; --cfl and --warmup-steps do not apply) and times its first N steps as
// `flow` does: the solver's start (set-up and initial projection) in setup_seconds, every
// recombination of the exact method's preconditioner within the steps' seconds.
// The problem is the case's, or without --case the
// lid-driven cavity at Re = 100 (lid speed 1, ν = 0.01; the mesh needs the groups "lid" and "walls",
// as meshes/cavity.msh). Δt follows the CFL target (default 0.5) as in a production run.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/commands.hpp"
#include "cpu/cpu_backend.hpp"
#include "gl/context.hpp"
#include "kernels/gpu_backend.hpp"
#include "mesh/load_mesh.hpp"
#include "operators/flow_operators.hpp"
#include "cases/flow_case.hpp"
#include "problems/flow_case_problem.hpp"
#include "physics/flow_instances.hpp"
#include "util/atomic_file.hpp"
#include "util/error.hpp"

namespace ss {
namespace {

namespace fs = std::filesystem;

struct FlowBenchOptions {
  std::string mesh, case_file, json;
  int refine = 0, steps = 10, warmup_steps = 20, cpu_steps = 2;
  double cfl = 0.5;
  bool real = false;  // each run from the case's start, as `flow` runs it
  std::vector<std::string> methods{"classical", "classical-flux", "exact"};
};

// The built-in problem: the lid-driven cavity of meshes/cavity_flow.toml at Re = 100.
FlowCase cavity_case(const std::string& mesh_file) {
  SS_REQUIRE(mesh_file.find('\'') == std::string::npos, "bench flow: the mesh path must not contain a quote: " << mesh_file);
  const std::string text = "[mesh]\nfile = '" + fs::absolute(mesh_file).string() +
                           "'\n[fluid]\nviscosity = 0.01\n"
                           "[[boundary]]\ngroup = \"lid\"\ntype = \"wall\"\nvelocity = [1.0, 0.0, 0.0]\n"
                           "[[boundary]]\ngroup = \"walls\"\ntype = \"wall\"\n"
                           "[time]\ndt = 0.005\nsteps = 1\ncfl = 0.5\nmax_dt = 0.02\n";
  return parse_flow_case(text, "bench flow (lid-driven cavity, Re 100)");
}

// Per-step figures of `steps` timed steps that continue from `developed`; when it is empty, the
// run first steps `warmup` times from rest (untimed) and leaves that state in `developed`. `real`:
// from the start instead, without warm-up (`developed` unused).
template <class Backend, class Ops>
nlohmann::json time_steps(Backend& backend, Ops& ops, const FlowProblem& problem, const LoadedMesh& mesh,
                          const FlowOperatorData& data, std::optional<FlowState>& developed, int warmup, int steps,
                          double setup_seconds, bool real) {
  using Clock = std::chrono::steady_clock;
  const auto t0 = Clock::now();
  FlowSolver<Backend, Ops> solver(backend, ops, problem, mesh, data);
  if (developed && !real) solver.restore(*developed);
  else solver.start();
  FlowStepInfo info = solver.diagnostics();
  backend.finish();
  setup_seconds += std::chrono::duration<double>(Clock::now() - t0).count();
  const auto step = [&] { SS_REQUIRE(solver.step(info), "bench flow: the run stopped: " << solver.failure()); };
  if (!real && !developed) {
    for (int s = 0; s < warmup; ++s) step();
    developed = solver.state();
    std::fprintf(stderr, "streamsolve: bench flow: warmed up %d steps to t = %g\n", warmup, developed->time);
  } else if (!real && problem.method == FlowMethod::exact && developed->streamfunction.empty()) {
    step();
  }
  const FlowTotals before = solver.totals();
  const auto t1 = Clock::now();
  for (int s = 0; s < steps; ++s) step();
  backend.finish();
  const double seconds = std::chrono::duration<double>(Clock::now() - t1).count();
  FlowTotals t = solver.totals();  // of the timed steps only
  t.steps -= before.steps;
  t.momentum_iterations -= before.momentum_iterations, t.pressure_iterations -= before.pressure_iterations;
  t.streamfunction_iterations -= before.streamfunction_iterations;
  t.streamfunction_seconds -= before.streamfunction_seconds;
  t.streamfunction_preconditioner_setups -= before.streamfunction_preconditioner_setups;
  t.streamfunction_preconditioner_setup_seconds -= before.streamfunction_preconditioner_setup_seconds;
  t.streamfunction_preconditioner_updates -= before.streamfunction_preconditioner_updates;
  t.streamfunction_preconditioner_update_seconds -= before.streamfunction_preconditioner_update_seconds;
  t.convection_seconds -= before.convection_seconds, t.momentum_seconds -= before.momentum_seconds;
  t.pressure_seconds -= before.pressure_seconds, t.projection_seconds -= before.projection_seconds;
  t.diagnostics_seconds -= before.diagnostics_seconds;
  const double n = std::max(1, t.steps);
  nlohmann::json j;
  j["steps"] = t.steps;
  j["method"] = problem.method == FlowMethod::exact ? "exact" : "classical";
  if (problem.method == FlowMethod::exact) {
    j["streamfunction_preconditioner"] = to_string(problem.resolved_streamfunction_preconditioner());
    j["streamfunction_preconditioner_setups"] = t.streamfunction_preconditioner_setups;  // in the timed steps
    j["streamfunction_preconditioner_setup_seconds"] = t.streamfunction_preconditioner_setup_seconds;
    j["streamfunction_preconditioner_updates"] = t.streamfunction_preconditioner_updates;
    j["streamfunction_preconditioner_update_seconds"] = t.streamfunction_preconditioner_update_seconds;
  }
  j["convection_time"] = problem.implicit_convection ? "implicit" : "explicit";
  j["momentum_system"] = to_string(problem.resolved_momentum_system());
  j["mode"] = real ? "real" : "developed";
  j["setup_seconds"] = setup_seconds;  // operators, solver, first use of every kernel, restore (real: start)
  const FlowStartParts& parts = solver.start_parts();
  j["start_parts"] = {{"momentum_operator", parts.momentum_operator}, {"pressure", parts.pressure},
                      {"momentum_system", parts.momentum_system}, {"exact_method", parts.exact_method},
                      {"initial_projection", parts.initial_projection}};
  j["run_seconds"] = setup_seconds + seconds;  // the set-up and the timed steps
  j["seconds_per_step"] = {{"convection", t.convection_seconds / n},   {"momentum", t.momentum_seconds / n},
                           {"pressure", t.pressure_seconds / n},       {"projection", t.projection_seconds / n},
                           {"streamfunction", t.streamfunction_seconds / n},
                           {"diagnostics", t.diagnostics_seconds / n}, {"total", seconds / n}};
  j["iterations"] = {{"momentum", double(t.momentum_iterations) / n},
                     {"pressure", double(t.pressure_iterations) / n},
                     {"streamfunction", double(t.streamfunction_iterations) / n}};
  j["last"] = {{"time", info.time}, {"dt", info.dt}, {"cfl", info.cfl}, {"kinetic_energy", info.kinetic_energy},
               {"max_divergence", info.max_divergence}};
  return j;
}

void print_row(const std::string& name, const nlohmann::json& r) {
  const auto& s = r["seconds_per_step"];
  std::printf("%-32s %6d %9.3f %11.4e %11.4e %11.4e %11.4e %11.4e %11.4e %11.4e %7.1f %7.1f %7.1f %9.3e\n",
              name.c_str(), r["steps"].get<int>(), r["setup_seconds"].get<double>(), s["total"].get<double>(),
              s["convection"].get<double>(),
              s["momentum"].get<double>(), s["pressure"].get<double>(), s["projection"].get<double>(),
              s["streamfunction"].get<double>(), s["diagnostics"].get<double>(),
              r["iterations"]["momentum"].get<double>(), r["iterations"]["pressure"].get<double>(),
              r["iterations"]["streamfunction"].get<double>(), r["last"]["cfl"].get<double>());
  std::fflush(stdout);
}

void bench_method(const FlowBenchOptions& o, const std::vector<LaunchChoice>& launches, GlContext& context,
                  const std::string& method, const FlowProblem& problem, const LoadedMesh& mesh,
                  const MeshOperatorTables& tables, const FlowOperatorData& data, std::optional<FlowState>& developed,
                  nlohmann::json& report);

void run_flow_bench(const FlowBenchOptions& o, const GlobalOptions& globals) {
  using Clock = std::chrono::steady_clock;
  const auto since = [](Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); };
  // 1. Problem and mesh (the case's boundaries and fluid; the bench's steps and CFL target).
  FlowCase flow_case = o.case_file.empty() ? cavity_case(o.mesh) : read_flow_case(o.case_file);
  if (!o.mesh.empty()) flow_case.mesh_file = fs::absolute(o.mesh).string();
  flow_case.refine = o.refine;
  const auto t_mesh = Clock::now();
  LoadOptions load;
  load.refine = flow_case.refine;
  if (o.mesh.empty()) load.surfaces = flow_case.surfaces;  // (another mesh need not have the case's groups)
  const LoadedMesh mesh = load_mesh(flow_case.mesh_file, load);
  FlowProblem problem = build_flow_problem(flow_case, mesh);
  problem.time.steps = o.warmup_steps + std::max(o.steps, o.cpu_steps);  // never reached: the bench stops first
  problem.time.end_time = 0;
  if (!o.real) problem.time.cfl = o.cfl;
  if (problem.time.max_dt <= 0) problem.time.max_dt = problem.time.dt;
  const MeshOperatorTables tables = build_mesh_operator_tables(mesh.topology, mesh.geometry);
  const FlowOperatorData data = build_flow_operator_data(tables, problem.boundary_kinds());
  const double host_setup_seconds = since(t_mesh);
  std::fprintf(stderr, "streamsolve: bench flow: %d cells, %d faces, %d edges; setup on the host %.2f s\n",
               mesh.topology.num_cells, mesh.topology.num_faces, mesh.topology.num_edges, host_setup_seconds);

  nlohmann::json report;
  report["case"] = o.case_file.empty() ? "lid-driven cavity, Re 100 (built in)" : flow_case.path;
  report["mesh"] = {{"file", flow_case.mesh_file}, {"refine", flow_case.refine}, {"nodes", mesh.mesh.nodes.size()},
                    {"cells", mesh.topology.num_cells}, {"faces", mesh.topology.num_faces},
                    {"edges", mesh.topology.num_edges}};
  report["cfl_target"] = problem.time.cfl;
  report["mode"] = o.real ? "real" : "developed";
  report["viscosity"] = problem.viscosity;
  report["warmup_steps"] = o.real ? 0 : o.warmup_steps;
  report["scheme"] = {{"convection", problem.convection == Convection::central ? "central" : "upwind"},
                      {"time_stepping", to_string(problem.time_scheme)},
                      {"theta", problem.theta},
                      {"convection_time", problem.implicit_convection ? "implicit" : "explicit"},
                      {"viscous", problem.viscous == ViscousScheme::curl_curl ? "curl_curl" : "two_point"},
                      {"pressure_preconditioner", problem.pressure.multigrid ? "multigrid" : "jacobi"}};
  report["host_setup_seconds"] = host_setup_seconds;
  report["cpu_threads"] = std::thread::hardware_concurrency();
  report["cpu_device"] = cpu_device_name();
  report["runs"] = nlohmann::json::array();
  std::printf("%-32s %6s %9s %11s %11s %11s %11s %11s %11s %11s %7s %7s %7s %9s\n", "run", "steps", "setup_s", "s/step",
              "convection", "momentum", "pressure", "projection", "streamfn", "diagnost.", "mom_it", "p_it", "sf_it",
              "cfl");

  GlContext context(globals.gl);
  report["device"] = context.info().renderer;
  const std::vector<LaunchChoice> launches = globals.launch_choices(context);
  describe_launches(report, launches);
  std::optional<FlowState> developed;
  const FlowProblem as_read = problem;
  for (const std::string& method : o.methods) {
    problem = as_read;
    problem.steady = FlowSteadySettings{};  // a steady case's problem, timed as steps at --cfl
    problem.method = method.rfind("exact", 0) == 0 ? FlowMethod::exact : FlowMethod::classical;
    if (method == "exact-jacobi") problem.streamfunction_preconditioner = StreamfunctionPreconditioner::jacobi;
    problem.implicit_convection = method == "classical-implicit";
    problem.momentum_system = method == "classical-flux" ? MomentumSystem::flux : MomentumSystem::automatic;
    bench_method(o, launches, context, method, problem, mesh, tables, data, developed, report);
  }
  if (!o.json.empty()) write_file_atomically(o.json, report.dump(2) + "\n");
}

// One method: the GPU once per launch path (the first run of all also steps from rest to the
// developed state), then the CPU reference from the same state.
void bench_method(const FlowBenchOptions& o, const std::vector<LaunchChoice>& launches, GlContext& context,
                  const std::string& method, const FlowProblem& problem, const LoadedMesh& mesh,
                  const MeshOperatorTables& tables, const FlowOperatorData& data, std::optional<FlowState>& developed,
                  nlohmann::json& report) {
  using Clock = std::chrono::steady_clock;
  const auto since = [](Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); };
  std::map<std::string, double> gpu_seconds;
  for (const LaunchChoice& choice : launches) {
    const GpuOptions& path = choice.options;
    const auto t0 = Clock::now();
    GpuBackend gpu(context, LayoutOptions{}, path);
    GpuMeshOperators mesh_ops(gpu, tables);
    GpuFlowOperators ops(gpu, mesh_ops, data);
    nlohmann::json row = time_steps(gpu, ops, problem, mesh, data, developed, o.warmup_steps, o.steps, since(t0), o.real);
    const std::string launch = to_string(path.launch);
    row["run"] = method;
    row["backend"] = "gpu";
    row["launch"] = launch;
    gpu_seconds[launch] = row["seconds_per_step"]["total"].get<double>();
    print_row(method + " gpu " + launch, row);
    report["runs"].push_back(row);
  }

  // 3. The CPU reference from the same state.
  if (o.cpu_steps > 0) {
    const auto t0 = Clock::now();
    CpuBackend cpu;
    CpuMeshOperators mesh_ops(mesh);
    CpuFlowOperators ops(mesh_ops, data);
    nlohmann::json row = time_steps(cpu, ops, problem, mesh, data, developed, o.warmup_steps, o.cpu_steps, since(t0), o.real);
    row["run"] = method;
    row["backend"] = "cpu";
    const double cpu_seconds = row["seconds_per_step"]["total"].get<double>();
    print_row(method + " cpu", row);
    report["runs"].push_back(row);
    for (auto& [launch, seconds] : gpu_seconds) {
      report["gpu_over_cpu_speedup"][method][launch] = cpu_seconds / seconds;
      std::printf("%s gpu %s over cpu: %.1fx\n", method.c_str(), launch.c_str(), cpu_seconds / seconds);
    }
  }
  if (gpu_seconds.count("fragment") && gpu_seconds.count("compute"))
    report["compute_over_fragment_speedup"][method] = gpu_seconds["fragment"] / gpu_seconds["compute"];
}

}  // namespace

void add_bench_flow_command(CLI::App& bench, GlobalOptions& globals) {
  static FlowBenchOptions o;
  auto* b = bench.add_subcommand("flow", "seconds per flow time step (convection, momentum, pressure, projection) "
                                         "on each --launch path and the CPU reference");
  b->add_option("--mesh", o.mesh, "mesh file (default with --case: the case's mesh)")->check(CLI::ExistingFile);
  b->add_option("--case", o.case_file, "flow case (TOML) for the fluid, boundaries and scheme; default: the "
                                       "lid-driven cavity at Re 100 on --mesh (groups lid and walls)")
      ->check(CLI::ExistingFile);
  b->add_option("--refine", o.refine, "refine uniformly K times first (tets x 8^K)")->check(CLI::Range(0, 8));
  b->add_option("--steps", o.steps, "timed steps per GPU run (default 10)")->check(CLI::Range(1, 100000));
  b->add_option("--warmup-steps", o.warmup_steps, "untimed steps from rest before timing (default 20)")
      ->check(CLI::Range(0, 100000));
  b->add_option("--cpu-steps", o.cpu_steps, "timed steps of the CPU reference (default 2; 0: skip it)")
      ->check(CLI::Range(0, 100000));
  b->add_option("--cfl", o.cfl, "CFL target of the adaptive time step (default 0.5)")->check(CLI::PositiveNumber);
  b->add_option("--methods", o.methods,
                "flow methods to time, comma-separated: classical (the momentum system a run picks), classical-flux "
                "(momentum on the face fluxes), classical-implicit (implicit convection), exact, exact-jacobi (default "
                "classical,classical-flux,exact)")
      ->delimiter(',')
      ->check(CLI::IsMember({"classical", "classical-flux", "classical-implicit", "exact", "exact-jacobi"}));
  b->add_flag("--real", o.real, "time each run from the case's start with its own time steps, set-up included, as "
                                "`flow` runs it (no warm-up; --cfl does not apply)");
  b->add_option("--json", o.json, "write the results as JSON to this file");
  b->callback([&globals] {
    SS_REQUIRE(!o.mesh.empty() || !o.case_file.empty(), "bench flow: give --mesh FILE (and --case CASE.toml for a "
                                                        "problem other than the lid-driven cavity)");
    run_flow_bench(o, globals);
  });
}

}  // namespace ss
