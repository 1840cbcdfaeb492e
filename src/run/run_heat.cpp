// run_heat (the dispatch between the heat paths) and run_heat_host: the case's mesh loaded, its
// operator assembled and solved on the GPU or the CPU reference (or both, compared), with VTU/PVD,
// PNG and JSON output.
#include "run/run_heat.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>

#include "gl/context.hpp"
#include "mesh/load_mesh.hpp"
#include "mesh/mesh_hierarchy.hpp"
#include "mesh/vtu.hpp"
#include "multigrid/multigrid.hpp"
#include "operators/heat_operator.hpp"
#include "parallel/mpi_env.hpp"
#include "physics/heat_multigrid.hpp"
#include "problems/heat_problem.hpp"
#include "render/render_surface.hpp"
#include "render/surface_viewer.hpp"
#include "run/heat_summary.hpp"
#include "run/outputs.hpp"
#include "util/error.hpp"

namespace ss {
namespace {

namespace fs = std::filesystem;

struct BackendRun {
  std::string backend, device;
  std::vector<double> temperature;
  HeatSolveReport report;
  double true_residual = 0;
  // Wall times of this run's stages: GL context (GPU, when this run made it), operator upload, solve
  // (multigrid set-up, transient snapshots and the final download included), the double true residual.
  double context_seconds = 0, upload_seconds = 0, solve_wall_seconds = 0, true_residual_seconds = 0;
  std::optional<LaunchChoice> launch;  // the GPU's launch path and why
};

// Solves with one backend; transient snapshots go to `snapshot` (only for the primary run).
template <class Backend, class Operator>
BackendRun run_backend(Backend& backend, Operator& op, const HeatProblem& problem,
                       const std::shared_ptr<const HeatOperatorData>& data, const std::string& name,
                       const HeatSolveHooks& hooks, const GeometricLevels* levels) {
  BackendRun run;
  run.backend = name;
  MultigridStats stats;
  auto t0 = StageTimings::now();
  run.temperature = solve_heat(backend, op, problem, run.report, hooks,
                               problem.multigrid ? multigrid_factory(backend, op, levels, {}, &stats)
                                                 : PreconditionerFactory<typename Backend::Vector>{});
  run.solve_wall_seconds = std::chrono::duration<double>(StageTimings::now() - t0).count() - run.report.download_seconds;
  if (problem.multigrid)
    std::fprintf(stderr, "streamsolve: heat: %s multigrid levels %s, setup %.3f s\n", name.c_str(), stats.levels.c_str(),
                 stats.setup_seconds);
  // The download of the final field is part of solve_heat; the heat flux is computed at write time.
  t0 = StageTimings::now();
  run.true_residual = true_relative_residual(*data, problem.dirichlet_nodes, run.report, run.temperature);
  run.true_residual_seconds = std::chrono::duration<double>(StageTimings::now() - t0).count();
  return run;
}

// The temperature at the nodes (Float64) and the heat flux -k ∇T per cell (computed in double from
// the field, written as Float32: 7 digits of a derived field, half the bytes).
void write_heat_vtu(const std::string& path, const LoadedMesh& mesh, const HeatProblem& problem, const BackendRun& run) {
  std::vector<VtuArray> cell_data;
  // Its own statement: the double flux is freed before the write.
  cell_data.push_back(VtuArray::float_vectors("heat_flux", cell_heat_flux(mesh, run.temperature, problem.conductivity)));
  write_vtu(path, mesh.mesh, {VtuArray::scalars("temperature", run.temperature)}, cell_data);
}

// The options' case: the parsed one, else the case file's.
HeatCase options_case(const HeatRunOptions& o) { return o.heat_case ? *o.heat_case : read_heat_case(o.case_file); }

// The finest level made on the GPU by default: a run on the GPU alone (no compare, no live window,
// one process) of a refined mesh.
bool gpu_finest_level_applies(const HeatRunOptions& o) {
  if (o.backend != "gpu" || o.compare || o.gl.window || mpi::size() > 1 || o.distributed) return false;
  const HeatCase c = options_case(o);
  // The GPU refinement puts new nodes at straight midpoints: a case with [[mesh.surface]] refines on the host.
  // Periodic meshes too: the GPU refinement knows no corner shifts.
  return (o.refine ? *o.refine : c.refine) >= 1 && c.surfaces.empty() && c.periodic.empty();
}

}  // namespace

HeatRunResult run_heat(const HeatRunOptions& o) {
  SS_REQUIRE(o.backend == "gpu" || o.backend == "cpu", "--backend must be gpu or cpu");
  // Under mpirun with several ranks (or `distributed`): the partitioned solve.
  if (mpi::size() > 1 || o.distributed) {
    SS_REQUIRE(!o.compare, "--compare is not available with MPI ranks (compare a serial run's JSON instead)");
    SS_REQUIRE(o.finest_level != "gpu", "--finest-level gpu is not available with MPI ranks yet (each rank refines its "
                                        "piece on the host)");
    return run_heat_distributed(o);
  }
  if (o.finest_level == "gpu" || (o.finest_level == "auto" && gpu_finest_level_applies(o))) {
    SS_REQUIRE(o.backend == "gpu" && !o.compare && !o.gl.window,
               "--finest-level gpu runs on the GPU alone (no --backend cpu, no --compare, no --window: compare with "
               "--finest-level host)");
    return run_heat_gpu_finest(o);
  }
  return run_heat_host(o);
}

HeatRunResult run_heat_host(const HeatRunOptions& o) {
  SS_REQUIRE(o.backend == "gpu" || o.backend == "cpu", "--backend must be gpu or cpu");
  StageTimings timings;
  // 1. Read and check the case file: every mistake stops here, before any work.
  HeatCase heat_case = options_case(o);
  if (o.refine) heat_case.refine = *o.refine;

  // 2. Load, validate and prepare the mesh; 3. resolve groups and assemble materials and loads.
  LoadOptions load;
  load.refine = heat_case.refine;
  load.tables = TopologyTables::boundary;  // the node graph and the boundary faces are all heat needs
  load.surfaces = heat_case.surfaces;
  load.periodic = heat_case.periodic;
  // Multigrid keeps every level of the refinement (the finest is the mesh load_mesh gives).
  MeshHierarchy hierarchy;
  auto t0 = StageTimings::now();
  if (heat_case.multigrid) hierarchy = load_mesh_hierarchy(heat_case.mesh_file, load);
  else hierarchy.levels.push_back(load_mesh(heat_case.mesh_file, load));
  const LoadedMesh& mesh = hierarchy.finest();
  add_mesh_timings(timings, mesh.report, std::chrono::duration<double>(StageTimings::now() - t0).count(),
                   heat_case.multigrid);
  t0 = StageTimings::now();
  const HeatProblem problem = build_heat_problem(heat_case, mesh);
  const GeometricLevels levels = heat_case.multigrid ? heat_geometric_levels(heat_case, hierarchy) : GeometricLevels{};
  timings.add_since("problem", t0);
  std::fprintf(stderr, "streamsolve: heat: %zu nodes, %zu tets, %zu fixed nodes, %s\n", mesh.mesh.nodes.size(),
               mesh.mesh.tets.size(), problem.dirichlet_nodes.size(),
               problem.time ? ("transient, " + std::to_string(problem.time->steps) + " steps").c_str() : "steady");

  // 4. The conduction operator in double; its lumped mass weighted by ρc per cell.
  t0 = StageTimings::now();
  const auto data = std::make_shared<const HeatOperatorData>(assemble_heat_system(mesh, problem, HeatTables::operator_only));
  // The coarser levels live on in `levels`; the finest keeps what the outputs need.
  for (size_t l = 0; l + 1 < hierarchy.levels.size(); ++l) hierarchy.levels[l] = LoadedMesh{};
  release_assembly_tables(hierarchy.levels.back());
  timings.add_since("assemble", t0);

  const std::string out_dir = prepare_output_directory(o.out, heat_case.output_directory);

  // A live window (gl.window): one visible GLFW context for the solve (GPU backend) and the view.
  std::optional<GlContext> context;
  std::optional<SurfaceViewer> viewer;
  RenderOptions view;
  view.title = "temperature";
  view.subtitle = fs::path(heat_case.path).filename().string() + ", " + o.backend;
  if (o.gl.window) {
    t0 = StageTimings::now();
    context.emplace(o.gl);
    viewer.emplace(*context, mesh, view);
    timings.add_since("gl_context", t0);
  }

  // Transient runs write a VTU every `every` steps from the primary backend, and a PVD index.
  TimeSeries series(out_dir, "heat");
  series.remove_previous_run(kHeatFinalFiles);
  HeatSolveHooks primary_hooks;
  CgProgressPrinter progress(o.backend);
  primary_hooks.progress = [&](int k, double r, double s) { progress(k, r, s); };
  if (problem.time && !o.no_vtu) {
    primary_hooks.every = o.every ? *o.every : heat_case.output_every;
    primary_hooks.snapshot = [&](int step, double time, const std::vector<double>& T) {
      series.add(step, time, mesh.mesh, {VtuArray::scalars("temperature", T)}, {});
      if (viewer) viewer->update(T);
    };
  }
  if (viewer) {
    primary_hooks.progress = [&](int k, double r, double s) {
      progress(k, r, s);
      viewer->poll();
    };
  }

  // 5. Solve on the chosen backend, and on the other one too with compare.
  std::vector<BackendRun> runs;
  const auto run_gpu = [&](const HeatSolveHooks& hooks) {
    auto t_context = StageTimings::now();
    if (!context) context.emplace(o.gl);
    const LaunchChoice launch = resolve_run_launch(*context, o);  // fragment or compute launches
    const double context_seconds = std::chrono::duration<double>(StageTimings::now() - t_context).count();
    LayoutOptions layout;
    layout.packing = parse_packing(o.format);
    GpuBackend gpu(*context, layout, launch.options);
    auto t_upload = StageTimings::now();
    GpuHeatOperator op(gpu, data, problem.dirichlet_nodes);  // eliminated once, here
    const double upload_seconds = std::chrono::duration<double>(StageTimings::now() - t_upload).count();
    BackendRun run = run_backend(gpu, op, problem, data, "gpu", hooks, &levels);
    run.upload_seconds = upload_seconds;
    run.context_seconds = context_seconds;
    run.device = context->info().renderer;
    run.launch = launch;
    return run;
  };
  const auto run_cpu = [&](const HeatSolveHooks& hooks) {
    CpuBackend cpu;
    auto t_upload = StageTimings::now();
    CpuHeatOperator op(data, problem.dirichlet_nodes);
    const double upload_seconds = std::chrono::duration<double>(StageTimings::now() - t_upload).count();
    BackendRun run = run_backend(cpu, op, problem, data, "cpu", hooks, &levels);
    run.upload_seconds = upload_seconds;
    run.device = cpu_device_name();
    return run;
  };
  runs.push_back(o.backend == "gpu" ? run_gpu(primary_hooks) : run_cpu(primary_hooks));
  if (runs[0].context_seconds > 0) timings.add("gl_context", runs[0].context_seconds);
  timings.add("upload", runs[0].upload_seconds);
  timings.add("solve", runs[0].solve_wall_seconds);
  timings.add("download", runs[0].report.download_seconds);
  timings.add("true_residual", runs[0].true_residual_seconds);
  if (o.compare) {
    HeatSolveHooks quiet;
    CgProgressPrinter other_progress(other_backend(o.backend));
    quiet.progress = [&](int k, double r, double s) { other_progress(k, r, s); };
    t0 = StageTimings::now();
    runs.push_back(o.backend == "gpu" ? run_cpu(quiet) : run_gpu(quiet));
    timings.add_since("compare", t0);
  }
  BackendRun& primary = runs[0];

  // 6. Outputs: JSON summary always (it records a failed solve too), fields only when converged.
  HeatRunResult result;
  result.backend = primary.backend;
  result.device = primary.device;
  result.refine = heat_case.refine;
  result.report = primary.report;
  result.true_residual = primary.true_residual;
  result.out_dir = out_dir;
  nlohmann::json summary = heat_summary(heat_case, mesh.mesh.nodes.size(), mesh.mesh.tets.size(), primary.backend,
                                        primary.device, primary.launch, problem, primary.report, primary.true_residual);
  summary["finest_level"] = "host";
  const auto [t_min, t_max] = std::minmax_element(primary.temperature.begin(), primary.temperature.end());
  result.t_min = *t_min, result.t_max = *t_max;
  summary["temperature"] = {{"min", *t_min}, {"max", *t_max}};
  if (o.compare) {
    const BackendRun& other = runs[1];
    double max_abs = 0.0;
    for (size_t i = 0; i < primary.temperature.size(); ++i)
      max_abs = std::max(max_abs, std::fabs(primary.temperature[i] - other.temperature[i]));
    const double range = *t_max - *t_min;
    result.compare = HeatCompareResult{other.backend, max_abs, range > 0 ? max_abs / range : max_abs};
    summary["compare"] = {{"backend", other.backend},
                          {"max_abs_diff", max_abs},
                          {"max_rel_diff", result.compare->max_rel_diff},
                          {"iterations", other.report.iterations},
                          {"solve_seconds", other.report.solve_seconds},
                          {"converged", other.report.converged}};
  }
  // Fields first, the JSON summary last: a heat.json beside them means the run finished. A solve that
  // did not converge writes only the JSON (it says so), and the result says why.
  result.converged = std::all_of(runs.begin(), runs.end(), [](const BackendRun& r) { return r.report.converged; });
  if (result.converged) {
    t0 = StageTimings::now();
    if (!o.no_vtu) write_heat_vtu((fs::path(out_dir) / (problem.time ? "heat_final.vtu" : "heat.vtu")).string(), mesh, problem, primary);
    if (!o.no_png) render_surface_png(mesh, primary.temperature, view, output_path(o.png, out_dir, "heat.png"));
    timings.add_since("write", t0);
  }
  result.json_path = write_heat_summary(summary, timings, o.gl.verbose, o.json, out_dir);
  for (const BackendRun& run : runs)
    if (!run.report.converged) {
      result.failure = run.backend + " solve did not converge: " + run.report.stop_reason + " after " +
                       std::to_string(run.report.iterations) + " CG iterations (summary in " + result.json_path + ")";
      break;
    }
  if (viewer && result.converged) {
    viewer->update(primary.temperature);
    std::fprintf(stderr, "streamsolve: heat: solved; close the window to exit\n");
    viewer->wait_until_closed();
  }
  result.summary = std::move(summary);
  if (o.keep_fields) {
    result.temperature = std::move(primary.temperature);
    result.nodes = mesh.mesh.nodes;
  }
  return result;
}

void throw_if_failed(const HeatRunResult& result) { SS_REQUIRE(result.failure.empty(), result.failure); }

}  // namespace ss
