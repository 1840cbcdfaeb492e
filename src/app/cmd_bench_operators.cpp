// `streamsolve bench operators --mesh FILE [--refine K] [--json FILE] [--formats R32F,RGBA32F]
//                             [--no-renumber] [--min-seconds S]`
// Per mesh operator: seconds per application on the GPU (glFinish timing; once per launch path of
// `--launch`, e.g. fragment,compute) and on the CPU reference (double, OpenMP), seconds per unknown
// (thesis Figs. 5.2–5.6: unknowns = output elements), GB/s over the bytes that must move, the
// GPU/CPU ratio, the max GPU-vs-CPU difference relative to the output's max magnitude, and the copy
// ceiling of each path (GpuBackend::copy on a field with one value per face, same run, same format).
//
// Rows: the staggered mesh operators, the heat operator, the flow curl–curl viscous operator.
// TO ADD OPERATORS: write a
// function like mesh_operator_cases() below that returns OperatorCase rows (GPU and CPU closures
// over objects it keeps alive in `keep`), and append its rows where run_operator_bench() says
// "ADD OPERATORS HERE". Everything else (timing, table, JSON) is shared.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/bench_timing.hpp"
#include "app/commands.hpp"
#include "cpu/cpu_backend.hpp"
#include "gl/context.hpp"
#include "kernels/gpu_backend.hpp"
#include "mesh/load_mesh.hpp"
#include "operators/curl_curl_viscous.hpp"
#include "operators/heat_operator.hpp"
#include "operators/mesh_operators.hpp"
#include "util/atomic_file.hpp"
#include "util/error.hpp"

namespace ss {
namespace {

struct OperatorBenchOptions {
  std::string mesh;
  int refine = 0;
  bool no_renumber = false;
  std::vector<std::string> formats{"R32F", "RGBA32F"};
  double min_seconds = 0.2;
  std::string json;
};

// One row of the benchmark: an operator on one packing.
struct OperatorCase {
  std::string name;
  std::int64_t unknowns = 0;         // output elements (vector outputs: cells, not components)
  double gpu_bytes = 0;              // bytes that must move per GPU application (float = 4 B)
  std::string bytes_formula;         // how gpu_bytes is counted
  std::function<void()> gpu;         // one application (no sync)
  std::function<void()> cpu;         // one application of the CPU twin
  std::function<double()> max_rel_diff;  // after gpu() and cpu() ran: max |gpu - cpu| / max |cpu|
};

std::vector<double> random_values(std::int64_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<double> v(static_cast<size_t>(n));
  for (auto& x : v) x = double(float(u(rng)));
  return v;
}

double max_rel_diff(const std::vector<double>& gpu, const std::vector<double>& cpu) {
  SS_REQUIRE(gpu.size() == cpu.size(), "GPU and CPU results differ in size");
  double diff = 0.0, scale = 0.0;
  for (size_t i = 0; i < gpu.size(); ++i) {
    diff = std::max(diff, std::fabs(gpu[i] - cpu[i]));
    scale = std::max(scale, std::fabs(cpu[i]));
  }
  return scale > 0.0 ? diff / scale : diff;
}

// Objects the closures of one format's rows refer to; destroyed after that format is done.
struct Keep {
  std::vector<std::shared_ptr<void>> objects;
  template <typename T>
  T& add(T value) {
    auto p = std::make_shared<T>(std::move(value));
    objects.push_back(p);
    return *p;
  }
};

// The staggered-mesh operators (operators/mesh_operators.hpp). Bytes: every table and input array
// read once, the output written once (the compulsory traffic; gathers may re-read inputs).
std::vector<OperatorCase> mesh_operator_cases(GpuBackend& gpu, CpuMeshOperators& cpu_ops, const LoadedMesh& mesh,
                                              Keep& keep) {
  auto& ops = keep.add(std::make_unique<GpuMeshOperators>(gpu, mesh));
  const std::int64_t C = cpu_ops.num_cells(), F = cpu_ops.num_faces(), E = cpu_ops.num_edges();
  struct Data {
    std::vector<double> cells, cells_y, cells_z, faces, edges;
    std::vector<double> out, out_y, out_z;
    Field g_cells, g_cells_y, g_cells_z, g_faces, g_edges, g_out, g_out_y, g_out_z;
  };
  auto& d = keep.add(std::make_unique<Data>());
  d->cells = random_values(C, 1), d->cells_y = random_values(C, 2), d->cells_z = random_values(C, 3);
  d->faces = random_values(F, 4), d->edges = random_values(E, 5);
  d->g_cells = gpu.upload(d->cells), d->g_cells_y = gpu.upload(d->cells_y), d->g_cells_z = gpu.upload(d->cells_z);
  d->g_faces = gpu.upload(d->faces), d->g_edges = gpu.upload(d->edges);
  GpuMeshOperators* g = ops.get();
  Data* p = d.get();
  CpuMeshOperators* c = &cpu_ops;
  auto diff1 = [&gpu, p] { return max_rel_diff(gpu.download(p->g_out), p->out); };
  const double w = 4.0;  // bytes per float / int32 on the GPU
  std::vector<OperatorCase> rows;
  rows.push_back({"gradient", F, w * double(2 * F + C + F), "4·(2F table + C input + F output)",
                  [=] { g->gradient(p->g_cells, p->g_out); }, [=] { c->gradient(p->cells, p->out); }, diff1});
  rows.push_back({"divergence", C, w * double(4 * C + F + C), "4·(4C table + F input + C output)",
                  [=] { g->divergence(p->g_faces, p->g_out); }, [=] { c->divergence(p->faces, p->out); }, diff1});
  rows.push_back({"curl", F, w * double(3 * F + E + F), "4·(3F table + E input + F output)",
                  [=] { g->curl(p->g_edges, p->g_out); }, [=] { c->curl(p->edges, p->out); }, diff1});
  rows.push_back({"rotation", E, w * double(2 * E + 3 * F + F + E), "4·(2E start/count + 3F list + F input + E output)",
                  [=] { g->rotation(p->g_faces, p->g_out); }, [=] { c->rotation(p->faces, p->out); }, diff1});
  rows.push_back({"interpolation", C, w * double(4 * C + 12 * C + F + 3 * C),
                  "4·(4C table + 12C coefficients + F input + 3C outputs)",
                  [=] { g->interpolate(p->g_faces, p->g_out, p->g_out_y, p->g_out_z); },
                  [=] { c->interpolate(p->faces, p->out, p->out_y, p->out_z); },
                  [&gpu, p] {
                    return std::max({max_rel_diff(gpu.download(p->g_out), p->out),
                                     max_rel_diff(gpu.download(p->g_out_y), p->out_y),
                                     max_rel_diff(gpu.download(p->g_out_z), p->out_z)});
                  }});
  rows.push_back({"integration", F, w * double(2 * F + 6 * F + 3 * C + F),
                  "4·(2F table + 6F coefficients + 3C inputs + F output)",
                  [=] { g->integrate(p->g_cells, p->g_cells_y, p->g_cells_z, p->g_out); },
                  [=] { c->integrate(p->cells, p->cells_y, p->cells_z, p->out); }, diff1});
  return rows;
}

// The node-based heat operator (operators/heat_operator.hpp), conductivity 1 in every cell.
// Bytes as above: each table and input once, outputs once (float/int32 = 4 B); nnz = off-diagonal
// entries of K (2 per edge).
std::vector<OperatorCase> heat_operator_cases(GpuBackend& gpu, const LoadedMesh& mesh, Keep& keep) {
  const HeatOperatorData data =
      assemble_heat_operator(mesh, std::vector<double>(size_t(mesh.topology.num_cells), 1.0), HeatTables::all);
  auto& g = keep.add(std::make_unique<GpuHeatOperator>(gpu, data));
  auto& c = keep.add(std::make_unique<CpuHeatOperator>(data));
  const std::int64_t N = data.num_nodes, C = data.num_cells;
  // Dirichlet rows for the masked apply: the nodes of boundary group 1 (absent: none fixed).
  const std::vector<std::int32_t> fixed = boundary_group_nodes(mesh, {1});
  g->set_dirichlet(fixed);
  c->set_dirichlet(fixed);
  struct Data {
    std::vector<double> T, out, out_y, out_z;
    Field g_T, g_out, g_out_y, g_out_z, g_cx, g_cy, g_cz;
  };
  auto& d = keep.add(std::make_unique<Data>());
  d->T = random_values(N, 11);
  d->g_T = gpu.upload(d->T);
  d->g_out = gpu.make_vector(N);
  d->g_cx = gpu.make_vector(C), d->g_cy = gpu.make_vector(C), d->g_cz = gpu.make_vector(C);
  GpuHeatOperator* go = g.get();
  CpuHeatOperator* co = c.get();
  Data* p = d.get();
  auto diff1 = [&gpu, p] { return max_rel_diff(gpu.download(p->g_out), p->out); };
  const double w = 4.0;
  const std::int64_t nnz_free = std::int64_t(go->dirichlet().neighbors.size());  // K_FF entries
  std::vector<OperatorCase> rows;
  rows.push_back({"diffusion", N, go->apply_bytes(), "4·((N+1) offsets + 2·nnz neighbours/K_ij + N input + N output)",
                  [=] { go->apply(p->g_T, p->g_out); }, [=] { co->apply(p->T, p->out); }, diff1});
  rows.push_back({"diffusion_dirichlet", N, w * double((N + 1) + 2 * nnz_free + 4 * N + N),
                  "4·((N+1) offsets + 2·nnz_FF neighbours/K_ij + N input + 3N mass/shift/mask + N output)",
                  [=] { go->apply_dirichlet(p->g_T, p->g_out); }, [=] { co->apply_dirichlet(p->T, p->out); }, diff1});
  rows.push_back({"diffusion_node_cells", N, go->apply_node_cells_bytes(),
                  "4·((N+1) offsets + 4C cell ids + 16C coefficients + 4C cell nodes + N input + N output)",
                  [=] { go->apply_node_cells(p->g_T, p->g_out); }, [=] { co->apply_node_cells(p->T, p->out); }, diff1});
  rows.push_back({"mass", N, w * double(3 * N), "4·(N mass + N input + N output)",
                  [=, &gpu] { gpu.multiply(go->lumped_mass(), p->g_T, p->g_out); },
                  [=] {
                    const auto& m = co->lumped_mass();
                    p->out.resize(m.size());
                    for (size_t i = 0; i < m.size(); ++i) p->out[i] = m[i] * p->T[i];
                  },
                  diff1});
  rows.push_back({"cell_gradient", C, go->cell_gradient_bytes(), "4·(4C cell nodes + 12C ∇λ + N input + 3C outputs)",
                  [=] { go->cell_gradient(p->g_T, p->g_cx, p->g_cy, p->g_cz); },
                  [=] { co->cell_gradient(p->T, p->out, p->out_y, p->out_z); },
                  [&gpu, p] {
                    return std::max({max_rel_diff(gpu.download(p->g_cx), p->out),
                                     max_rel_diff(gpu.download(p->g_cy), p->out_y),
                                     max_rel_diff(gpu.download(p->g_cz), p->out_z)});
                  }});
  return rows;
}

// The flow curl–curl viscous operator (operators/curl_curl_viscous.hpp) with every boundary face a
// wall: its edge-mass product (the sparse kernel its Chebyshev inverse M̃_e⁻¹ repeats) and
// K = F M̃_e⁻¹ B. Bytes: the CSR tables (offsets, columns, weights) and the input read once, the
// output written once; the GPU's sliced-ELLPACK padding is its own cost and not counted.
std::vector<OperatorCase> curl_curl_cases(GpuBackend& gpu, CpuBackend& cpu, const CurlCurlViscousData& data,
                                          Keep& keep) {
  using GpuOp = CurlCurlViscous<GpuBackend>;
  using CpuOp = CurlCurlViscous<CpuBackend>;
  auto& g = keep.add(std::make_unique<GpuOp>(gpu, data));
  auto& c = keep.add(std::make_unique<CpuOp>(cpu, data));
  auto& gm = keep.add(std::make_unique<GpuSparseMatrix>(gpu, data.edge_mass));
  auto& cm = keep.add(std::make_unique<CpuSparseMatrix>(cpu, data.edge_mass));
  const std::int64_t E = data.edge_mass.rows, F = data.viscous_force.rows;
  struct Data {
    std::vector<double> edges, faces, out;
    Field g_edges, g_faces, g_out_edges, g_out_faces;
  };
  auto& d = keep.add(std::make_unique<Data>());
  d->edges = random_values(E, 21), d->faces = random_values(F, 22);
  d->g_edges = gpu.upload(d->edges), d->g_faces = gpu.upload(d->faces);
  d->g_out_edges = gpu.make_vector(E), d->g_out_faces = gpu.make_vector(F);
  Data* p = d.get();
  GpuOp* go = g.get();
  CpuOp* co = c.get();
  GpuSparseMatrix* gmp = gm.get();
  CpuSparseMatrix* cmp = cm.get();
  const double w = 4.0;
  const auto csr_bytes = [w](const SparseMatrix& m) { return w * double(m.rows + 1 + 2 * m.nonzeros() + m.cols + m.rows); };
  const double k_bytes = csr_bytes(data.vorticity_source) + csr_bytes(data.viscous_force) +
                         double(data.degree - 1) * csr_bytes(data.edge_mass);
  std::vector<OperatorCase> rows;
  rows.push_back({"edge_mass", E, csr_bytes(data.edge_mass), "4·((E+1) offsets + 2·nnz columns/weights + E input + E output)",
                  [=] { gmp->apply(p->g_edges, p->g_out_edges); }, [=] { cmp->apply(p->edges, p->out); },
                  [&gpu, p] { return max_rel_diff(gpu.download(p->g_out_edges), p->out); }});
  rows.push_back({"curl_curl_K", F, k_bytes, "CSR bytes of B, F and (degree − 1) edge-mass products",
                  [=] { go->apply(p->g_faces, p->g_out_faces); }, [=] { co->apply(p->faces, p->out); },
                  [&gpu, p] { return max_rel_diff(gpu.download(p->g_out_faces), p->out); }});
  return rows;
}

void run_operator_bench(const OperatorBenchOptions& o, const GlobalOptions& globals) {
  LoadOptions load;
  load.refine = o.refine;
  load.renumber = !o.no_renumber;
  const LoadedMesh mesh = load_mesh(o.mesh, load);
  const Topology& topo = mesh.topology;

  GlContext context(globals.gl);
  const std::vector<LaunchChoice> launches = globals.launch_choices(context);
  nlohmann::json report;
  report["device"] = context.info().renderer;
  report["gl_version"] = context.info().version;
  report["cpu_threads"] = std::thread::hardware_concurrency();
  report["mesh"] = {{"file", o.mesh}, {"refine", o.refine}, {"renumbered", mesh.report.renumbered},
                    {"nodes", topo.num_nodes}, {"tets", topo.num_cells}, {"faces", topo.num_faces},
                    {"edges", topo.num_edges}, {"boundary_faces", topo.boundary_faces.size()}};
  report["min_seconds"] = o.min_seconds;
  report["operators"] = nlohmann::json::array();
  nlohmann::json copy_by_format = nlohmann::json::object();
  nlohmann::json copy_by_launch = nlohmann::json::object();
  double copy_ceiling = 0.0;

  std::printf("mesh %s (refine %d, %s): %d nodes, %d tets, %d faces, %d edges\n", o.mesh.c_str(), o.refine,
              mesh.report.renumbered ? "renumbered" : "file order", topo.num_nodes, topo.num_cells, topo.num_faces,
              topo.num_edges);
  std::printf("%-20s %-8s %-8s %9s %11s %11s %9s %7s %11s %8s %10s\n", "operator", "format", "launch", "unknowns",
              "gpu_s", "gpu_s/unk", "gpu_GB/s", "%copy", "cpu_s", "cpu/gpu", "max_rel");
  CpuMeshOperators cpu_ops(mesh);
  CpuBackend cpu_backend;
  const CurlCurlViscousData curl_curl_data = build_curl_curl_viscous(
      mesh, std::vector<FlowBoundaryKind>(topo.boundary_faces.size(), FlowBoundaryKind::velocity));
  std::map<std::string, double> cpu_seconds;  // the CPU twin's time does not depend on the format
  for (const std::string& format : o.formats) {
    for (const LaunchChoice& choice : launches) {
      const GpuOptions& path = choice.options;
      const std::string launch = to_string(path.launch);
      LayoutOptions lo;
      lo.packing = parse_packing(format);
      GpuBackend gpu(context, lo, path);
      const auto sync = [&] { gpu.finish(); };
      const auto nothing = [] {};

      // Copy ceiling: one value per face (the largest output of the staggered operators).
      Field x = gpu.upload(random_values(topo.num_faces, 9)), z = gpu.make_vector(topo.num_faces);
      time_per_call([&] { gpu.copy(x, z); }, sync, o.min_seconds / 2);  // warm-up: clocks, programs
      const double copy_seconds = time_per_call([&] { gpu.copy(x, z); }, sync, o.min_seconds);
      const double copy_gbps = 8.0 * double(topo.num_faces) / copy_seconds / 1e9;
      copy_by_format[format] = std::max(copy_by_format.value(format, 0.0), copy_gbps);
      copy_by_launch[launch][format] = copy_gbps;
      copy_ceiling = std::max(copy_ceiling, copy_gbps);

      Keep keep;
      std::vector<OperatorCase> rows = mesh_operator_cases(gpu, cpu_ops, mesh, keep);
      // ADD OPERATORS HERE: rows.insert(rows.end(), ...) with more OperatorCase rows.
      {
        std::vector<OperatorCase> heat = heat_operator_cases(gpu, mesh, keep);
        rows.insert(rows.end(), heat.begin(), heat.end());
        std::vector<OperatorCase> curl_curl = curl_curl_cases(gpu, cpu_backend, curl_curl_data, keep);
        rows.insert(rows.end(), curl_curl.begin(), curl_curl.end());
      }

      for (OperatorCase& row : rows) {
        const double gpu_s = time_per_call(row.gpu, sync, o.min_seconds);
        if (!cpu_seconds.count(row.name)) cpu_seconds[row.name] = time_per_call(row.cpu, nothing, o.min_seconds);
        const double cpu_s = cpu_seconds[row.name];
        row.gpu();
        row.cpu();
        const double diff = row.max_rel_diff();
        const double gbps = row.gpu_bytes / gpu_s / 1e9;
        report["operators"].push_back({{"name", row.name}, {"format", format}, {"launch", launch}, {"unknowns", row.unknowns},
                                       {"gpu_seconds", gpu_s}, {"gpu_seconds_per_unknown", gpu_s / double(row.unknowns)},
                                       {"cpu_seconds", cpu_s}, {"cpu_seconds_per_unknown", cpu_s / double(row.unknowns)},
                                       {"gpu_bytes", row.gpu_bytes}, {"bytes_counted", row.bytes_formula},
                                       {"gpu_gbps", gbps}, {"percent_of_copy", 100.0 * gbps / copy_gbps},
                                       {"gpu_over_cpu", cpu_s / gpu_s}, {"max_rel_diff", diff}});
        std::printf("%-20s %-8s %-8s %9lld %11.3e %11.3e %9.2f %6.1f%% %11.3e %8.2f %10.2e\n", row.name.c_str(),
                    format.c_str(), launch.c_str(), (long long)row.unknowns, gpu_s, gpu_s / double(row.unknowns), gbps,
                    100.0 * gbps / copy_gbps, cpu_s, cpu_s / gpu_s, diff);
        std::fflush(stdout);
      }
      std::printf("%-20s %-8s %-8s %9d %11.3e %11s %9.2f (%s copy ceiling)\n", "copy", format.c_str(), launch.c_str(),
                  topo.num_faces, copy_seconds, "", copy_gbps, launch.c_str());
    }
  }
  // The best copy of this run (per format over the launch paths in copy_ceiling_gbps_by_format, per
  // path and format in copy_gbps_by_launch; each row's percent_of_copy is against its own path's
  // and format's copy).
  report["copy_ceiling_gbps"] = copy_ceiling;
  report["copy_ceiling_gbps_by_format"] = copy_by_format;
  report["copy_gbps_by_launch"] = copy_by_launch;
  describe_launches(report, launches);
  report["gpu_over_cpu_note"] = "cpu_seconds / gpu_seconds (CPU reference in double, all threads)";
  if (!o.json.empty()) write_file_atomically(o.json, report.dump(2) + "\n");
}

}  // namespace

void add_bench_operator_commands(CLI::App& bench, GlobalOptions& globals) {
  static OperatorBenchOptions options;
  auto* b = bench.add_subcommand("operators",
                                 "time the mesh operators (gradient, divergence, curl, rotation, interpolation, "
                                 "integration) and the heat operator (diffusion, mass, cell_gradient) on the GPU and the CPU reference");
  b->add_option("--mesh", options.mesh, "mesh file (Gmsh .msh, Netgen .vol)")->required()->check(CLI::ExistingFile);
  b->add_option("--refine", options.refine, "refine uniformly K times first (tets x 8^K)")->check(CLI::Range(0, 8));
  b->add_flag("--no-renumber", options.no_renumber, "keep the file's node and tet order (no locality renumbering)");
  b->add_option("--formats", options.formats, "texture formats: R32F, RGBA32F")->delimiter(',');
  b->add_option("--min-seconds", options.min_seconds, "time each measurement for at least this long");
  b->add_option("--json", options.json, "write the results as JSON to this file");
  b->callback([&globals] { run_operator_bench(options, globals); });
}

}  // namespace ss
