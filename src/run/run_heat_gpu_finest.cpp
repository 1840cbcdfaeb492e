// run_heat_gpu_finest: the finest level made on the GPU from level K − 1.
//
// `streamsolve heat CASE.toml --refine K --finest-level gpu` (the default for a refined run on the
// GPU alone): level K − 1 is loaded on the host with every table (geometry: its
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
#include "run/run_heat.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <optional>

#include "gl/context.hpp"
#include "mesh/geometry.hpp"
#include "mesh/mesh_hierarchy.hpp"
#include "mesh/refine.hpp"
#include "mesh/vtu.hpp"
#include "multigrid/refined_level_multigrid.hpp"
#include "operators/gpu_refined_heat.hpp"
#include "physics/heat_multigrid.hpp"
#include "problems/heat_problem.hpp"
#include "render/render_surface.hpp"
#include "run/heat_summary.hpp"
#include "run/outputs.hpp"
#include "util/error.hpp"

namespace ss {
namespace {

namespace fs = std::filesystem;
using i32 = std::int32_t;

// Level K's surface for the picture: its nodes, and the four children of each boundary face of
// level K − 1 as its boundary faces (all the surface renderer reads).
LoadedMesh refined_surface(const LoadedMesh& coarse) {
  const Topology& topo = coarse.topology;
  LoadedMesh surface;
  surface.mesh.source = coarse.mesh.source;
  surface.mesh.nodes = refined_node_coordinates(coarse.mesh, topo, RefineNumbering::interleaved);
  const std::vector<i32> id = refined_node_ids(topo, RefineNumbering::interleaved);
  for (i32 f : topo.boundary_faces)
    for (const auto& triangle : refined_triangle_children(topo, id, topo.face_nodes[size_t(f)])) {
      surface.topology.boundary_faces.push_back(i32(surface.topology.face_nodes.size()));
      surface.topology.face_nodes.push_back(triangle);
    }
  return surface;
}

}  // namespace

HeatRunResult run_heat_gpu_finest(const HeatRunOptions& o) {
  StageTimings timings;
  // 1. The case: every mistake stops here, before any work.
  HeatCase heat_case = o.heat_case ? *o.heat_case : read_heat_case(o.case_file);
  if (o.refine) heat_case.refine = *o.refine;
  SS_REQUIRE(heat_case.refine >= 1, heat_case.path << ": --finest-level gpu makes level K on the GPU from level K - 1: "
                                                   "it needs refine >= 1 (the case's [mesh] refine or --refine)");
  SS_REQUIRE(heat_case.surfaces.empty(), heat_case.path << ": --finest-level gpu refines with straight midpoints and cannot "
                                                          "honour [[mesh.surface]]; use --finest-level host");
  SS_REQUIRE(heat_case.periodic.empty(), heat_case.path << ": --finest-level gpu does not refine periodic meshes "
                                                          "([[mesh.periodic]]); use --finest-level host");

  // 2. Level K − 1 on the host, with every table (the GPU kernels read its faces) and its cells'
  // geometry. With multigrid every level below K too, each with its operator, as the host path
  // builds them (the node graph and the boundary faces); level K − 1's every-table topology follows.
  LoadOptions load;
  load.refine = heat_case.refine - 1;
  load.tables = heat_case.multigrid ? TopologyTables::boundary : TopologyTables::all;
  load.cell_geometry_only = !heat_case.multigrid;  // (the hierarchy's levels keep their face geometry)
  auto t0 = StageTimings::now();
  LoadedMesh coarse;
  GeometricLevels levels;
  if (heat_case.multigrid) {
    MeshHierarchy hierarchy = load_mesh_hierarchy(heat_case.mesh_file, load);
    add_mesh_timings(timings, hierarchy.finest().report, std::chrono::duration<double>(StageTimings::now() - t0).count(),
                     true);
    t0 = StageTimings::now();
    Topology every_table = build_topology(hierarchy.finest().mesh, TopologyTables::all);
    timings.add_since("topology", t0);
    t0 = StageTimings::now();
    levels = heat_levels_below_gpu_finest(heat_case, hierarchy, every_table);
    timings.add_since("coarse_levels", t0);
    coarse.mesh = std::move(hierarchy.levels.back().mesh);
    coarse.topology = std::move(every_table);
    coarse.geometry.cell_volumes = std::move(hierarchy.levels.back().geometry.cell_volumes);
    coarse.geometry.cell_centroids = std::move(hierarchy.levels.back().geometry.cell_centroids);
    coarse.report = hierarchy.levels.back().report;
  } else {
    coarse = load_mesh(heat_case.mesh_file, load);
    add_mesh_timings(timings, coarse.report, std::chrono::duration<double>(StageTimings::now() - t0).count(), false);
  }

  // 3. Level K's problem from level K − 1 (materials per coarse cell).
  t0 = StageTimings::now();
  const HeatProblem problem = build_refined_heat_problem(heat_case, coarse);
  timings.add_since("problem", t0);
  const size_t nodes = problem.load.size(), tets = 8 * coarse.mesh.tets.size();
  std::fprintf(stderr, "streamsolve: heat: level %d made on the GPU from level %d: %zu nodes, %zu tets, %zu fixed nodes, %s\n",
               heat_case.refine, heat_case.refine - 1, nodes, tets, problem.dirichlet_nodes.size(),
               problem.time ? ("transient, " + std::to_string(problem.time->steps) + " steps").c_str() : "steady");
  const std::string out_dir = prepare_output_directory(o.out, heat_case.output_directory);
  TimeSeries series(out_dir, "heat");
  series.remove_previous_run(kHeatFinalFiles);

  // 4. The GPU: level K's operator from level K − 1's tables, its fixed nodes eliminated.
  t0 = StageTimings::now();
  GlContext context(o.gl);
  const LaunchChoice launch = resolve_run_launch(context, o);  // a probe's time counts as the context's
  timings.add_since("gl_context", t0);
  LayoutOptions layout;
  layout.packing = parse_packing(o.format);
  GpuBackend gpu(context, layout, launch.options);
  t0 = StageTimings::now();
  const GpuRefinedHeatTables tables = gpu_refine_heat_tables(gpu, coarse, problem.conductivity, problem.heat_capacity);
  GpuRefinedHeatSystem system(gpu, tables, problem.dirichlet_nodes, problem.dirichlet_values);
  MultigridStats multigrid;
  if (heat_case.multigrid) system.preconditioner = refined_level_multigrid_factory(gpu, system, levels, {}, &multigrid);
  gpu.finish();
  timings.add_since("gpu_finest_level", t0);

  // Level K's mesh on the host only for the VTU: refined from level K − 1 by the CPU twin of the
  // GPU's refinement (refine_once: the same cells, double coordinates) for the first snapshot or the
  // final field, then kept to the end of the run. (Downloading the GPU's would hold a second copy
  // of level K on the GPU, and its corners, 4 per cell, exceed one texture beyond 268M cells.)
  std::optional<TetMesh> fine_mesh;
  const auto refined_mesh = [&]() -> std::optional<TetMesh>& {
    if (!fine_mesh) fine_mesh = refine_once(coarse.mesh, coarse.topology, RefineNumbering::interleaved);
    return fine_mesh;
  };
  const auto mesh_for_output = [&]() -> const TetMesh& { return *refined_mesh(); };
  HeatSolveHooks hooks;
  CgProgressPrinter progress("gpu");
  hooks.progress = [&](int k, double r, double s) { progress(k, r, s); };
  if (problem.time && !o.no_vtu) {
    hooks.every = o.every ? *o.every : heat_case.output_every;
    hooks.snapshot = [&](int step, double time, const std::vector<double>& T) {
      series.add(step, time, mesh_for_output(), {VtuArray::scalars("temperature", T)}, {});
    };
  }

  // 5. The solve (mixed-precision defect correction around CG, as `heat`).
  t0 = StageTimings::now();
  GpuBackend::PreciseVector T =
      gpu.upload_precise(problem.time && !problem.initial.empty() ? problem.initial : std::vector<double>(nodes, 0.0));
  HeatSolveReport report;
  solve_heat_system(gpu, system, problem.load, T, heat_solve_settings(problem), report, hooks);
  timings.add_since("solve", t0);
  if (heat_case.multigrid)
    std::fprintf(stderr, "streamsolve: heat: gpu multigrid levels %s, setup %.3f s\n", multigrid.levels.c_str(),
                 multigrid.setup_seconds);
  t0 = StageTimings::now();
  std::vector<double> temperature = gpu.download_precise(T);
  timings.add_since("download", t0);

  // 6. Outputs: the JSON always, the fields only when converged (as `heat`).
  nlohmann::json summary = heat_summary(heat_case, nodes, tets, "gpu", context.info().renderer, launch, problem, report,
                                        report.relative_residual);
  summary["finest_level"] = "gpu";  // the true residual is the GPU-made operator's
  const auto [t_min, t_max] = std::minmax_element(temperature.begin(), temperature.end());
  summary["temperature"] = {{"min", *t_min}, {"max", *t_max}};
  if (report.converged) {
    t0 = StageTimings::now();
    if (!o.no_vtu) {
      LoadedMesh fine;  // the mesh and its cell volumes: all cell_heat_flux reads
      fine.mesh = std::move(*refined_mesh());
      fine.geometry.cell_volumes.resize(tets);
#pragma omp parallel for schedule(static)
      for (std::int64_t c = 0; c < std::int64_t(tets); ++c)
        fine.geometry.cell_volumes[size_t(c)] = signed_tet_volume(fine.mesh, fine.mesh.tets[size_t(c)]);
      std::vector<double> conductivity(tets);
      for (size_t c = 0; c < tets; ++c) conductivity[c] = problem.conductivity[c / 8];
      std::vector<VtuArray> cell_data;
      cell_data.push_back(VtuArray::float_vectors("heat_flux", cell_heat_flux(fine, temperature, conductivity)));
      write_vtu((fs::path(out_dir) / (problem.time ? "heat_final.vtu" : "heat.vtu")).string(), fine.mesh,
                {VtuArray::scalars("temperature", temperature)}, cell_data);
    }
    if (!o.no_png) {
      RenderOptions view;
      view.title = "temperature";
      view.subtitle = fs::path(heat_case.path).filename().string() + ", gpu, level " + std::to_string(heat_case.refine) +
                      " made on the GPU";
      render_surface_png(refined_surface(coarse), temperature, view, output_path(o.png, out_dir, "heat.png"));
    }
    timings.add_since("write", t0);
  }
  HeatRunResult result;
  result.finest_level = "gpu";
  result.backend = "gpu";
  result.device = context.info().renderer;
  result.refine = heat_case.refine;
  result.report = report;
  result.true_residual = report.relative_residual;
  result.t_min = *t_min, result.t_max = *t_max;
  result.converged = report.converged;
  result.out_dir = out_dir;
  result.json_path = write_heat_summary(summary, timings, o.gl.verbose, o.json, out_dir);
  if (!report.converged)
    result.failure = "gpu solve did not converge: " + report.stop_reason + " after " + std::to_string(report.iterations) +
                     " CG iterations (summary in " + result.json_path + ")";
  result.summary = std::move(summary);
  if (o.keep_fields) {
    result.temperature = std::move(temperature);
    result.nodes = refined_node_coordinates(coarse.mesh, coarse.topology, RefineNumbering::interleaved);
  }
  return result;
}

}  // namespace ss
