// `streamsolve bench refine --mesh FILE --refine K [--formats R32F,RGBA32F] [--json FILE]`
// The finest level's refinement and cell geometry (issue 13, item 4): level K - 1 is loaded on the
// host as `heat`/`flow` load it, then level K is made
//   - on the host: refine_once + the cells' volumes and centroids in double (the CPU twin), and
//   - on the GPU (each --launch path and format): upload of level K - 1's tables + the refinement
//     kernels (operators/gpu_refinement.hpp), timed to glFinish,
// and the GPU's fine mesh is compared with the host's: identical connectivity, max differences.
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
#include "operators/gpu_refinement.hpp"
#include "util/atomic_file.hpp"
#include "util/error.hpp"

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
  // 1. Level K - 1 on the host, with the edge tables the refinement reads.
  LoadOptions load;
  load.refine = o.refine - 1;
  load.tables = TopologyTables::edges;
  const LoadedMesh coarse = load_mesh(o.mesh, load);
  const Topology& topo = coarse.topology;

  // 2. Level K on the host (the CPU twin), timed.
  TetMesh fine;
  std::vector<double> volumes;
  std::vector<glm::dvec3> centroids;
  const double cpu_refine = seconds_of([&] { fine = refine_once(coarse.mesh, topo, RefineNumbering::interleaved); });
  const double cpu_geometry = seconds_of([&] { cell_volumes_and_centroids(fine, volumes, centroids); });

  GlContext context(globals.gl);
  nlohmann::json report;
  report["device"] = context.info().renderer;
  report["cpu_threads"] = std::thread::hardware_concurrency();
  report["mesh"] = {{"file", o.mesh}, {"refine", o.refine}, {"coarse_nodes", topo.num_nodes}, {"coarse_tets", topo.num_cells},
                    {"fine_nodes", fine.nodes.size()}, {"fine_tets", fine.tets.size()}};
  report["cpu"] = {{"refine_seconds", cpu_refine}, {"cell_geometry_seconds", cpu_geometry},
                   {"seconds", cpu_refine + cpu_geometry}};
  report["gpu"] = nlohmann::json::array();
  std::printf("mesh %s, level %d -> %d: %d -> %zu nodes, %d -> %zu tets\n", o.mesh.c_str(), o.refine - 1, o.refine,
              topo.num_nodes, fine.nodes.size(), topo.num_cells, fine.tets.size());
  std::printf("cpu: refine_once %.3f s + cell volumes and centroids %.3f s = %.3f s\n", cpu_refine, cpu_geometry,
              cpu_refine + cpu_geometry);
  std::printf("%-8s %-8s %8s %8s %8s %13s %9s %9s %9s %s\n", "format", "launch", "first_s", "gpu_s", "cpu/gpu",
              "wrong_corners", "coords", "volumes", "centroids", "not float(cpu): coords/volumes/centroids");
  bool all_identical = true;
  for (const std::string& format : o.formats) {
    for (const GpuOptions& path : globals.gpu_options_list()) {
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
      // 4. The comparison with the host's level K.
      const RefinementDifferences d = compare_with_reference(gpu, result, fine);
      SS_REQUIRE(d.sizes_match, "bench refine: the GPU's fine mesh has another size than the host's");
      all_identical = all_identical && d.wrong_corners == 0;
      const double cpu_seconds = cpu_refine + cpu_geometry;
      report["gpu"].push_back({{"format", format}, {"launch", to_string(path.launch)}, {"first_seconds", first},
                               {"seconds", seconds}, {"cpu_over_gpu", cpu_seconds / seconds},
                               {"wrong_corners", d.wrong_corners}, {"coordinates_max_rel_diff", d.coordinates},
                               {"volumes_max_rel_diff", d.volumes}, {"centroids_max_rel_diff", d.centroids},
                               {"not_float_of_cpu", {{"coordinates", d.inexact_coordinates}, {"volumes", d.inexact_volumes}, {"centroids", d.inexact_centroids}}}});
      std::printf("%-8s %-8s %8.3f %8.3f %8.2f %13lld %9.2e %9.2e %9.2e %lld/%lld/%lld\n", format.c_str(),
                  to_string(path.launch), first, seconds, cpu_seconds / seconds, (long long)d.wrong_corners, d.coordinates,
                  d.volumes, d.centroids, (long long)d.inexact_coordinates, (long long)d.inexact_volumes,
                  (long long)d.inexact_centroids);
      std::fflush(stdout);
    }
  }
  report["gpu_seconds_note"] = "upload of level K-1's tables + refinement kernels, to glFinish (second run; first_seconds compiles)";
  if (!o.json.empty()) write_file_atomically(o.json, report.dump(2) + "\n");
  SS_REQUIRE(all_identical, "bench refine: the GPU's fine connectivity differs from the host's (see the table)");
}

}  // namespace

void add_bench_refine_command(CLI::App& bench, GlobalOptions& globals) {
  static RefineBenchOptions options;
  auto* b = bench.add_subcommand("refine",
                                 "the finest level's refinement and cell geometry on the GPU against the host "
                                 "(refine_once): seconds and differences");
  b->add_option("--mesh", options.mesh, "mesh file (Gmsh .msh, Netgen .vol)")->required()->check(CLI::ExistingFile);
  b->add_option("--refine", options.refine, "the finest level K (>= 1): level K - 1 is refined once")->check(CLI::Range(1, 8));
  b->add_option("--formats", options.formats, "texture formats: R32F, RGBA32F")->delimiter(',');
  b->add_option("--json", options.json, "write the results as JSON to this file");
  b->callback([&globals] { run_refine_bench(options, globals); });
}

}  // namespace ss
