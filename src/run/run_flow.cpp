// run_flow (the dispatch between serial and MPI runs) and run_flow_serial: incompressible
// Navier–Stokes by the fractional-step method (physics/flow_solver.hpp) on the GPU or the CPU
// reference (or both, compared), with VTU/PVD snapshots and checkpoints (a restart continues from the
// last), a slice PNG and a JSON summary.
#include "run/run_flow.hpp"

#include <chrono>
#include <cstdio>
#include <optional>

#include <nlohmann/json.hpp>

#include "gl/context.hpp"
#include "mesh/load_mesh.hpp"
#include "operators/flow_operators.hpp"
#include "parallel/mpi_env.hpp"
#include "cases/flow_case.hpp"
#include "problems/flow_case_problem.hpp"
#include "postprocess/flow_fields.hpp"
#include "postprocess/flow_forces.hpp"
#include "postprocess/flow_heat_flux.hpp"
#include "problems/flow_heat_problem.hpp"
#include "physics/flow_instances.hpp"
#include "run/flow_checkpoints.hpp"
#include "run/flow_histories.hpp"
#include "run/flow_probe_files.hpp"
#include "run/flow_results.hpp"
#include "run/outputs.hpp"
#include "util/error.hpp"

namespace ss {

FlowRunOutcome run_flow(const FlowRunOptions& o) {
  // Under mpirun with several ranks (or `distributed`): the partitioned run.
  if (mpi::size() > 1 || o.distributed) return run_flow_distributed(o);
  return run_flow_serial(o);
}

FlowRunOutcome run_flow_serial(const FlowRunOptions& o) {
  SS_REQUIRE(!o.gl.window, "flow has no live window; drop --window (flow.png and the VTU files show the result)");
  StageTimings timings;
  // 1. Case file, mesh, problem: every mistake stops here, before any work.
  FlowCase flow_case = o.flow_case ? *o.flow_case : read_flow_case(o.case_file);
  if (o.refine) flow_case.refine = *o.refine;
  auto t0 = StageTimings::now();
  LoadOptions load;
  load.refine = flow_case.refine;
  load.surfaces = flow_case.surfaces;
  load.periodic = flow_case.periodic;
  const LoadedMesh mesh = load_mesh(flow_case.mesh_file, load);
  add_mesh_timings(timings, mesh.report, std::chrono::duration<double>(StageTimings::now() - t0).count(), false);
  t0 = StageTimings::now();
  const FlowProblem problem = build_flow_problem(flow_case, mesh);
  std::optional<FlowHeatProblem> heat;  // [heat]: the temperature the flow carries
  if (flow_case.heat) heat = build_flow_heat_problem(flow_case, mesh);
  const FlowProbes probes(mesh, flow_case.probes);  // a point outside the mesh stops here
  timings.add_since("problem", t0);
  t0 = StageTimings::now();
  // The mesh operators' tables, made once: the outputs' CPU operators (and a CPU run's) hold them,
  // a GPU run uploads them.
  CpuMeshOperators output_ops(build_mesh_operator_tables(mesh.topology, mesh.geometry));
  const MeshOperatorTables& tables = output_ops.tables();
  const FlowOperatorData data = flow_operator_data(tables, problem);
  timings.add_since("assemble", t0);
  std::fprintf(stderr, "streamsolve: flow: %zu nodes, %d cells, %d faces (%zu on the boundary), nu = %g, %s\n",
               mesh.mesh.nodes.size(), mesh.topology.num_cells, mesh.topology.num_faces,
               mesh.topology.boundary_faces.size(), problem.viscosity,
               problem.time.steps > 0 ? (std::to_string(problem.time.steps) + " steps").c_str()
                                      : ("to t = " + std::to_string(problem.time.end_time)).c_str());

  // 2. Output directory: a fresh run clears the previous one's series; --restart continues it.
  const std::string out_dir = prepare_output_directory(o.out, flow_case.output_directory);
  FlowCheckpoints checkpoints(out_dir, !problem.forces.empty());
  FlowProbeFiles probe_files(out_dir, probes.specs());
  FlowHeatHistory heat_history(out_dir);  // heat.csv of a [heat] run
  FlowEnergyHistory energy_history(out_dir);
  std::optional<FlowState> initial;
  if (o.restart) {
    initial = checkpoints.resume([&](const FlowState& s) {
      probe_files.continue_from(s.time);
      if (heat) heat_history.continue_from(s.step);
      energy_history.continue_from(s.step);
      SS_REQUIRE(s.base_levels < 0, "--restart: the checkpoint of step "
                                        << s.step << " in '" << out_dir
                                        << "' was written by a run over MPI ranks (its partition-then-refine ids); "
                                           "continue it with mpirun ... --distributed");
      require_checkpoint_fits(s, mesh.topology.num_faces, mesh.topology.num_cells, out_dir);
      SS_REQUIRE(!heat || s.temperature.size() == mesh.mesh.nodes.size(),
                 flow_case.where("heat") << ": --restart: the checkpoint of step " << s.step << " in '" << out_dir
                                         << "' carries " << (s.temperature.empty() ? "no temperature" : "another mesh's temperature")
                                         << " (a run without [heat] or an older file); run the [heat] case from the start");
    });
    std::fprintf(stderr, "streamsolve: flow: continuing from step %d (t = %g)\n", initial->step, initial->time);
  } else {
    checkpoints.clear_previous_run();
    probe_files.clear_previous_run();
    heat_history.clear_previous_run();
    energy_history.clear_previous_run();
  }
  FlowRunHooks primary_hooks;
  primary_hooks.every = o.every ? *o.every : flow_case.output_every;
  std::optional<FlowForceMeter> meter;
  if (!problem.forces.empty()) meter.emplace(mesh, problem);
  std::optional<FlowHeatMeter> heat_meter;
  if (heat) heat_meter.emplace(mesh, *heat);
  primary_hooks.snapshot = [&](const FlowState& s) {
    const std::vector<std::string> forces = meter ? force_rows(*meter, problem, s) : std::vector<std::string>{};
    std::optional<FlowFields> fields;
    if (!o.no_vtu || probes.size() > 0) fields = compute_flow_fields(output_ops, mesh, problem, s);
    if (fields) probe_files.write(s.time, probes.sample_all(*fields));  // before the checkpoint: a restart finds its rows
    if (heat_meter) heat_history.write(s, heat_meter->measure(s));    // likewise
    energy_history.write();
    if (o.no_vtu) checkpoints.write_checkpoint(s, forces);
    else checkpoints.write(s, mesh.mesh, *fields, forces);
  };

  // 3. Run on the chosen backend, and on the other one too with --compare (from the same start).
  std::optional<GlContext> context;
  // Stage times of the primary run only (the --compare run is one "compare" stage).
  StageTimings* stages = &timings;
  const auto run_gpu = [&](FlowRunHooks hooks) {
    auto t = StageTimings::now();
    if (!context) context.emplace(o.gl);
    const LaunchChoice launch = resolve_run_launch(*context, o);  // a probe's time counts as the context's
    if (stages) stages->add_since("gl_context", t);
    t = StageTimings::now();
    GpuBackend gpu(*context, LayoutOptions{}, launch.options);
    GpuMeshOperators mesh_ops(gpu, tables);
    GpuFlowOperators ops(gpu, mesh_ops, data);
    if (stages) stages->add_since("upload", t);
    t = StageTimings::now();
    std::optional<FlowTemperature<GpuBackend>> temperature;
    if (heat) temperature.emplace(gpu, mesh, *heat);
    BackendFlowRun run{"gpu", context->info().renderer,
                       march_flow(gpu, ops, problem, mesh, data, initial ? &*initial : nullptr, hooks, "gpu",
                                temperature ? &*temperature : nullptr),
                       {}, launch};
    if (stages) stages->add_since("solve", t);
    return run;
  };
  const auto run_cpu = [&](FlowRunHooks hooks) {
    auto t = StageTimings::now();
    CpuBackend cpu;
    CpuFlowOperators ops(output_ops, data);
    if (stages) stages->add_since("upload", t);
    t = StageTimings::now();
    std::optional<FlowTemperature<CpuBackend>> temperature;
    if (heat) temperature.emplace(cpu, mesh, *heat);
    BackendFlowRun run{"cpu", cpu_device_name(),
                       march_flow(cpu, ops, problem, mesh, data, initial ? &*initial : nullptr, hooks, "cpu",
                                temperature ? &*temperature : nullptr),
                       {}, std::nullopt};
    if (stages) stages->add_since("solve", t);
    return run;
  };
  const auto run_backend = [&](const std::string& backend, const FlowRunHooks& extra) {
    FlowRunHooks hooks = flow_progress_hooks(backend, problem);
    hooks.every = extra.every;
    hooks.snapshot = extra.snapshot;
    if (extra.snapshot)  // the primary run: its energy.csv
      hooks.progress = [&energy_history, print = hooks.progress](const FlowStepInfo& info, double seconds, bool last) {
        energy_history.add(info);
        print(info, seconds, last);
      };
    BackendFlowRun run = backend == "gpu" ? run_gpu(hooks) : run_cpu(hooks);
    auto t = StageTimings::now();
    run.fields = compute_flow_fields(output_ops, mesh, problem, run.result.state);
    if (stages) stages->add_since("fields", t);
    return run;
  };
  std::vector<BackendFlowRun> runs;
  runs.push_back(run_backend(o.backend, primary_hooks));
  energy_history.write();
  if (o.compare) {
    stages = nullptr;
    t0 = StageTimings::now();
    runs.push_back(run_backend(other_backend(o.backend), FlowRunHooks{}));
    timings.add_since("compare", t0);
  }
  nlohmann::json extra = nlohmann::json::object();
  if (probes.size() > 0) {
    const ProbeSamples samples = probes.sample_all(runs[0].fields);
    probe_files.write(runs[0].result.state.time, samples);  // the end, unless its output step wrote it
    extra["probes"] = probe_files.summary(samples);
  }
  if (heat) extra["heat"] = heat_summary_json(*heat, heat_meter->measure(runs[0].result.state), runs);
  return write_flow_results(o, flow_case, mesh, problem, runs, meter ? &*meter : nullptr, initial ? &*initial : nullptr,
                            timings, out_dir, extra);
}

}  // namespace ss
