// `streamsolve bench refine --mesh FILE --refine K [--formats R32F,RGBA32F] [--json FILE]`
// The finest level's refinement, cell geometry and heat tables (docs/performance.md, *The finest
// level made on the GPU (default)*): level K - 1 is loaded on the host as `heat`/`flow` load it,
// then level K is made
//   - on the host: refine_once + the cells' volumes and centroids in double (the CPU twin), and the
//     heat tables as `heat` makes them: the fine level's topology and geometry, then
//     assemble_heat_operator;
//   - on the GPU (each --launch path and format): upload of level K - 1's tables + the refinement
//     kernels (operators/gpu_refinement.hpp), and the heat tables' kernels
//     (operators/gpu_refined_heat.hpp), each timed to glFinish,
// and the GPU's results are compared with the host's: identical connectivity and edge sets, max
// differences. The conductivity is 1 in every cell.
#include <chrono>
#include <functional>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/commands.hpp"
#include "gl/context.hpp"
#include "kernels/gpu_backend.hpp"
#include "mesh/geometry.hpp"
#include "mesh/load_mesh.hpp"
#include "mesh/refine.hpp"
#include "operators/gpu_refined_heat.hpp"
#include "operators/gpu_refinement.hpp"
#include "operators/heat_operator.hpp"
#include "util/atomic_file.hpp"
#include "util/error.hpp"
#include "util/host_memory.hpp"

namespace ss {
namespace {

struct RefineBenchOptions {
  std::string mesh;
  int refine = 1;
  std::vector<std::string> formats{"R32F", "RGBA32F"};
  std::string json;
};

double seconds_of(const std::function<void()>& op) {
  const auto start = std::chrono::steady_clock::now();
  op();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

void run_refine_bench(const RefineBenchOptions& o, const GlobalOptions& globals) {
  // 1. Level K - 1 on the host, with every table (the heat tables' kernels read its faces).
  LoadOptions load;
  load.refine = o.refine - 1;
  load.tables = TopologyTables::all;
  load.cell_geometry_only = true;
  const LoadedMesh coarse = load_mesh(o.mesh, load);
  const Topology& topo = coarse.topology;
  const std::int64_t coarse_peak_bytes = peak_host_memory_bytes();  // all the GPU path needs on the host

  // 2. Level K on the host (the CPU twin), timed.
  TetMesh fine;
  std::vector<double> volumes;
  std::vector<glm::dvec3> centroids;
  const double cpu_refine = seconds_of([&] { fine = refine_once(coarse.mesh, topo, RefineNumbering::interleaved); });
  const double cpu_geometry = seconds_of([&] { cell_volumes_and_centroids(fine, volumes, centroids); });
  // The heat tables as `heat` makes them (its node graph and boundary faces, then the assembly).
  LoadedMesh fine_level;
  LoadOptions fine_load;
  fine_load.renumber = false;  // keeps refine_once's numbering
  fine_load.tables = TopologyTables::boundary;
  const double cpu_heat_mesh = seconds_of([&] { fine_level = prepare_mesh(fine, fine_load); });
  const std::vector<double> conductivity(size_t(topo.num_cells), 1.0);
  HeatOperatorData heat;
  const double cpu_heat_assembly = seconds_of([&] {
    heat = assemble_heat_operator(fine_level, std::vector<double>(size_t(fine_level.topology.num_cells), 1.0),
                                  HeatTables::operator_only);
  });
  GlContext context(globals.gl);
  const std::vector<LaunchChoice> launches = globals.launch_choices(context);
  nlohmann::json report;
  report["device"] = context.info().renderer;
  describe_launches(report, launches);
  report["cpu_threads"] = std::thread::hardware_concurrency();
  report["mesh"] = {{"file", o.mesh}, {"refine", o.refine}, {"coarse_nodes", topo.num_nodes}, {"coarse_tets", topo.num_cells},
                    {"fine_nodes", fine.nodes.size()}, {"fine_tets", fine.tets.size()}};
  report["host_memory"] = {{"coarse_level_peak_bytes", coarse_peak_bytes}, {"peak_bytes", peak_host_memory_bytes()},
                           {"note", "coarse_level_peak_bytes: peak after loading level K-1 with every table (what the GPU "
                                    "path needs); peak_bytes: after the host's level K and its heat tables too"}};
  report["cpu"] = {{"refine_seconds", cpu_refine}, {"cell_geometry_seconds", cpu_geometry},
                   {"seconds", cpu_refine + cpu_geometry},
                   {"heat_mesh_seconds", cpu_heat_mesh}, {"heat_assembly_seconds", cpu_heat_assembly},
                   {"heat_tables_seconds", cpu_refine + cpu_heat_mesh + cpu_heat_assembly}};
  report["gpu"] = nlohmann::json::array();
  std::printf("mesh %s, level %d -> %d: %d -> %zu nodes, %d -> %zu tets\n", o.mesh.c_str(), o.refine - 1, o.refine,
              topo.num_nodes, fine.nodes.size(), topo.num_cells, fine.tets.size());
  std::printf("cpu: refine_once %.3f s + cell volumes and centroids %.3f s = %.3f s\n", cpu_refine, cpu_geometry,
              cpu_refine + cpu_geometry);
  std::printf("host memory: peak %.2f GB after level %d (all tables), %.2f GB after the host's level %d and its heat tables\n",
              coarse_peak_bytes / 1e9, o.refine - 1, peak_host_memory_bytes() / 1e9, o.refine);
  std::printf("cpu heat tables: refine_once %.3f s + topology and geometry %.3f s + assembly %.3f s = %.3f s\n", cpu_refine,
              cpu_heat_mesh, cpu_heat_assembly, cpu_refine + cpu_heat_mesh + cpu_heat_assembly);
  std::printf("%-8s %-8s %8s %8s %8s %13s %9s %9s %9s %9s %9s %11s %8s %8s %s\n", "format", "launch", "first_s", "gpu_s", "cpu/gpu",
              "wrong_corners", "coords", "volumes", "centroids", "heat_s", "cpu/gpu", "wrong_edges", "K_ab", "mass", "K·T");
  bool all_identical = true;
  for (const std::string& format : o.formats) {
    for (const LaunchChoice& choice : launches) {
      const GpuOptions& path = choice.options;
      LayoutOptions layout;
      layout.packing = parse_packing(format);
      GpuBackend gpu(context, layout, path);
      // 3. Level K on the GPU: the first run compiles the kernels, the second is the figure.
      GpuRefinedMesh result;
      const auto run = [&] {
        result = GpuRefinedMesh{};
        result = gpu_refine_once(gpu, coarse.mesh, topo, RefineNumbering::interleaved);
        gpu.finish();
      };
      const double first = seconds_of(run);
      const double seconds = seconds_of(run);
      // 3b. Level K's heat tables on the GPU, the same way.
      GpuRefinedHeatTables tables;
      const auto run_heat = [&] {
        tables = GpuRefinedHeatTables{};
        tables = gpu_refine_heat_tables(gpu, coarse, conductivity);
        gpu.finish();
      };
      const double heat_first = seconds_of(run_heat);
      const double heat_seconds = seconds_of(run_heat);
      const RefinedHeatDifferences h = compare_with_reference(gpu, tables, fine_level, heat);
      SS_REQUIRE(h.sizes_match, "bench refine: the GPU's fine heat tables have another size than the host's");
      all_identical = all_identical && h.wrong_edges == 0 && h.wrong_rows == 0;
      const double cpu_heat_seconds = cpu_refine + cpu_heat_mesh + cpu_heat_assembly;
      // 4. The comparison with the host's level K.
      const RefinementDifferences d = compare_with_reference(gpu, result, fine);
      SS_REQUIRE(d.sizes_match, "bench refine: the GPU's fine mesh has another size than the host's");
      all_identical = all_identical && d.wrong_corners == 0;
      const double cpu_seconds = cpu_refine + cpu_geometry;
      report["gpu"].push_back({{"format", format}, {"launch", to_string(path.launch)}, {"first_seconds", first},
                               {"seconds", seconds}, {"cpu_over_gpu", cpu_seconds / seconds},
                               {"wrong_corners", d.wrong_corners}, {"coordinates_max_rel_diff", d.coordinates},
                               {"volumes_max_rel_diff", d.volumes}, {"centroids_max_rel_diff", d.centroids},
                               {"not_float_of_cpu", {{"coordinates", d.inexact_coordinates}, {"volumes", d.inexact_volumes}, {"centroids", d.inexact_centroids}}},
                               {"heat_tables", {{"first_seconds", heat_first}, {"seconds", heat_seconds},
                                                {"cpu_over_gpu", cpu_heat_seconds / heat_seconds}, {"wrong_edges", h.wrong_edges},
                                                {"coefficients_max_rel_diff", h.coefficients}, {"mass_max_rel_diff", h.mass},
                                                {"wrong_rows", h.wrong_rows}, {"diagonal_max_rel_diff", h.diagonal},
                                                {"apply_max_rel_diff", h.apply}}}});
      std::printf("%-8s %-8s %8.3f %8.3f %8.2f %13lld %9.2e %9.2e %9.2e %9.3f %9.2f %11lld %8.2e %8.2e %.2e\n", format.c_str(),
                  to_string(path.launch), first, seconds, cpu_seconds / seconds, (long long)d.wrong_corners, d.coordinates,
                  d.volumes, d.centroids, heat_seconds, cpu_heat_seconds / heat_seconds, (long long)h.wrong_edges,
                  h.coefficients, h.mass, h.apply);
      std::fflush(stdout);
    }
  }
  report["gpu_seconds_note"] = "upload of level K-1's tables + refinement kernels, to glFinish (second run; first_seconds compiles)";
  report["heat_tables_note"] = "gpu: upload of level K-1's tables + the fine edges, K_ab and mass kernels, to glFinish; cpu: "
                               "refine_once + the fine level's topology (boundary tables) and geometry + assemble_heat_operator";
  if (!o.json.empty()) write_file_atomically(o.json, report.dump(2) + "\n");
  SS_REQUIRE(all_identical, "bench refine: the GPU's fine connectivity or edges differ from the host's (see the table)");
}

}  // namespace

void add_bench_refine_command(CLI::App& bench, GlobalOptions& globals) {
  static RefineBenchOptions options;
  auto* b = bench.add_subcommand("refine",
                                 "the finest level's refinement, cell geometry and heat tables on the GPU against "
                                 "the host: seconds and differences");
  b->add_option("--mesh", options.mesh, "mesh file (Gmsh .msh, Netgen .vol)")->required()->check(CLI::ExistingFile);
  b->add_option("--refine", options.refine, "the finest level K (>= 1): level K - 1 is refined once")->check(CLI::Range(1, 8));
  b->add_option("--formats", options.formats, "texture formats: R32F, RGBA32F")->delimiter(',');
  b->add_option("--json", options.json, "write the results as JSON to this file");
  b->callback([&globals] { run_refine_bench(options, globals); });
}

}  // namespace ss
