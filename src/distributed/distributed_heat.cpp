#include "distributed/distributed_heat.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>

#include <mpi.h>

#include "distributed/distributed_heat_multigrid.hpp"
#include "distributed/distributed_heat_operator.hpp"
#include "parallel/distributed_backend.hpp"
#include "parallel/halo.hpp"
#include "parallel/message.hpp"
#include "parallel/mpi_env.hpp"
#include "cases/heat_case.hpp"
#include "problems/heat_problem.hpp"
#include "solver/cg.hpp"
#include "util/error.hpp"
#include "util/progress_throttle.hpp"

namespace ss {
namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// T with its ghost entries taken from their owners (exchanged in double on the host).
std::vector<double> with_ghosts(const LocalHeat& h, std::vector<double> T) {
  CpuBackend host;
  HaloExchange<CpuBackend> halo(host, h.piece.links, MPI_COMM_WORLD);
  halo.update(T);
  return T;
}

template <class Backend, class Operator>
HeatPieceRun solve_local(Backend& backend, Operator& op, const LocalHeat& h, const HeatOperatorData& data,
                         const SnapshotHook& snapshot) {
  using Vector = typename Backend::Vector;
  const MeshPartition& part = h.piece.part;
  const std::int32_t n = data.num_nodes, owned = part.owned_nodes;
  HaloExchange<Backend> halo(backend, h.piece.links, MPI_COMM_WORLD);
  DistributedHeatOperator<Backend, Operator> dop(backend, op, halo, data, owned, h.fixed, h.fixed_values);
  std::vector<double> marker(size_t(n), 0.0);
  std::fill(marker.begin(), marker.begin() + owned, 1.0);
  DistributedBackend<Backend> dist(backend, marker, MPI_COMM_WORLD);

  HeatPieceRun run;
  HeatSolveReport& report = run.report;
  using Precise = typename Backend::PreciseVector;
  Precise T = backend.upload_precise(!h.initial.empty() ? h.initial : std::vector<double>(size_t(n), 0.0));

  // The piece's eliminated system for solve_heat_system: the distributed operator (halo overlapped
  // with interior rows in the inner CG; halo refreshed before each double residual); reductions go
  // through `dist` (owner-marked MPI_Allreduce; single-sync CG: one per iteration).
  struct DistributedSystem {
    DistributedHeatOperator<Backend, Operator>& dop;
    PreconditionerFactory<Vector> preconditioner;
    Vector system_diagonal(double a, double s) { return dop.system_diagonal(a, s); }
    void apply_system(double a, double s, const Vector& x, Vector& y) { dop.apply_system(a, s, x, y); }
    void prepare_solution_precise(Precise& X) { dop.prepare_solution_precise(X); }
    void residual_precise(double a, double s, const Precise& f, const Precise& X, Precise& out, bool fixed_rows) {
      dop.residual_precise(a, s, f, const_cast<Precise&>(X), out, fixed_rows);  // refreshes X's ghosts only
    }
  } system{dop, {}};
  // The multigrid over the ranks: one V-cycle of every level's pieces per iteration.
  std::unique_ptr<DistributedHeatMultigrid<Backend, Operator>> multigrid;
  double multigrid_seconds = 0;
  if (h.coarser) {
    const auto t0 = Clock::now();
    multigrid = std::make_unique<DistributedHeatMultigrid<Backend, Operator>>(
        backend, typename DistributedHeatMultigrid<Backend, Operator>::Finest{dop, halo, data, h.piece, h.fixed},
        *h.coarser, MultigridOptions{}, MPI_COMM_WORLD);
    multigrid_seconds += since(t0);
    system.preconditioner = [&](double a, double s) {
      const auto t1 = Clock::now();
      multigrid->prepare(a, s);
      multigrid_seconds += since(t1);
      DistributedHeatMultigrid<Backend, Operator>* mg = multigrid.get();
      return std::function<void(const Vector&, Vector&)>([mg](const Vector& r, Vector& z) { (*mg)(r, z); });
    };
  }

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
  solve_heat_system(dist, system, h.load, T, h.settings, report, hooks);
  run.last_rhs = report.last_rhs;
  run.temperature = with_ghosts(h, backend.download_precise(T));

  RankFigures& f = run.figures;
  f.add_count("owned_nodes", owned);
  f.add_count("ghost_nodes", n - owned);
  f.add_count("owned_tets", part.owned_tets);
  f.add_count("ghost_tets", double(part.tet_global.size()) - part.owned_tets);
  f.add("refine_seconds", h.refine_seconds);    // the base piece refined, the halo paired
  f.add("prepare_seconds", h.prepare_seconds);  // topology, geometry, problem, operator
  f.add_count("neighbours", double(h.piece.links.size()));
  f.add_count("halo_values_sent", double(halo.values_sent()));
  f.add_count("boundary_rows", double(dop.boundary_rows()));
  f.add("solve_seconds", report.solve_seconds);
  if (multigrid) {
    f.add("multigrid_setup_seconds", multigrid_seconds);  // levels on the device, smoothers, the base system
    f.add_count("multigrid_levels", multigrid->num_levels());
    f.add("multigrid_coarsest_seconds", multigrid->coarsest_seconds());        // the coarsest level's solves
    f.add("multigrid_coarser_halo_seconds", multigrid->coarser_halo_seconds());  // the levels below the finest
  }
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

}  // namespace

namespace {

LoadedMesh prepare_piece_mesh(RankPiece& piece) {
  LoadOptions load;
  load.renumber = false;
  load.tables = TopologyTables::boundary;  // the node graph and the boundary faces are all heat needs
  return prepare_mesh(std::move(piece.part.mesh), load);
}

// The Dirichlet flag of every local node. The owned nodes' are exact (their tets and boundary faces
// are all local); a ghost's boundary faces may lie outside the piece, so ghosts take their owner's
// (exchanged, as `values`: the fixed nodes' temperatures, when given).
std::vector<char> piece_dirichlet(const HeatProblem& problem, size_t n, HaloExchange<CpuBackend>& halo,
                                  std::vector<double>* values) {
  std::vector<double> fixed(n, 0.0), fixed_values(n, 0.0);
  for (size_t k = 0; k < problem.dirichlet_nodes.size(); ++k) {
    fixed[size_t(problem.dirichlet_nodes[k])] = 1.0;
    fixed_values[size_t(problem.dirichlet_nodes[k])] = problem.dirichlet_values[k];
  }
  halo.update(fixed);
  if (values) {
    halo.update(fixed_values);
    *values = std::move(fixed_values);
  }
  std::vector<char> flags(n);
  for (size_t i = 0; i < n; ++i) flags[i] = fixed[i] != 0.0;
  return flags;
}

// A coarser level of the multigrid over the ranks: its piece's halo, problem and operator.
PieceHeatLevel coarser_heat_level(RankPiece piece, const HeatCase& heat_case, const PresentGroups& groups) {
  PieceHeatLevel level;
  piece.links = exchange_node_links(piece, MPI_COMM_WORLD);
  LoadedMesh mesh = prepare_piece_mesh(piece);
  const HeatProblem problem = build_heat_problem(heat_case, mesh, &groups);
  CpuBackend host;
  HaloExchange<CpuBackend> halo(host, piece.links, MPI_COMM_WORLD);
  level.fixed = piece_dirichlet(problem, mesh.mesh.nodes.size(), halo, nullptr);
  level.data = std::make_shared<const HeatOperatorData>(
      light_heat_operator(assemble_heat_system(mesh, problem, HeatTables::operator_only)));
  level.piece = std::move(piece);
  return level;
}

}  // namespace

// Step 3 on every rank: refine, pair the halo, prepare the piece, build the problem and its operator.
LocalHeat build_heat_piece(PieceAssignment a, std::optional<int> output_every, HeatOperatorData& data) {
  const int rank = mpi::rank();
  LocalHeat h;
  auto t0 = Clock::now();
  const HeatCase heat_case = parse_heat_case(a.case_text, a.case_path);
  // The multigrid over the ranks needs every level's piece (refined once, each level kept).
  const bool multigrid = heat_case.multigrid && a.levels > 0;
  std::optional<PieceHierarchy> hierarchy;
  if (multigrid) {
    hierarchy = refine_base_hierarchy(a.base, a.levels, rank);
    h.piece = std::move(hierarchy->levels.back());
    hierarchy->levels.pop_back();
  } else {
    h.piece = refine_base_piece(a.base, a.levels, rank);
  }
  a.base = {};
  h.piece.links = exchange_node_links(h.piece, MPI_COMM_WORLD);
  h.refine_seconds = since(t0);

  t0 = Clock::now();
  h.mesh = prepare_piece_mesh(h.piece);
  HeatProblem problem = build_heat_problem(heat_case, h.mesh, &a.groups);
  const size_t n = h.mesh.mesh.nodes.size();
  CpuBackend host;
  HaloExchange<CpuBackend> halo(host, h.piece.links, MPI_COMM_WORLD);
  h.fixed = piece_dirichlet(problem, n, halo, &h.fixed_values);
  halo.update(problem.load);
  if (!problem.initial.empty()) halo.update(problem.initial);
  h.load = std::move(problem.load);
  h.initial = std::move(problem.initial);
  h.settings.tolerance = problem.tolerance;
  h.settings.max_iterations = problem.max_iterations;
  h.settings.jacobi = problem.jacobi || problem.multigrid;  // the multigrid comes as the system's preconditioner
  h.settings.mixed = problem.mixed;
  h.settings.inner_tolerance = problem.inner_tolerance;
  h.settings.variant = problem.variant;
  h.settings.time = problem.time;
  h.output_every = output_every ? *output_every : heat_case.output_every;
  // The operator in double with the lumped heat capacity (the rows of owned nodes are exact).
  data = assemble_heat_system(h.mesh, problem, HeatTables::operator_only);
  h.conductivity = std::move(problem.conductivity);
  release_assembly_tables(h.mesh);  // the pieces need the mesh only
  if (multigrid) {
    h.coarser.emplace();
    for (RankPiece& piece : hierarchy->levels)
      h.coarser->levels.push_back(coarser_heat_level(std::move(piece), heat_case, a.groups));
    h.coarser->maps = std::move(hierarchy->maps);
  }
  h.prepare_seconds = since(t0);
  return h;
}

// This rank's piece of a field: its owned tets with every local node; the ghost nodes' temperatures
// come from their owners (exchanged in double on the host, so a node has the same value in every
// piece). Point data: temperature, owner; cell data: `cell_data` (one value per owned tet), rank.
void write_heat_piece(const std::string& path, const LocalHeat& h, std::vector<double> T, std::vector<VtuArray> cell_data) {
  T = with_ghosts(h, std::move(T));
  const std::int32_t owned_tets = h.piece.part.owned_tets;
  TetMesh piece;
  piece.nodes = h.mesh.mesh.nodes;
  piece.tets.assign(h.mesh.mesh.tets.begin(), h.mesh.mesh.tets.begin() + owned_tets);
  piece.period_offsets = h.mesh.mesh.period_offsets;  // periodic: the VTU unfolds the seams
  if (is_periodic(h.mesh.mesh))
    piece.corner_shifts.assign(h.mesh.mesh.corner_shifts.begin(), h.mesh.mesh.corner_shifts.begin() + owned_tets);
  cell_data.push_back(VtuArray::integers("rank", std::vector<std::int32_t>(size_t(owned_tets), mpi::rank())));
  write_vtu(path, piece, {VtuArray::scalars("temperature", std::move(T)), VtuArray::integers("owner", h.piece.node_owner)},
            cell_data);
}

// ||b̃ − (a·M + s·K̃) T|| / ||b̃|| over the owned rows of every rank, in double (T with its ghosts).
double distributed_true_residual(const HeatOperatorData& data, const LocalHeat& h, const HeatSolveReport& report,
                                 const std::vector<double>& T) {
  std::vector<std::int32_t> fixed;
  for (size_t i = 0; i < h.fixed.size(); ++i)
    if (h.fixed[i]) fixed.push_back(std::int32_t(i));
  const std::vector<double> r =
      eliminated_system_residual(data, fixed, report.mass_coefficient, report.stiffness_coefficient, report.last_rhs, T);
  double sums[2] = {0, 0};  // r², b²
  for (size_t i = 0; i < size_t(h.piece.part.owned_nodes); ++i) {
    sums[0] += r[i] * r[i];
    sums[1] += report.last_rhs[i] * report.last_rhs[i];
  }
  mpi_check(MPI_Allreduce(MPI_IN_PLACE, sums, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD), "MPI_Allreduce");
  return sums[1] > 0 ? std::sqrt(sums[0] / sums[1]) : std::sqrt(sums[0]);
}

HeatPieceRun solve_heat_piece(GpuBackend& backend, GpuHeatOperator& op, const LocalHeat& h, const HeatOperatorData& data,
                              const SnapshotHook& snapshot) {
  return solve_local(backend, op, h, data, snapshot);
}

HeatPieceRun solve_heat_piece(CpuBackend& backend, CpuHeatOperator& op, const LocalHeat& h, const HeatOperatorData& data,
                              const SnapshotHook& snapshot) {
  return solve_local(backend, op, h, data, snapshot);
}

}  // namespace ss
