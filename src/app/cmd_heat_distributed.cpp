// The heat command over MPI ranks (`mpirun -np N streamsolve heat CASE.toml`), thesis ch. 8.
//
//   rank 0: read the case and the mesh (refined as asked), build the heat problem on the whole mesh
//           (loads, materials, Dirichlet values: every shared node gets one value), METIS k-way
//           partition of the tets, and send each rank its piece (src/parallel/partition.hpp) with
//           the problem's numbers on it.
//   every rank: open its GPU (local rank mod devices, --gpu overrides) or the CPU reference before
//           anything else (a rank that cannot start stops the job at once), prepare the piece
//           (topology, geometry), assemble its operator, and solve with the unchanged CG over a
//           DistributedBackend (owner-marker reductions) and the halo-overlapped operator.
//   every rank: writes its piece of the final field (owned tets, `rank` per tet, `owner` per node),
//           "heat_piece_<rank>.vtu"; with --single-vtu none (rank 0 gathers one VTU instead).
//   rank 0: gathers T (owned nodes), the heat flux (owned tets) and per-rank timings, and writes
//           "heat.pvtu" indexing the pieces (or the one VTU), the PNG and the JSON summary.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>

#include <mpi.h>
#include <nlohmann/json.hpp>

#include "app/heat_distributed.hpp"
#include "app/solve_command.hpp"
#include "cpu/cpu_backend.hpp"
#include "gl/context.hpp"
#include "mesh/load_mesh.hpp"
#include "mesh/vtu.hpp"
#include "operators/heat_operator.hpp"
#include "parallel/collect.hpp"
#include "parallel/distributed_backend.hpp"
#include "parallel/distributed_heat_operator.hpp"
#include "parallel/halo.hpp"
#include "parallel/message.hpp"
#include "parallel/mpi_env.hpp"
#include "parallel/partition.hpp"
#include "parallel/rank_report.hpp"
#include "physics/heat_case.hpp"
#include "physics/heat_problem.hpp"
#include "physics/heat_solver.hpp"
#include "render/render_surface.hpp"
#include "solver/cg.hpp"
#include "util/atomic_file.hpp"
#include "util/error.hpp"
#include "util/host_memory.hpp"

namespace ss {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

constexpr int piece_tag = 11;

// What rank 0 sends each rank: its piece and the heat problem's numbers on it.
struct LocalHeat {
  RankPiece piece;
  std::vector<double> conductivity, heat_capacity;  // per local tet
  std::vector<double> load;                         // per local node (assembled on the whole mesh)
  std::vector<char> fixed;                          // per local node: Dirichlet
  std::vector<double> fixed_values;                 // per local node (0 where free)
  std::vector<double> initial;                      // per local node: T⁰ (transient)
  double tolerance = 1e-6;
  int max_iterations = 20000;
  char jacobi = 1, transient = 0, mixed = 1;
  double inner_tolerance = 1e-5;
  std::int32_t variant = 1;  // CgVariant
  TimeSettings time;
  int output_every = 10;
};

std::vector<char> pack(const LocalHeat& h) {
  Packer p;
  const MeshPartition& m = h.piece.part;
  p.put(m.mesh.source);
  p.put(m.mesh.nodes);
  p.put(m.mesh.tets);
  p.put(m.mesh.tet_groups);
  p.put(m.node_global);
  p.put(m.tet_global);
  p.put(m.owned_nodes);
  p.put(m.owned_tets);
  p.put(h.piece.node_owner);
  p.put(std::uint64_t(h.piece.links.size()));
  for (const HaloLink& l : h.piece.links) {
    p.put(l.rank);
    p.put(l.send);
    p.put(l.recv);
  }
  p.put(h.conductivity);
  p.put(h.heat_capacity);
  p.put(h.load);
  p.put(h.fixed);
  p.put(h.fixed_values);
  p.put(h.initial);
  p.put(h.tolerance);
  p.put(h.max_iterations);
  p.put(h.jacobi);
  p.put(h.mixed);
  p.put(h.inner_tolerance);
  p.put(h.variant);
  p.put(h.transient);
  p.put(h.time);
  p.put(h.output_every);
  return std::move(p.bytes());
}

LocalHeat unpack(const std::vector<char>& bytes) {
  Unpacker u(bytes);
  LocalHeat h;
  MeshPartition& m = h.piece.part;
  u.get(m.mesh.source);
  u.get(m.mesh.nodes);
  u.get(m.mesh.tets);
  u.get(m.mesh.tet_groups);
  u.get(m.node_global);
  u.get(m.tet_global);
  u.get(m.owned_nodes);
  u.get(m.owned_tets);
  u.get(h.piece.node_owner);
  std::uint64_t links = 0;
  u.get(links);
  h.piece.links.resize(size_t(links));
  for (HaloLink& l : h.piece.links) {
    u.get(l.rank);
    u.get(l.send);
    u.get(l.recv);
  }
  u.get(h.conductivity);
  u.get(h.heat_capacity);
  u.get(h.load);
  u.get(h.fixed);
  u.get(h.fixed_values);
  u.get(h.initial);
  u.get(h.tolerance);
  u.get(h.max_iterations);
  u.get(h.jacobi);
  u.get(h.mixed);
  u.get(h.inner_tolerance);
  u.get(h.variant);
  u.get(h.transient);
  u.get(h.time);
  u.get(h.output_every);
  return h;
}

// Rank 0's view of the whole run.
struct Root {
  HeatCase heat_case;
  LoadedMesh mesh;
  HeatProblem problem;
  std::vector<std::int32_t> tet_part, node_owner;
  std::vector<std::vector<std::int64_t>> owned_node_ids, owned_tet_ids;  // per rank, in its local order
  double load_seconds = 0, partition_seconds = 0, distribute_seconds = 0;
};

struct LocalRun {
  HeatSolveReport report;
  std::vector<double> temperature, gx, gy, gz, last_rhs;  // local
  RankFigures figures;                                    // this rank's part of the summary's per_rank
};

using SnapshotHook = std::function<void(int, double, const std::vector<double>&)>;

template <class Backend, class Operator>
LocalRun solve_local(Backend& backend, Operator& op, const LocalHeat& h, const HeatOperatorData& data,
                     const SnapshotHook& snapshot) {
  using Vector = typename Backend::Vector;
  const MeshPartition& part = h.piece.part;
  const std::int32_t n = data.num_nodes, owned = part.owned_nodes;
  HaloExchange<Backend> halo(backend, h.piece.links, MPI_COMM_WORLD);
  DistributedHeatOperator<Backend, Operator> dop(backend, op, halo, data, owned, h.fixed, h.fixed_values);
  std::vector<double> marker(size_t(n), 0.0);
  std::fill(marker.begin(), marker.begin() + owned, 1.0);
  DistributedBackend<Backend> dist(backend, marker, MPI_COMM_WORLD);

  LocalRun run;
  HeatSolveReport& report = run.report;
  using Precise = typename Backend::PreciseVector;
  Precise T = backend.upload_precise(h.transient && !h.initial.empty() ? h.initial : std::vector<double>(size_t(n), 0.0));

  // The piece's eliminated system for solve_heat_system: the distributed operator (halo overlapped
  // with interior rows in the inner CG; halo refreshed before each double residual); reductions go
  // through `dist` (owner-marked MPI_Allreduce; single-sync CG: one per iteration).
  struct DistributedSystem {
    DistributedHeatOperator<Backend, Operator>& dop;
    Vector system_diagonal(double a, double s) { return dop.system_diagonal(a, s); }
    void apply_system(double a, double s, const Vector& x, Vector& y) { dop.apply_system(a, s, x, y); }
    void prepare_solution_precise(Precise& X) { dop.prepare_solution_precise(X); }
    void residual_precise(double a, double s, const Precise& f, const Precise& X, Precise& out, bool fixed_rows) {
      dop.residual_precise(a, s, f, const_cast<Precise&>(X), out, fixed_rows);  // refreshes X's ghosts only
    }
  } system{dop};

  HeatSolveHooks hooks;
  ProgressThrottle throttle;
  if (mpi::rank() == 0)
    hooks.progress = [&](int k, double r, double s) {
      if (!throttle.due(false)) return;
      std::fprintf(stderr, "streamsolve: %d ranks: CG iteration %d, relative residual %.3e, %.2f s\n", mpi::size(), k, r, s);
    };
  hooks.snapshot = snapshot;
  hooks.every = h.output_every;
  // Communication inside the solves only (the transient right-hand side, set-up norms and the final
  // gradient excluded, as in solve_seconds): the halo per component (read-back, MPI, upload) and the
  // allreduces.
  double before[4] = {0, 0, 0, 0}, in_solves[4] = {0, 0, 0, 0};  // read-back, MPI, upload, allreduce
  const auto clocks = [&](double* c) {
    c[0] = halo.readback_seconds(), c[1] = halo.mpi_seconds(), c[2] = halo.upload_seconds();
    c[3] = dist.allreduce_seconds();
  };
  hooks.before_solve = [&] { clocks(before); };
  hooks.after_solve = [&] {
    double now[4];
    clocks(now);
    for (int k = 0; k < 4; ++k) in_solves[k] += now[k] - before[k];
  };
  HeatSolveSettings settings;
  settings.tolerance = h.tolerance;
  settings.max_iterations = h.max_iterations;
  settings.jacobi = h.jacobi != 0;
  settings.mixed = h.mixed != 0;
  settings.inner_tolerance = h.inner_tolerance;
  settings.variant = CgVariant(h.variant);
  if (h.transient) settings.time = h.time;
  solve_heat_system(dist, system, h.load, T, settings, report, hooks);
  run.last_rhs = report.last_rhs;
  run.temperature = backend.download_precise(T);
  Vector T_working = backend.make_vector(n);
  backend.copy(backend.working(T), T_working);
  Vector gx = backend.make_vector(data.num_cells), gy = backend.make_vector(data.num_cells),
         gz = backend.make_vector(data.num_cells);
  dop.cell_gradient(T_working, gx, gy, gz);
  run.gx = backend.download(gx);
  run.gy = backend.download(gy);
  run.gz = backend.download(gz);

  RankFigures& f = run.figures;
  f.add_count("owned_nodes", owned);
  f.add_count("ghost_nodes", n - owned);
  f.add_count("owned_tets", part.owned_tets);
  f.add_count("ghost_tets", double(part.tet_global.size()) - part.owned_tets);
  f.add_count("neighbours", double(h.piece.links.size()));
  f.add_count("halo_values_sent", double(halo.values_sent()));
  f.add_count("boundary_rows", double(dop.boundary_rows()));
  f.add("solve_seconds", report.solve_seconds);
  // Communication inside CG: the halo exchanges of the operator (gather, read-back, posting,
  // waiting, boundary completion) not hidden behind the interior pass, by component, and the
  // allreduces of the reductions.
  const double cg_halo = in_solves[0] + in_solves[1] + in_solves[2];
  f.add("halo_seconds", cg_halo);
  f.add("halo_readback_seconds", in_solves[0]);
  f.add("halo_mpi_seconds", in_solves[1]);
  f.add("halo_upload_seconds", in_solves[2]);
  f.add("halo_seconds_total", halo.seconds());
  f.add("allreduce_seconds", in_solves[3]);
  f.add("communication_seconds", cg_halo + in_solves[3]);
  f.add_count("halo_exchanges", double(halo.exchanges()));
  f.add_count("allreduces", double(dist.allreduces()));
  return run;
}

// Rank 0: read, build, partition, send. Returns rank 0's own piece.
LocalHeat read_and_distribute(const DistributedHeatOptions& o, Root& root) {
  const int ranks = mpi::size();
  auto t0 = Clock::now();
  root.heat_case = read_heat_case(o.case_file);
  if (o.refine) root.heat_case.refine = *o.refine;
  LoadOptions load;
  load.refine = root.heat_case.refine;
  root.mesh = load_mesh(root.heat_case.mesh_file, load);
  root.problem = build_heat_problem(root.heat_case, root.mesh);
  root.load_seconds = since(t0);
  const TetMesh& mesh = root.mesh.mesh;
  const HeatProblem& problem = root.problem;
  std::fprintf(stderr, "streamsolve: heat: %zu nodes, %zu tets, %zu fixed nodes, %s, %d ranks\n", mesh.nodes.size(),
               mesh.tets.size(), problem.dirichlet_nodes.size(),
               problem.time ? ("transient, " + std::to_string(problem.time->steps) + " steps").c_str() : "steady", ranks);

  t0 = Clock::now();
  PartitionPlan plan(mesh, partition_tets(mesh, ranks), ranks);
  root.tet_part = plan.tet_part();
  root.node_owner = plan.node_owner();
  root.partition_seconds = since(t0);

  t0 = Clock::now();
  std::vector<char> fixed(mesh.nodes.size(), 0);
  std::vector<double> fixed_value(mesh.nodes.size(), 0.0);
  for (size_t k = 0; k < problem.dirichlet_nodes.size(); ++k) {
    fixed[size_t(problem.dirichlet_nodes[k])] = 1;
    fixed_value[size_t(problem.dirichlet_nodes[k])] = problem.dirichlet_values[k];
  }
  root.owned_node_ids.resize(size_t(ranks));
  root.owned_tet_ids.resize(size_t(ranks));
  LocalHeat mine;
  for (int q = 0; q < ranks; ++q) {
    LocalHeat h;
    h.piece = plan.build(q);
    const MeshPartition& part = h.piece.part;
    root.owned_node_ids[size_t(q)].assign(part.node_global.begin(), part.node_global.begin() + part.owned_nodes);
    root.owned_tet_ids[size_t(q)].assign(part.tet_global.begin(), part.tet_global.begin() + part.owned_tets);
    for (std::int64_t c : part.tet_global) {
      h.conductivity.push_back(problem.conductivity[size_t(c)]);
      h.heat_capacity.push_back(problem.heat_capacity[size_t(c)]);
    }
    for (std::int64_t v : part.node_global) {
      h.load.push_back(problem.load[size_t(v)]);
      h.fixed.push_back(fixed[size_t(v)]);
      h.fixed_values.push_back(fixed_value[size_t(v)]);
      if (!problem.initial.empty()) h.initial.push_back(problem.initial[size_t(v)]);
    }
    h.tolerance = problem.tolerance;
    h.max_iterations = problem.max_iterations;
    h.jacobi = problem.jacobi || problem.multigrid;  // multigrid is serial only: Jacobi across ranks
    h.mixed = problem.mixed;
    h.inner_tolerance = problem.inner_tolerance;
    h.variant = std::int32_t(problem.variant);
    h.transient = problem.time.has_value();
    if (problem.time) h.time = *problem.time;
    h.output_every = o.no_vtu ? 0 : o.every ? *o.every : root.heat_case.output_every;
    if (q == 0) mine = std::move(h);
    else send_bytes(pack(h), q, piece_tag, MPI_COMM_WORLD);
  }
  root.distribute_seconds = since(t0);
  return mine;
}

// This rank's piece of a field: its owned tets with every local node; the ghost nodes' temperatures
// come from their owners (exchanged in double on the host, so a node has the same value in every
// piece). Point data: temperature, owner; cell data: `cell_data` (one value per owned tet), rank.
void write_heat_piece(const std::string& path, const LocalHeat& h, const LoadedMesh& local, std::int32_t owned_tets,
                      std::vector<double> T, std::vector<VtuArray> cell_data) {
  CpuBackend host;
  HaloExchange<CpuBackend> halo(host, h.piece.links, MPI_COMM_WORLD);
  halo.update(T);
  TetMesh piece;
  piece.nodes = local.mesh.nodes;
  piece.tets.assign(local.mesh.tets.begin(), local.mesh.tets.begin() + owned_tets);
  cell_data.push_back(VtuArray::integers("rank", std::vector<std::int32_t>(size_t(owned_tets), mpi::rank())));
  write_vtu(path, piece, {VtuArray::scalars("temperature", std::move(T)), VtuArray::integers("owner", h.piece.node_owner)},
            cell_data);
}

// The arrays of a heat piece, by name and type (what a .pvtu declares).
const std::vector<VtuArray> kPiecePointArrays = {VtuArray::scalars("temperature", {}), VtuArray::integers("owner", {})};

}  // namespace

void run_heat_distributed(const DistributedHeatOptions& o) {
  const auto t_start = Clock::now();
  if (!mpi::active()) mpi::init(nullptr, nullptr, true);
  const int rank = mpi::rank(), ranks = mpi::size();
  SS_REQUIRE(o.backend == "gpu" || o.backend == "cpu", "--backend must be gpu or cpu");
  SS_REQUIRE(!o.gl.window, "--window is not available with MPI ranks");

  // 1. Every rank opens its device first: a rank that cannot start stops the job before any work.
  std::optional<GlContext> context;
  const std::string device = open_rank_device(o.backend, o.gl, o.gpu_given, context);

  // 2. Rank 0 reads, partitions and sends; the others receive their piece.
  std::optional<Root> root;
  LocalHeat h;
  if (rank == 0) {
    root.emplace();
    h = read_and_distribute(o, *root);
  } else {
    h = unpack(recv_bytes(0, piece_tag, MPI_COMM_WORLD));
  }
  const std::string out_dir =
      broadcast_string(rank == 0 ? prepare_output_directory(o.out, root->heat_case.output_directory) : std::string());

  // 3. The piece: topology and geometry (no renumbering: owned nodes stay first), the operator in
  //    double with the lumped heat capacity.
  const auto t_prepare = Clock::now();
  const std::int32_t owned_tets = h.piece.part.owned_tets;
  const std::vector<std::int64_t> tet_global = h.piece.part.tet_global;
  LoadOptions load;
  load.renumber = false;
  const LoadedMesh local = prepare_mesh(std::move(h.piece.part.mesh), load);
  HeatOperatorData data = assemble_heat_operator(local, h.conductivity);
  std::fill(data.mass.begin(), data.mass.end(), 0.0);
  for (size_t c = 0; c < local.mesh.tets.size(); ++c)
    for (NodeId node : local.mesh.tets[c])
      data.mass[size_t(node)] += h.heat_capacity[c] * local.geometry.cell_volumes[c] / 4.0;
  const double prepare_seconds = since(t_prepare);

  // Transient snapshots: gathered at rank 0, one VTU each and the PVD index.
  TimeSeries series(out_dir, "heat");
  if (rank == 0) series.remove_previous_run(kHeatFinalFiles);
  const std::int32_t owned_nodes = h.piece.part.owned_nodes;
  const bool pieces = !o.single_vtu;  // the fields as one piece per rank (else gathered at rank 0)
  SnapshotHook snapshot = [&](int step, double time, const std::vector<double>& T) {
    if (pieces) {
      const std::string stem = series.snapshot_stem(step);
      write_heat_piece((fs::path(out_dir) / piece_name(stem, rank)).string(), h, local, owned_tets, T, {});
      mpi_check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
      if (rank != 0) return;
      std::vector<std::string> names;
      for (int q = 0; q < ranks; ++q) names.push_back(piece_name(stem, q));
      series.add_pieces(step, time, names, kPiecePointArrays, {VtuArray::integers("rank", {})});
      return;
    }
    std::vector<double> mine(T.begin(), T.begin() + owned_nodes);
    const std::vector<double> all =
        gather_to_root(mine, root ? &root->owned_node_ids : nullptr, root ? root->mesh.mesh.nodes.size() : 0);
    if (rank != 0) return;
    series.add(step, time, root->mesh.mesh, {VtuArray::scalars("temperature", all)}, {});
  };
  if (!h.transient || o.no_vtu) snapshot = nullptr;

  // 4. Solve.
  LocalRun run;
  double setup_seconds = 0;
  // The local operator eliminates the ghosts and the Dirichlet nodes once, here (no copy of the tables).
  const auto shared = std::make_shared<const HeatOperatorData>(std::move(data));
  const std::vector<std::int32_t> eliminated = piece_fixed_nodes(shared->num_nodes, h.piece.part.owned_nodes, h.fixed);
  if (o.backend == "gpu") {
    LayoutOptions layout;
    layout.packing = parse_packing(o.format);
    GpuBackend gpu(*context, layout, o.gpu);
    GpuHeatOperator op(gpu, shared, eliminated);
    setup_seconds = since(t_start);
    run = solve_local(gpu, op, h, *shared, snapshot);
  } else {
    CpuBackend cpu;
    CpuHeatOperator op(shared, eliminated);
    setup_seconds = since(t_start);
    run = solve_local(cpu, op, h, *shared, snapshot);
  }
  // From the start to the operator on the device (device, piece, tables, upload); the rank's peak RSS.
  run.figures.add("setup_seconds", setup_seconds);
  run.figures.add_count("peak_host_memory_bytes", double(peak_host_memory_bytes()));

  // 5. The final field as one piece per rank (rank 0 writes the .pvtu below, once every piece is
  //    there), unless --single-vtu gathers it into one VTU at rank 0.
  const std::string stem = h.transient ? "heat_final" : "heat";
  const bool final_pieces = pieces && run.report.converged && !o.no_vtu;
  if (final_pieces) {
    std::vector<glm::dvec3> flux(static_cast<size_t>(owned_tets));
    for (size_t c = 0; c < flux.size(); ++c) flux[c] = -h.conductivity[c] * glm::dvec3(run.gx[c], run.gy[c], run.gz[c]);
    write_heat_piece((fs::path(out_dir) / piece_name(stem, rank)).string(), h, local, owned_tets, run.temperature,
                     {VtuArray::float_vectors("heat_flux", flux)});
    mpi_check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
  }

  // 6. Gather at rank 0.
  const std::vector<double> mine_T(run.temperature.begin(), run.temperature.begin() + owned_nodes);
  const std::vector<double> mine_rhs(run.last_rhs.begin(), run.last_rhs.begin() + owned_nodes);
  std::vector<double> mine_grad(3 * size_t(owned_tets));
  for (size_t c = 0; c < size_t(owned_tets); ++c) {
    mine_grad[3 * c] = run.gx[c];
    mine_grad[3 * c + 1] = run.gy[c];
    mine_grad[3 * c + 2] = run.gz[c];
  }
  const size_t global_nodes = root ? root->mesh.mesh.nodes.size() : 0;
  const size_t global_tets = root ? root->mesh.mesh.tets.size() : 0;
  const std::vector<double> T = gather_to_root(mine_T, root ? &root->owned_node_ids : nullptr, global_nodes);
  const std::vector<double> last_rhs = gather_to_root(mine_rhs, root ? &root->owned_node_ids : nullptr, global_nodes);
  const std::vector<double> grad = gather_to_root(mine_grad, root ? &root->owned_tet_ids : nullptr, global_tets, 3);
  const nlohmann::json per_rank = run.figures.gather(device);
  if (rank != 0) return;

  // 7. Outputs at rank 0: JSON always, fields when converged (as the serial command).
  const HeatProblem& problem = root->problem;
  const LoadedMesh& mesh = root->mesh;
  const HeatSolveReport& report = run.report;
  std::vector<glm::dvec3> flux(global_tets);
  for (size_t c = 0; c < global_tets; ++c)
    flux[c] = -problem.conductivity[c] * glm::dvec3(grad[3 * c], grad[3 * c + 1], grad[3 * c + 2]);
  HeatSolveReport residual_report = report;
  residual_report.last_rhs = last_rhs;
  const HeatOperatorData global_data = assemble_heat_system(mesh, problem, HeatTables::operator_only);
  const double true_residual = true_relative_residual(global_data, problem.dirichlet_nodes, residual_report, T);

  const double comm_max = max_over_ranks(per_rank, "communication_seconds");
  const double solve_max = max_over_ranks(per_rank, "solve_seconds");
  const double per_iteration = report.iterations ? report.solve_seconds / report.iterations : 0.0;
  const double share = solve_max > 0 ? comm_max / solve_max : 0.0;
  const auto [t_min, t_max] = std::minmax_element(T.begin(), T.end());

  nlohmann::json summary;
  summary["problem"] = "heat";
  summary["case"] = root->heat_case.path;
  summary["mesh"] = {{"file", root->heat_case.mesh_file}, {"nodes", mesh.mesh.nodes.size()},
                     {"tets", mesh.mesh.tets.size()}, {"refine", root->heat_case.refine}};
  summary["backend"] = o.backend;
  summary["device"] = device;
  summary["ranks"] = ranks;
  summary["steps"] = report.steps;
  summary["iterations"] = report.iterations;
  summary["relative_residual"] = report.relative_residual;
  summary["true_relative_residual"] = true_residual;
  summary["outer_corrections"] = report.outer_corrections;  // defect corrections (inner solves), all solves
  summary["inner_iterations"] = report.inner_iterations;    // per correction of the last solve
  summary["precision"] = problem.mixed ? "mixed" : "float";
  summary["variant"] = to_string(problem.variant);
  summary["converged"] = report.converged;
  summary["stop_reason"] = report.stop_reason;
  summary["solve_seconds"] = report.solve_seconds;
  summary["seconds_per_iteration"] = per_iteration;
  summary["communication_seconds"] = comm_max;
  summary["communication_share"] = share;
  summary["halo_seconds"] = max_over_ranks(per_rank, "halo_seconds");
  // The halo's components inside CG (largest over ranks): waiting for the read-back, MPI (posting +
  // waiting for the messages), upload (the received halo term onto the device).
  summary["halo_readback_seconds"] = max_over_ranks(per_rank, "halo_readback_seconds");
  summary["halo_mpi_seconds"] = max_over_ranks(per_rank, "halo_mpi_seconds");
  summary["halo_upload_seconds"] = max_over_ranks(per_rank, "halo_upload_seconds");
  summary["allreduce_seconds"] = max_over_ranks(per_rank, "allreduce_seconds");
  summary["owned_nodes"] = nlohmann::json::array();
  for (const nlohmann::json& r : per_rank) summary["owned_nodes"].push_back(r["owned_nodes"]);
  summary["per_rank"] = per_rank;
  summary["setup_seconds"] = {{"load", root->load_seconds},
                              {"partition", root->partition_seconds},
                              {"distribute", root->distribute_seconds},
                              {"prepare_rank0", prepare_seconds}};
  summary["peak_host_memory_bytes"] = peak_host_memory_bytes();  // rank 0's: it reads, refines and partitions
  summary["temperature"] = {{"min", *t_min}, {"max", *t_max}};
  // Fields first, the JSON summary last (as the serial command): heat.json means the run finished.
  if (report.converged) {
    std::vector<std::int32_t> node_owner(root->node_owner.begin(), root->node_owner.end());
    const std::vector<VtuArray> point_data = {VtuArray::scalars("temperature", T), VtuArray::integers("owner", node_owner)};
    const std::vector<VtuArray> cell_data = {VtuArray::float_vectors("heat_flux", flux), VtuArray::integers("rank", root->tet_part)};
    if (final_pieces) {
      std::vector<std::string> names;
      for (int q = 0; q < ranks; ++q) names.push_back(piece_name(stem, q));
      write_pvtu((fs::path(out_dir) / (stem + ".pvtu")).string(), names, kPiecePointArrays,
                 {VtuArray::float_vectors("heat_flux", {}), VtuArray::integers("rank", {})});
    } else if (!o.no_vtu) {
      write_vtu((fs::path(out_dir) / (stem + ".vtu")).string(), mesh.mesh, point_data, cell_data);
    }
    if (!o.no_png) {
      RenderOptions view;
      view.title = "temperature";
      view.subtitle = fs::path(root->heat_case.path).filename().string() + ", " + o.backend + ", " +
                      std::to_string(ranks) + " ranks";
      render_surface_png(mesh, T, view, output_path(o.png, out_dir, "heat.png"));
    }
  }
  const std::string json_path = output_path(o.json, out_dir, "heat.json");
  write_file_atomically(json_path, summary.dump(2) + "\n");
  SS_REQUIRE(report.converged, "solve did not converge: " << report.stop_reason << " after " << report.iterations
                                                          << " CG iterations (summary in " << json_path << ")");
  std::printf("heat: %s on %d ranks: %d CG iterations, relative residual %.2e (true %.2e), %.3f s in CG, "
              "%.3f ms per iteration, communication %.1f%% (halo %.3f s, allreduce %.3f s), T in [%g, %g]\n",
              o.backend.c_str(), ranks, report.iterations, report.relative_residual, true_residual, report.solve_seconds,
              1e3 * per_iteration, 100.0 * share, summary["halo_seconds"].get<double>(),
              summary["allreduce_seconds"].get<double>(), *t_min, *t_max);
  std::printf("wrote %s\n", out_dir.c_str());
}

}  // namespace ss
