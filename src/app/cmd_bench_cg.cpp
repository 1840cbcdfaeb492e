// `streamsolve bench cg --mesh FILE [--refine K] [--case CASE.toml] [--json FILE] [--tolerance T]
//                       [--backends gpu,cpu] [--export-matrix FILE.mtx] [--write-solution FILE]`
//
// One steady heat problem solved by preconditioned CG (each --preconditioner: jacobi, multigrid, none;
// multigrid's setup seconds reported apart) on the GPU (float32; on each launch path the global
// --launch names, auto by default, e.g. --launch fragment,compute; each --formats packing; each
// --variants CG variant, textbook, single_sync and pipelined; each --precisions: float = one fp32 CG to
// --tolerance on its recursive residual, mixed = defect correction to a TRUE residual of
// --mixed-tolerance) and on the CPU reference (double, OpenMP, textbook, to --tolerance):
// iterations, seconds, seconds per iteration and per iteration per unknown, the true residual
// ||b̃ − K̃x||/||b̃|| of each solution recomputed in double on the CPU against the same system, and
// for the GPU the compulsory bytes of one inner iteration, their rate and its % of the copy kernel
// measured in the same run on the same backend. `residual_means` times the double residual on the
// GPU (fp64 kernel, what the solver uses) against the host round trip (read back, CPU, upload).
//
// The problem: a --case file's materials and boundary groups (steady only), or by default the
// thesis-like one (ch. 6): k = 1 everywhere, no source, the first two surface groups of the mesh
// (by id; on meshes/crank.msh the two shaft end faces journal_left and journal_right) held at
// T = 0 and T = 1, everything else insulated.
//
// The system solved is the eliminated one of src/operators/heat_operator.hpp: K̃ x = b̃, full length
// (one unknown per node), identity rows on fixed nodes, SPD. --export-matrix writes exactly that K̃
// (Matrix Market, symmetric, lower triangle, double; see app/matrix_market.hpp) and b̃ beside it as
// FILE.rhs.mtx, so that peers (tools/cg_petsc.py, tools/cg_cupy.py) solve the same system. Both
// backends start from x₀ = T_D on fixed nodes and 0 elsewhere (so r₀ = 0 on fixed rows); the peers
// use the same x₀ (it is b̃ on the identity rows, 0 elsewhere).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <omp.h>

#include "app/bench_timing.hpp"
#include "app/commands.hpp"
#include "app/matrix_market.hpp"
#include "cpu/cpu_backend.hpp"
#include "gl/context.hpp"
#include "kernels/gpu_backend.hpp"
#include "mesh/load_mesh.hpp"
#include "mesh/mesh_hierarchy.hpp"
#include "multigrid/multigrid.hpp"
#include "physics/heat_multigrid.hpp"
#include "operators/heat_operator.hpp"
#include "cases/heat_case.hpp"
#include "problems/heat_problem.hpp"
#include "physics/heat_solver.hpp"
#include "util/atomic_file.hpp"
#include "util/error.hpp"

namespace ss {
namespace {

struct CgBenchOptions {
  std::string mesh;
  std::optional<int> refine;
  std::string case_file;
  std::string json;
  std::string export_matrix;
  std::string write_solution;
  std::optional<double> tolerance;
  std::optional<int> max_iterations;
  std::vector<std::string> backends{"gpu", "cpu"};
  std::vector<std::string> formats{"R32F"};
  std::vector<std::string> variants{"textbook", "single_sync"};
  std::vector<std::string> precisions{"float", "mixed"};
  double mixed_tolerance = 1e-10;
  std::optional<double> inner_tolerance;
  bool no_renumber = false;
  std::vector<std::string> preconditioners;  // default: the case's (multigrid without a case)
  int mg_degree = 2;
  int mg_coarse_size = 2000;
};

struct CgRun {
  std::string backend, launch, device, format, variant, precision, preconditioner;
  double setup_seconds = 0;  // preconditioner setup (multigrid: host setup + uploads; Jacobi: 0)
  std::string levels;        // multigrid levels
  HeatSolveReport report;
  std::vector<double> solution;
  double true_residual = 0;
  double tolerance = 0;
  // GPU: compulsory bytes of one inner Jacobi-CG iteration and the copy kernel's rate on the same
  // backend in the same run (that path's ceiling).
  double bytes_per_iteration = 0, copy_bytes_per_second = 0;
};

// Compulsory bytes of one Jacobi-CG iteration (float32 streams, each read and write once per
// kernel; A = the operator's own bytes): textbook  apply + dot(p,q) 8n + update_pair 24n +
// ||r||² 4n + z = D⁻¹r 12n + r·z 8n + p = z + βp 12n = A + 68n; single_sync  update_pair 24n +
// u = D⁻¹r 12n + apply + dots(r,u,w) 12n + xpay_pair 24n = A + 72n; pipelined  m = D⁻¹w 12n + apply +
// dots(r,u,w) 12n + pipelined_directions 48n + pipelined_iterates 48n = A + 120n.
double cg_iteration_bytes(CgVariant variant, double operator_bytes, double n) {
  const double vectors = variant == CgVariant::pipelined ? 120.0 : variant == CgVariant::single_sync ? 72.0 : 68.0;
  return operator_bytes + vectors * n;
}

// The copy kernel's rate (bytes read + written per second) on an n-vector of this backend.
double copy_rate(GpuBackend& gpu, std::int64_t n) {
  Field x = gpu.make_vector(n), z = gpu.make_vector(n);
  gpu.fill(x, 1.0);
  const double seconds = time_per_call([&] { gpu.copy(x, z); }, [&] { gpu.finish(); }, 0.2);
  return 8.0 * double(n) / seconds;
}

// The means of the double residual, measured (once per GPU configuration): on the GPU (fp64 kernel
// on float pairs, what the solver uses) against the host alternative (read x back, the CPU twin's
// double apply, upload r).
nlohmann::json measure_residual_means(GpuBackend& gpu, GpuHeatOperator& op, CpuHeatOperator& reference,
                                      const HeatProblem& problem) {
  const std::int64_t n = op.num_nodes();
  op.set_dirichlet(problem.dirichlet_nodes);
  std::vector<double> hx(size_t(n), 0.0), hf(size_t(n), 0.0);
  reference.write_dirichlet_values(hx, problem.dirichlet_values);
  GpuBackend::PreciseVector X = gpu.upload_precise(hx), F = gpu.upload_precise(problem.load), out = gpu.make_precise(n);
  const double gpu_seconds = time_per_call([&] { op.residual_precise(0.0, 1.0, F, X, out, false); },
                                           [&] { gpu.finish(); }, 0.2);
  std::vector<double> host_r;
  Field r = gpu.make_vector(n);
  const double host_seconds = time_per_call(
      [&] {
        const std::vector<double> x = gpu.download_precise(X);
        reference.residual_precise(0.0, 1.0, problem.load, x, host_r, false);
        r = gpu.upload(host_r);
      },
      [&] { gpu.finish(); }, 0.2);
  return {{"gpu_fp64_seconds", gpu_seconds},
          {"gpu_fp64_bytes", op.residual_precise_bytes()},
          {"host_double_seconds", host_seconds},
          {"chosen", "gpu_fp64"}};
}

// CG progress on stderr, at most four lines a second.
class Progress {
public:
  explicit Progress(std::string label) : label_(std::move(label)) {}
  void operator()(int iteration, double residual, double seconds) {
    if (seconds - last_ < 0.25 && iteration > 1) return;
    last_ = seconds;
    std::fprintf(stderr, "streamsolve: bench cg: %s: iteration %d, relative residual %.3e, %.2f s\n", label_.c_str(),
                 iteration, residual, seconds);
  }

private:
  std::string label_;
  double last_ = -1.0;
};

// K̃ (steady: a = 0, s = 1) as a lower-triangle CSR in double, from the operator's elimination
// tables: free rows hold K_ij for free j < i and the diagonal K_ii; fixed rows hold the 1.
LowerCsr eliminated_system(CpuHeatOperator& op) {
  const HeatDirichletData& e = op.dirichlet();
  const std::vector<double> diagonal = op.system_diagonal(0.0, 1.0);
  const std::int64_t n = op.num_nodes();
  LowerCsr m;
  m.rows = n;
  m.offsets.reserve(size_t(n) + 1);
  m.offsets.push_back(0);
  for (std::int64_t i = 0; i < n; ++i) {
    if (e.fixed[size_t(i)] == 0) {
      for (std::int32_t k = e.offsets[size_t(i)]; k < e.offsets[size_t(i) + 1]; ++k) {
        const std::int32_t j = e.neighbors[size_t(k)];
        if (j >= i) continue;  // the upper triangle is implied (K̃ is symmetric)
        m.columns.push_back(j);
        m.values.push_back(e.coefficients[size_t(k)]);
      }
    }
    m.columns.push_back(std::int32_t(i));
    m.values.push_back(diagonal[size_t(i)]);
    m.offsets.push_back(std::int64_t(m.values.size()));
  }
  return m;
}

// The exported matrix must be the operator CG applies: compare K̃x both ways for a random x.
void check_exported_system(const LowerCsr& m, CpuHeatOperator& op) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<double> x(size_t(m.rows));
  for (double& v : x) v = u(rng);
  const std::vector<double> from_matrix = m.multiply(x);
  std::vector<double> from_operator;
  op.apply_system(0.0, 1.0, x, from_operator);
  double diff = 0, scale = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    diff = std::max(diff, std::fabs(from_matrix[i] - from_operator[i]));
    scale = std::max(scale, std::fabs(from_operator[i]));
  }
  // Both sum the same ~15 double products per row in different orders and forms (K_ij x_j versus
  // K_ij (x_j − x_i)): agreement to ~1e-15 of the largest value; 1e-12 leaves room, while a wrong
  // entry shows up at O(1).
  SS_REQUIRE(diff <= 1e-12 * scale, "internal: exported matrix differs from the operator (max |diff| " << diff
                                                                                                       << ", scale " << scale << ")");
}

template <class Backend, class Operator>
CgRun run_cg(Backend& backend, Operator& op, const HeatProblem& base_problem, const std::string& name,
             const std::string& launch, const std::string& device, CpuHeatOperator& reference,
             const std::vector<double>& exact_rhs, const std::string& preconditioner, const GeometricLevels* levels,
             const MultigridOptions& mg_options) {
  HeatProblem problem = base_problem;
  problem.jacobi = preconditioner == "jacobi";
  problem.multigrid = preconditioner == "multigrid";
  const std::string variant = to_string(problem.variant), precision = problem.mixed ? "mixed" : "float";
  // The multigrid is built on first use (in the warm-up; setup seconds measured there, with a
  // finish()) and reused by the timed solve.
  MultigridStats stats;
  const PreconditionerFactory<typename Backend::Vector> factory =
      problem.multigrid ? multigrid_factory(backend, op, levels, mg_options, &stats)
                        : PreconditionerFactory<typename Backend::Vector>{};
  // Warm-up (programs compiled and textures allocated on the GPU, threads started on the CPU): a
  // few iterations, not timed.
  {
    HeatProblem warm = problem;
    warm.max_iterations = 3;
    HeatSolveReport ignored;
    solve_heat(backend, op, warm, ignored, {}, factory);
  }
  CgRun run;
  run.backend = name;
  run.launch = launch;
  run.device = device;
  run.preconditioner = preconditioner;
  run.setup_seconds = stats.setup_seconds;
  run.levels = stats.levels;
  run.variant = variant;
  run.precision = precision;
  run.tolerance = problem.tolerance;
  Progress progress((launch.empty() ? name : name + " " + launch) + " " + preconditioner + " " + variant + " " +
                    precision);
  HeatSolveHooks hooks;
  hooks.progress = [&](int k, double r, double s) { progress(k, r, s); };
  run.solution = solve_heat(backend, op, problem, run.report, hooks, factory);
  // The true residual against the double-precision b̃ (the GPU's own b̃ is float).
  HeatSolveReport exact = run.report;
  exact.last_rhs = exact_rhs;
  run.true_residual = true_relative_residual(reference.data(), problem.dirichlet_nodes, exact, run.solution);
  return run;
}

void run_cg_bench(const CgBenchOptions& o, const GlobalOptions& globals) {
  for (const std::string& b : o.backends)
    SS_REQUIRE(b == "gpu" || b == "cpu", "--backends: unknown backend '" << b << "' (gpu, cpu)");
  SS_REQUIRE(!o.backends.empty() && o.backends.size() <= 2 && (o.backends.size() == 1 || o.backends[0] != o.backends[1]),
             "--backends: give gpu, cpu or gpu,cpu");
  SS_REQUIRE(!o.mesh.empty() || !o.case_file.empty(), "bench cg needs --mesh FILE or --case CASE.toml");

  // 1. The problem: a case file (its mesh unless --mesh is given), or the default two-ends one.
  HeatCase heat_case;
  const bool default_problem = o.case_file.empty();
  if (!default_problem) {
    heat_case = read_heat_case(o.case_file);
    SS_REQUIRE(!heat_case.time, o.case_file << ": bench cg solves a steady problem; this case has a [time] table");
  } else {
    heat_case.path = "bench cg";
    heat_case.material = Material{};  // k = 1, no source
  }
  if (!o.mesh.empty()) heat_case.mesh_file = o.mesh;
  if (o.refine) heat_case.refine = *o.refine;
  if (o.tolerance) heat_case.tolerance = *o.tolerance;
  if (o.max_iterations) heat_case.max_iterations = *o.max_iterations;
  if (o.inner_tolerance) heat_case.inner_tolerance = *o.inner_tolerance;
  SS_REQUIRE(o.mixed_tolerance > 0 && o.mixed_tolerance < 1, "--mixed-tolerance must be in (0, 1)");
  SS_REQUIRE(heat_case.tolerance > 0 && heat_case.tolerance < 1, "--tolerance must be in (0, 1)");
  SS_REQUIRE(heat_case.max_iterations > 0, "--max-iterations must be positive");

  std::vector<std::string> preconditioners = o.preconditioners;
  if (preconditioners.empty()) preconditioners.push_back(heat_case.multigrid ? "multigrid" : heat_case.jacobi ? "jacobi" : "none");
  for (const std::string& p : preconditioners)
    SS_REQUIRE(p == "jacobi" || p == "multigrid" || p == "none",
               "--preconditioner: unknown preconditioner '" << p << "' (jacobi, multigrid, none)");
  const bool multigrid = std::find(preconditioners.begin(), preconditioners.end(), "multigrid") != preconditioners.end();
  MultigridOptions mg_options;
  mg_options.smoother_degree = o.mg_degree;
  mg_options.coarse_size = o.mg_coarse_size;

  LoadOptions load;
  load.refine = heat_case.refine;
  load.renumber = !o.no_renumber;
  if (o.mesh.empty()) load.surfaces = heat_case.surfaces;  // (another mesh need not have the case's groups)
  // Multigrid keeps every level of the refinement (the finest is the mesh load_mesh gives).
  MeshHierarchy hierarchy;
  if (multigrid) hierarchy = load_mesh_hierarchy(heat_case.mesh_file, load);
  else hierarchy.levels.push_back(load_mesh(heat_case.mesh_file, load));
  const LoadedMesh& mesh = hierarchy.finest();

  if (default_problem) {
    std::vector<std::int32_t> groups;
    for (std::int32_t f : mesh.topology.boundary_faces) groups.push_back(mesh.topology.face_groups[f]);
    std::sort(groups.begin(), groups.end());
    groups.erase(std::unique(groups.begin(), groups.end()), groups.end());
    groups.erase(std::remove(groups.begin(), groups.end(), 0), groups.end());
    SS_REQUIRE(groups.size() >= 2, heat_case.mesh_file << ": the default bench cg problem needs two surface groups "
                                                          "(the ends held at T = 0 and T = 1); give --case CASE.toml");
    for (int k = 0; k < 2; ++k) {
      BoundaryCondition bc;
      bc.group = std::to_string(groups[size_t(k)]);
      bc.type = BoundaryCondition::Type::dirichlet;
      bc.value = double(k);
      heat_case.boundaries.push_back(bc);
    }
  }
  const HeatProblem problem = build_heat_problem(heat_case, mesh);
  const GeometricLevels levels = multigrid ? heat_geometric_levels(heat_case, hierarchy) : GeometricLevels{};
  SS_REQUIRE(!problem.dirichlet_nodes.empty(),
             heat_case.path << ": bench cg needs a Dirichlet group (a steady problem without one is singular)");
  const std::int64_t n = std::int64_t(mesh.mesh.nodes.size());
  const std::int64_t fixed = std::int64_t(problem.dirichlet_nodes.size());

  nlohmann::json boundary = nlohmann::json::array();
  for (const BoundaryCondition& bc : heat_case.boundaries) {
    std::int32_t id = 0;
    std::string label = bc.group;
    if (default_problem) {
      id = std::stoi(bc.group);
      label = surface_group_label(mesh.mesh, id);
    }
    boundary.push_back({{"group", label},
                        {"type", bc.type == BoundaryCondition::Type::dirichlet ? "dirichlet" : "neumann"},
                        {"value", bc.value.is_constant() ? nlohmann::json(bc.value(0, 0, 0))
                                                          : nlohmann::json(bc.value.text())}});
  }
  std::fprintf(stderr, "streamsolve: bench cg: %lld nodes (%lld fixed), %zu tets; %s\n", (long long)n,
               (long long)fixed, mesh.mesh.tets.size(), boundary.dump().c_str());

  // 2. The operator in double, K̃ and b̃ in double (the system every backend and peer solves).
  const HeatOperatorData data = assemble_heat_system(mesh, problem);  // K (k per cell); M unused (steady)
  CpuHeatOperator reference(data);
  reference.set_dirichlet(problem.dirichlet_nodes);
  std::vector<double> exact_rhs;
  {
    std::vector<double> x0(size_t(n), 0.0);
    reference.write_dirichlet_values(x0, problem.dirichlet_values);
    reference.dirichlet_rhs(problem.load, x0, 1.0, exact_rhs);
  }

  nlohmann::json report;
  nlohmann::json matrix_info = nullptr;
  if (!o.export_matrix.empty()) {
    const LowerCsr system = eliminated_system(reference);
    check_exported_system(system, reference);
    const std::string what = "streamsolve bench cg: steady heat K~ x = b~ on " + heat_case.mesh_file + " refine " +
                             std::to_string(heat_case.refine) + " (" + std::to_string(n) + " nodes, " +
                             std::to_string(fixed) + " fixed: identity rows)";
    write_matrix_market(o.export_matrix, system,
                        {what, "symmetric: lower triangle only; rhs in " + o.export_matrix + ".rhs.mtx",
                         "initial guess: x0 = b~ on identity rows (the fixed nodes), 0 elsewhere"});
    write_matrix_market_vector(o.export_matrix + ".rhs.mtx", exact_rhs, {what + ": right-hand side b~"});
    matrix_info = {{"file", o.export_matrix},
                   {"rhs", o.export_matrix + ".rhs.mtx"},
                   {"format", "Matrix Market coordinate real symmetric (lower triangle), double"},
                   {"rows", n},
                   {"nnz_lower", system.values.size()},
                   {"nnz", 2 * std::int64_t(system.values.size()) - n}};
    std::fprintf(stderr, "streamsolve: bench cg: wrote %s (%zu lower-triangle entries) and %s.rhs.mtx\n",
                 o.export_matrix.c_str(), system.values.size(), o.export_matrix.c_str());
  }

  // 3. Solve on each backend.
  std::vector<CgRun> runs;
  nlohmann::json residual_means = nlohmann::json::array();
  std::optional<GlContext> context;
  std::vector<LaunchChoice> launches;  // --launch's paths on this device (when the GPU runs)
  for (const std::string& b : o.backends) {
    if (b == "gpu") {
      if (!context) {
        context.emplace(globals.gl);
        launches = globals.launch_choices(*context);
      }
      for (const std::string& format : o.formats) {
        for (const LaunchChoice& choice : launches) {  // --launch auto|fragment|compute, or a list
          const GpuOptions& path = choice.options;
          LayoutOptions layout;
          layout.packing = parse_packing(format);
          GpuBackend gpu(*context, layout, path);
          GpuHeatOperator op(gpu, data);
          const std::string launch = to_string(path.launch);
          const std::string device = context->info().renderer + " (" + launch + ", " + format + ")";
          residual_means.push_back(measure_residual_means(gpu, op, reference, problem));
          residual_means.back()["launch"] = launch;
          residual_means.back()["format"] = format;
          const double copy = copy_rate(gpu, n);
          for (const std::string& pre : preconditioners) {
            for (const std::string& variant : o.variants) {
              for (const std::string& precision : o.precisions) {
                HeatProblem p = problem;
                p.variant = parse_cg_variant(variant);
                p.mixed = precision == "mixed";
                if (p.mixed) p.tolerance = o.mixed_tolerance;
                runs.push_back(run_cg(gpu, op, p, "gpu", launch, device, reference, exact_rhs, pre, &levels, mg_options));
                runs.back().format = format;
                runs.back().copy_bytes_per_second = copy;
                op.set_dirichlet(problem.dirichlet_nodes);
                runs.back().bytes_per_iteration = cg_iteration_bytes(p.variant, op.apply_system_bytes(), double(n));
              }
            }
          }
        }
      }
    } else {
      // The reference: double, textbook CG inside the (one-correction) refinement loop, to --tolerance.
      CpuBackend cpu;
      CpuHeatOperator op(data);
      HeatProblem p = problem;
      p.variant = CgVariant::textbook;
      p.mixed = true;
      for (const std::string& pre : preconditioners)
        runs.push_back(run_cg(cpu, op, p, "cpu", "",
                              "CPU reference (double, " + std::to_string(omp_get_max_threads()) + " threads)", reference,
                              exact_rhs, pre, &levels, mg_options));
    }
  }

  // 4. Report.
  report["device"] = context ? context->info().renderer : runs.front().device;
  report["mesh"] = {{"file", heat_case.mesh_file},       {"refine", heat_case.refine},
                    {"nodes", n},                        {"tets", mesh.mesh.tets.size()},
                    {"renumbered", mesh.report.renumbered}};
  report["problem"] = {{"case", default_problem ? nlohmann::json(nullptr) : nlohmann::json(heat_case.path)},
                       {"boundary", boundary},
                       {"fixed_nodes", fixed},
                       {"preconditioner", preconditioners.front()},
                       {"preconditioners", preconditioners},
                       {"tolerance", problem.tolerance},
                       {"mixed_tolerance", o.mixed_tolerance},
                       {"inner_tolerance", problem.inner_tolerance},
                       {"max_iterations", problem.max_iterations},
                       {"stopping_test", "float: recursive ||r|| / ||b~|| <= tolerance (one fp32 CG); mixed: true "
                                         "||b~ - K~x|| / ||b~|| (double) <= mixed_tolerance by defect correction; "
                                         "x0 = b~ on fixed rows, 0 elsewhere"}};
  report["residual_means"] = residual_means;
  if (context) describe_launches(report, launches);
  report["unknowns"] = n;
  report["free_unknowns"] = n - fixed;
  report["matrix"] = matrix_info;
  report["results"] = nlohmann::json::array();
  std::printf("bench cg: %s refine %d: %lld unknowns (%lld fixed), CG to %.0e (mixed: %.0e)\n",
              heat_case.mesh_file.c_str(), heat_case.refine, (long long)n, (long long)fixed, problem.tolerance,
              o.mixed_tolerance);
  std::printf("%-40s %-9s %10s %9s %11s %11s %9s %11s %11s\n", "run", "precond", "iterations", "setup_s", "solve_s",
              "s/iteration", "% of copy", "rel_res", "true_res");
  const auto cpu_run = std::find_if(runs.begin(), runs.end(), [](const CgRun& r) { return r.backend == "cpu"; });
  for (const CgRun& r : runs) {
    const int it = r.report.iterations;
    const double per_iteration = it > 0 ? r.report.solve_seconds / it : 0.0;
    nlohmann::json row = {{"backend", r.backend},
                          {"launch", r.launch.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.launch)},
                          {"device", r.device},
                          {"preconditioner", r.preconditioner},
                          {"setup_seconds", r.setup_seconds},
                          {"time_to_solution_seconds", r.setup_seconds + r.report.solve_seconds},
                          {"multigrid_levels", r.levels.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.levels)},
                          {"converged", r.report.converged},
                          {"stop_reason", r.report.stop_reason},
                          {"iterations", it},
                          {"seconds", r.report.solve_seconds},
                          {"seconds_per_iteration", per_iteration},
                          {"seconds_per_iteration_per_unknown", per_iteration / double(n)},
                          {"relative_residual", r.report.relative_residual},
                          {"true_relative_residual", r.true_residual},
                          {"variant", r.variant},
                          {"cg_fall_backs", r.report.cg_fall_backs},
                          {"precision", r.precision},
                          {"tolerance", r.tolerance},
                          {"outer_corrections", r.report.outer_corrections},
                          {"inner_iterations", r.report.inner_iterations}};
    double percent = 0;
    if (r.backend == "gpu") {
      row["format"] = r.format;
      const double rate = per_iteration > 0 ? r.bytes_per_iteration / per_iteration : 0.0;
      percent = r.copy_bytes_per_second > 0 ? 100.0 * rate / r.copy_bytes_per_second : 0.0;
      row["bytes_per_iteration"] = r.bytes_per_iteration;
      row["bytes_per_second"] = rate;
      row["copy_bytes_per_second"] = r.copy_bytes_per_second;
      row["percent_of_copy"] = percent;
    }
    if (r.backend == "gpu" && cpu_run != runs.end()) {
      // The solution's difference from the CPU reference's, absolute and relative to the range of T.
      const CgRun& other = *cpu_run;
      double diff = 0, lo = other.solution[0], hi = lo;
      for (size_t i = 0; i < r.solution.size(); ++i) {
        diff = std::max(diff, std::fabs(r.solution[i] - other.solution[i]));
        lo = std::min(lo, other.solution[i]);
        hi = std::max(hi, other.solution[i]);
      }
      row["max_abs_diff_vs_" + other.backend] = diff;
      row["max_rel_diff_vs_" + other.backend] = hi > lo ? diff / (hi - lo) : diff;
    }
    report["results"].push_back(row);
    const std::string label = (r.launch.empty() ? r.backend : r.backend + " " + r.launch + " " + r.format) + " " +
                              r.variant + " " + r.precision;
    std::printf("%-40s %-9s %10d %9.4g %11.4g %11.4g %9.1f %11.3e %11.3e%s%s\n", label.c_str(),
                r.preconditioner.c_str(), it, r.setup_seconds, r.report.solve_seconds, per_iteration, percent,
                r.report.relative_residual, r.true_residual, r.levels.empty() ? "" : ("  levels " + r.levels).c_str(),
                r.report.converged ? "" : ("  NOT CONVERGED: " + r.report.stop_reason).c_str());
  }
  if (!o.json.empty()) write_file_atomically(o.json, report.dump(2) + "\n");

  if (!o.write_solution.empty()) {
    // The CPU reference's solution when it ran (the double one), otherwise the GPU's.
    const CgRun& r = cpu_run != runs.end() ? *cpu_run : runs.front();
    write_matrix_market_vector(o.write_solution, r.solution,
                               {"streamsolve bench cg: solution x of K~ x = b~ (" + r.backend + ", " + r.device +
                                ", " + std::to_string(r.report.iterations) + " iterations)"});
  }
  for (const CgRun& r : runs)
    SS_REQUIRE(r.report.converged, r.backend << " CG did not converge: " << r.report.stop_reason << " after "
                                             << r.report.iterations << " iterations");
}

}  // namespace

void add_bench_cg_command(CLI::App& bench, GlobalOptions& globals) {
  static CgBenchOptions o;
  auto* b = bench.add_subcommand("cg", "time CG + Jacobi on a steady heat problem on the GPU and the CPU reference; "
                                       "export the system for other solvers");
  b->add_option("--mesh", o.mesh, "mesh file (Gmsh .msh, Netgen .vol); default with --case: the case's mesh")
      ->check(CLI::ExistingFile);
  b->add_option("--refine", o.refine, "refine uniformly K times first (tets x 8^K)")->check(CLI::Range(0, 8));
  b->add_option("--case", o.case_file, "steady heat case (TOML) for materials and boundary groups; default: the "
                                       "first two surface groups at T = 0 and 1, k = 1")
      ->check(CLI::ExistingFile);
  b->add_option("--tolerance", o.tolerance, "stop when ||r|| / ||b|| <= this (default 1e-6 or the case's)");
  b->add_option("--max-iterations", o.max_iterations, "iteration limit (default 20000 or the case's)");
  b->add_option("--backends", o.backends, "gpu, cpu or both (comma separated)")->delimiter(',');
  b->add_option("--format,--formats", o.formats, "GPU texture formats: R32F, RGBA32F or both (comma separated)")
      ->delimiter(',')
      ->check(CLI::IsMember({"R32F", "RGBA32F"}));
  b->add_option("--variants", o.variants, "CG variants on the GPU: textbook, single_sync, pipelined (comma separated)")
      ->delimiter(',')
      ->check(CLI::IsMember({"textbook", "single_sync", "pipelined"}));
  b->add_option("--precisions", o.precisions,
                "GPU runs: float (one fp32 CG to --tolerance), mixed (defect correction to --mixed-tolerance) or both")
      ->delimiter(',')
      ->check(CLI::IsMember({"float", "mixed"}));
  b->add_option("--mixed-tolerance", o.mixed_tolerance, "true relative residual of the mixed runs (default 1e-10)");
  b->add_option("--inner-tolerance", o.inner_tolerance, "relative reduction of each inner solve (default 1e-5 or the case's)");
  b->add_option("--preconditioner", o.preconditioners,
                "CG preconditioners to run, comma separated: jacobi, multigrid, none (default: the case's, else multigrid)")
      ->delimiter(',');
  b->add_option("--mg-degree", o.mg_degree, "multigrid: Chebyshev smoother degree (default 2)")->check(CLI::Range(1, 8));
  b->add_option("--mg-coarse-size", o.mg_coarse_size, "multigrid: direct solve at or below this many unknowns (default 2000)")
      ->check(CLI::Range(1, 1000000));
  b->add_flag("--no-renumber", o.no_renumber, "keep the file's node order (no locality renumbering)");
  b->add_option("--json", o.json, "write the results as JSON to this file");
  b->add_option("--export-matrix", o.export_matrix,
                "write K~ (Matrix Market, symmetric lower triangle, double) here and b~ to FILE.rhs.mtx");
  b->add_option("--write-solution", o.write_solution,
                "write the CPU reference's solution (the GPU's without cpu) as a Matrix Market array");
  b->callback([&globals] { run_cg_bench(o, globals); });
}

}  // namespace ss
