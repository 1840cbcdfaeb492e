// The flow command over MPI ranks (`mpirun -np N streamsolve flow CASE.toml`), thesis ch. 8.
//
//   1. every rank opens its GPU (local rank mod devices, --gpu overrides) or the CPU reference first.
//   2. rank 0 reads the case and the base mesh (the file's, refined at rank 0 only when it has fewer
//      than 64 tets per rank: coarse_partition_levels), checks the case on it (every case mistake
//      stops here), partitions its tets (METIS) and sends each rank its base tets plus one layer
//      (parallel/refined_piece.hpp's BasePiece).
//   3. every rank refines its base piece the remaining --refine times itself, for every entity kind
//      (parallel/refined_entity_piece.hpp: partition, then refine; no rank holds the whole refined
//      mesh), builds its piece's problem (the case's conditions; cut faces a placeholder), mesh
//      tables and operator coefficients, the ghost entries of the coefficients from their owners;
//      the curl–curl term's interval comes from one Lanczos run over all ranks (edge_space).
//   4. every rank runs the unchanged FlowSolver over a DistributedBackend (owner-marked reductions,
//      one marker per entity kind) and DistributedFlowOperators (every operator output's ghosts
//      exchanged): the same steps, reductions and iterations as the serial run.
//   5. the fields: every rank writes its piece (its owned cells) of each snapshot and of the final
//      state, flow_NNNNNN_piece_<rank>.vtu and flow_piece_<rank>.vtu, and rank 0 the .pvtu over them.
//      Checkpoints are gathered at rank 0 by the pieces' global ids (the state file records that
//      numbering: a serial run cannot continue them, nor this one a serial run's); flow.json's
//      field summary is reduced over the ranks' owned cells; flow.png is drawn on the base mesh
//      from the node velocities at its nodes. Rank 0 refines the whole mesh too only for what needs
//      it: --single-vtu (one gathered VTU instead of the pieces, small runs) and [[force]] groups
//      (the wall vorticity is a solve on the whole mesh).
//      --restart: rank 0 reads the last checkpoint, partitions at its base level, and each rank
//      asks it for its entries by global id.
// Not over ranks (an error says so, before any work): the exact method. The pressure multigrid
// preconditioner is serial: over ranks the pressure solve uses Jacobi (stderr and flow.json say so).
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <memory>
#include <optional>

#include <mpi.h>

#include "app/flow_command.hpp"
#include "app/flow_output.hpp"
#include "cpu/cpu_backend.hpp"
#include "gl/context.hpp"
#include "mesh/refine.hpp"
#include "operators/curl_curl_viscous.hpp"
#include "operators/flow_operators.hpp"
#include "parallel/collect.hpp"
#include "parallel/distributed_backend.hpp"
#include "parallel/distributed_flow_operators.hpp"
#include "parallel/halo.hpp"
#include "parallel/message.hpp"
#include "parallel/mpi_env.hpp"
#include "parallel/piece_assignment.hpp"
#include "parallel/piece_files.hpp"
#include "parallel/rank_report.hpp"
#include "parallel/refined_entity_piece.hpp"
#include "physics/flow_case_problem.hpp"
#include "util/error.hpp"
#include "util/host_memory.hpp"

namespace ss {
namespace {

namespace fs = std::filesystem;

// Over ranks the pressure multigrid is replaced by Jacobi (the V-cycle is serial).
void use_jacobi_pressure(FlowProblem& p) {
  if (p.pressure.multigrid) p.pressure.multigrid = false, p.pressure.jacobi = true;
}

// A mesh prepared in the order it comes (no renumbering: its faces and edges keep the order the
// piece's ids were given in), every topology table.
LoadedMesh prepare_in_order(TetMesh mesh) {
  LoadOptions load;
  load.renumber = false;
  return prepare_mesh(std::move(mesh), load);
}

// Rank 0's whole refined mesh (--single-vtu, [[force]] groups): one part refined like the pieces,
// so its faces and cells carry the same global ids.
struct WholeMesh {
  LoadedMesh mesh;
  FlowProblem problem;
  std::vector<std::int64_t> face_global, cell_global;

  WholeMesh(const LoadedMesh& base, int levels, const FlowCase& flow_case) {
    EntityPiece whole = refine_entity_piece(
        BasePartition(base, std::vector<std::int32_t>(base.mesh.tets.size(), 0), 1).piece(0), levels, MPI_COMM_SELF);
    face_global = std::move(whole.faces.global);
    cell_global = std::move(whole.cells.global);
    mesh = prepare_in_order(std::move(whole.mesh));
    problem = build_flow_problem(flow_case, mesh);
    use_jacobi_pressure(problem);
  }

  // A state by global id (a checkpoint's) in this mesh's order.
  FlowState in_order(const FlowState& by_id) const {
    FlowState s = by_id;
    const auto permute = [](const std::vector<double>& v, const std::vector<std::int64_t>& ids) {
      std::vector<double> out;
      if (v.empty()) return out;
      out.reserve(ids.size());
      for (std::int64_t g : ids) out.push_back(v[size_t(g)]);
      return out;
    };
    s.flux = permute(by_id.flux, face_global);
    s.previous_flux = permute(by_id.previous_flux, face_global);
    s.pressure = permute(by_id.pressure, cell_global);
    return s;
  }
};

// Rank 0's view of the whole run.
struct Root {
  FlowCase flow_case;
  LoadedMesh base;       // the file's mesh refined base_levels times, every table
  FlowProblem problem;   // on the file's mesh: the case checked once; its settings and groups serve the summary
  int base_levels = 0;   // refinements at rank 0 (the rest on the ranks)
  std::string out_dir;
  std::optional<FlowCheckpoints> checkpoints;
  std::optional<FlowState> checkpoint;  // --restart: the one continued (ids by global id)
  std::optional<WholeMesh> whole;
  std::optional<FlowForceMeter> meter;  // on the whole mesh
  StageTimings timings;
};

// Rank 0: read, check, partition, send. Returns rank 0's own assignment.
PieceAssignment read_and_distribute(const FlowOptions& o, Root& root) {
  const int ranks = mpi::size();
  root.flow_case = read_flow_case(o.case_file);
  FlowCase& c = root.flow_case;
  if (o.refine) c.refine = *o.refine;
  SS_REQUIRE(c.refine >= 0, "refinement level must be >= 0, got " << c.refine);

  // The case checked on the file's mesh first (every case mistake is the serial error, once, and
  // leaves the output folder alone).
  auto t0 = StageTimings::now();
  root.base = load_mesh(c.mesh_file, LoadOptions{});
  require_refinable(root.base.mesh, c.refine);
  add_mesh_timings(root.timings, root.base.report, std::chrono::duration<double>(StageTimings::now() - t0).count(), false);
  t0 = StageTimings::now();
  root.problem = build_flow_problem(c, root.base);
  SS_REQUIRE(root.problem.method == FlowMethod::classical,
             c.where("scheme.method")
                 << ": the exact method runs on one process only (its streamfunction boundary lift, harmonic basis and "
                    "gauge are built on the whole mesh); start it without mpirun, or use method = \"classical\"");
  if (root.problem.pressure.multigrid)
    std::fprintf(stderr, "streamsolve: flow: %d ranks: the pressure multigrid is serial; the pressure solve uses Jacobi\n",
                 ranks);
  use_jacobi_pressure(root.problem);
  root.timings.add_since("problem", t0);

  // The output folder: a fresh run clears the previous one's files, a restart takes its checkpoint.
  root.out_dir = prepare_output_directory(o.out, c.output_directory);
  root.checkpoints.emplace(root.out_dir, !c.forces.empty());
  if (o.restart) {
    // Read and checked here; the folder changes only once the mesh's size is known (below).
    root.checkpoint = root.checkpoints->last_checkpoint();
    const FlowState& s = *root.checkpoint;
    SS_REQUIRE(s.base_levels >= 0 && s.base_levels <= c.refine,
               "--restart: the checkpoint of step " << s.step << " in '" << root.out_dir << "' "
                   << (s.base_levels < 0 ? "was written by a serial run (its mesh's ids); continue it without mpirun"
                                         : "was written with more refinement levels than --refine " +
                                               std::to_string(c.refine)));
  } else {
    root.checkpoints->clear_previous_run();
  }

  // The base mesh: the file's, or its first levels where it has too few tets per rank (a restart
  // keeps its checkpoint's base level: the ids depend on it).
  root.base_levels = root.checkpoint ? root.checkpoint->base_levels
                                     : coarse_partition_levels(std::int64_t(root.base.mesh.tets.size()), ranks, c.refine);
  if (root.base_levels > 0) {
    t0 = StageTimings::now();
    LoadOptions load;
    load.refine = root.base_levels;
    root.base = load_mesh(c.mesh_file, load);
    root.timings.add_since("base_levels", t0);
  }

  const int levels = c.refine - root.base_levels;
  DistributeSeconds seconds;
  PieceAssignment mine = send_piece_assignments(root.base, levels, c.path, MPI_COMM_WORLD, &seconds);
  root.timings.add("partition", seconds.partition);
  root.timings.add("distribute", seconds.send);
  const FineCounts fine = refined_entity_counts(mine.base, levels);
  std::fprintf(stderr, "streamsolve: flow: %lld nodes, %lld cells, %lld faces (base mesh of %zu tets refined %d "
                       "times on the ranks), %d ranks\n",
               static_cast<long long>(fine.nodes), static_cast<long long>(fine.cells),
               static_cast<long long>(fine.faces), root.base.mesh.tets.size(), levels, ranks);
  if (root.checkpoint) {  // another mesh or --refine: refused before the folder changes
    require_checkpoint_fits(*root.checkpoint, fine.faces, fine.cells, root.out_dir);
    root.checkpoints->continue_from(*root.checkpoint);
    std::fprintf(stderr, "streamsolve: flow: continuing from step %d (t = %g)\n", root.checkpoint->step,
                 root.checkpoint->time);
  }
  if ((o.single_vtu && !o.no_vtu) || !root.problem.forces.empty()) {
    t0 = StageTimings::now();
    root.whole.emplace(root.base, levels, c);
    if (!root.problem.forces.empty()) root.meter.emplace(root.whole->mesh, root.whole->problem);
    root.timings.add_since("whole_mesh", t0);
  }
  return mine;
}

std::vector<double> owner_marker(const EntityHalo& h) { return std::vector<double>(h.owned.begin(), h.owned.end()); }

template <class T>
std::vector<T> owned_entries(const std::vector<T>& v, const EntityHalo& h) {
  std::vector<T> out;
  for (size_t i = 0; i < h.owned.size(); ++i)
    if (h.owned[i]) out.push_back(v[i]);
  return out;
}

// The edges of the whole mesh as seen from this piece, for the curl–curl viscous term's Lanczos
// interval (eigen_estimate.hpp): ghosts from their owners, dot products over the owned edges of
// every rank (the start values come from the edges' midpoints). So every rank count finds the
// serial run's interval.
std::shared_ptr<const LanczosSpace> edge_space(const EntityHalo& edges) {
  struct Halo {
    CpuBackend host;
    HaloExchange<CpuBackend> exchange;
    explicit Halo(const std::vector<HaloLink>& links) : exchange(host, links, MPI_COMM_WORLD) {}
  };
  auto halo = std::make_shared<Halo>(edges.links);
  auto space = std::make_shared<LanczosSpace>();
  space->update_ghosts = [halo](std::vector<double>& v) { halo->exchange.update(v); };
  space->dot = [owned = edges.owned](const std::vector<double>& x, const std::vector<double>& y) {
    double local = 0, sum = 0;
    for (size_t i = 0; i < owned.size(); ++i)
      if (owned[i]) local += x[i] * y[i];
    mpi_check(MPI_Allreduce(&local, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD), "MPI_Allreduce");
    return sum;
  };
  return space;
}

// The piece's operator coefficients, right on its ghosts too (from their owners).
FlowOperatorData piece_operator_data(const MeshOperatorTables& tables, const FlowProblem& problem,
                                     const EntityPiece& piece, std::int64_t global_cells) {
  FlowOperatorData d = build_flow_operator_data(tables, problem.boundary_kinds());
  CpuBackend host;
  HaloExchange<CpuBackend> cells(host, piece.cells.links, MPI_COMM_WORLD);
  HaloExchange<CpuBackend> faces(host, piece.faces.links, MPI_COMM_WORLD);
  for (std::vector<double>* v : {&d.free_mask, &d.face_mass, &d.area_over_distance, &d.pressure_weight,
                                 &d.laplacian_diagonal})
    faces.update(*v);
  for (std::vector<double>* v : {&d.inverse_volume, &d.pressure_diagonal}) cells.update(*v);
  // An outlet anywhere makes P definite on every rank (cut faces are walls: they add none).
  int fixed = d.pressure_fixed ? 1 : 0, any = 0;
  mpi_check(MPI_Allreduce(&fixed, &any, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD), "MPI_Allreduce");
  d.pressure_fixed = any != 0;
  d.global_cells = global_cells;
  d.edge_space = edge_space(piece.edges);
  return d;
}

// A rank's state by global id at rank 0 (owned entries gathered; empty elsewhere), marked with the
// ids' base level for the checkpoint.
FlowState gather_state(const FlowState& s, const EntityPiece& piece, const FineCounts& fine, int base_levels) {
  FlowState g{s.step, s.time, s.dt, {}, {}, {}, {}};
  g.base_levels = base_levels;
  const bool root = mpi::rank() == 0;
  const std::vector<std::int64_t> faces = owned_entries(piece.faces.global, piece.faces);
  const std::vector<std::int64_t> cells = owned_entries(piece.cells.global, piece.cells);
  g.flux = gather_by_id(faces, owned_entries(s.flux, piece.faces), root ? size_t(fine.faces) : 0);
  g.pressure = gather_by_id(cells, owned_entries(s.pressure, piece.cells), root ? size_t(fine.cells) : 0);
  if (!s.previous_flux.empty())  // every rank has one or none
    g.previous_flux = gather_by_id(faces, owned_entries(s.previous_flux, piece.faces), root ? size_t(fine.faces) : 0);
  return g;
}

// --restart: rank 0's checkpoint (by global id), each rank's entries of it (cut faces 0).
FlowState scatter_state(const std::optional<FlowState>& whole, const EntityPiece& piece, const FineCounts& fine) {
  double head[4] = {0, 0, 0, 0};
  if (whole) {
    SS_REQUIRE(std::int64_t(whole->flux.size()) == fine.faces && std::int64_t(whole->pressure.size()) == fine.cells,
               "--restart: the checkpoint of step " << whole->step << " does not fit this mesh");  // checked at reading
    head[0] = whole->step, head[1] = whole->time, head[2] = whole->dt, head[3] = !whole->previous_flux.empty();
  }
  mpi_check(MPI_Bcast(head, 4, MPI_DOUBLE, 0, MPI_COMM_WORLD), "MPI_Bcast");
  FlowState s;
  s.step = int(head[0]), s.time = head[1], s.dt = head[2];
  const std::vector<double> none;
  s.flux = scatter_by_id(whole ? whole->flux : none, piece.faces.global);
  s.pressure = scatter_by_id(whole ? whole->pressure : none, piece.cells.global);
  if (head[3] != 0) s.previous_flux = scatter_by_id(whole ? whole->previous_flux : none, piece.faces.global);
  return s;
}

// The fields of a rank's piece, right on its owned cells and their nodes (cell and node halos);
// its piece file "<stem>_piece_<rank>.vtu": the owned cells, every local node, the cell array `rank`.
class PieceFields {
public:
  PieceFields(const LoadedMesh& local, const FlowProblem& problem, const EntityPiece& piece)
      : local_(local), problem_(problem), ops_(local), cell_halo_(host_, piece.cells.links, MPI_COMM_WORLD),
        node_halo_(host_, piece.nodes.links, MPI_COMM_WORLD) {
    for (size_t c = 0; c < piece.cells.owned.size(); ++c)
      if (piece.cells.owned[c]) owned_cells_.push_back(std::int32_t(c));
    piece_.nodes = local.mesh.nodes;
    for (std::int32_t c : owned_cells_) piece_.tets.push_back(local.mesh.tets[size_t(c)]);
  }

  // Collective (halo updates).
  FlowFields compute(const FlowState& state) {
    FlowFieldGhosts ghosts;
    ghosts.cells = [&](std::vector<double>& v) { cell_halo_.update(v); };
    ghosts.nodes = [&](std::vector<double>& v) { node_halo_.update(v); };
    return compute_flow_fields(ops_, local_, problem_, state, &ghosts);
  }

  // Every rank writes its piece (collective: a barrier, so that every piece is there when this
  // returns); the piece names, for rank 0's .pvtu.
  std::vector<std::string> write(const std::string& out_dir, const std::string& stem, const FlowFields& fields) {
    return write_rank_pieces(
        out_dir, stem,
        [&](const std::string& path) { write_flow_vtu(path, piece_, select_cells(fields, owned_cells_), mpi::rank()); },
        MPI_COMM_WORLD);
  }

  // flow.json's summary of `fields` over every rank's owned cells (collective).
  FlowFieldSummary summary(const FlowFields& fields, double time) const {
    double max[3] = {0, -std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity()};
    for (std::int32_t c : owned_cells_) {  // max |u|, max p, max −p
      max[0] = std::max(max[0], glm::length(fields.cell_velocity[size_t(c)]));
      max[1] = std::max(max[1], fields.pressure[size_t(c)]);
      max[2] = std::max(max[2], -fields.pressure[size_t(c)]);
    }
    mpi_check(MPI_Allreduce(MPI_IN_PLACE, max, 3, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD), "MPI_Allreduce");
    FlowFieldSummary s;
    s.max_speed = max[0];
    s.pressure_range = max[1] + max[2];
    if (problem_.exact_velocity) {
      FlowExactSums e = velocity_error_sums(local_, fields, problem_.exact_velocity, time, owned_cells_);
      double sums[2] = {e.error2, e.norm2}, maxima[2] = {e.max_error, e.max_speed};
      mpi_check(MPI_Allreduce(MPI_IN_PLACE, sums, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD), "MPI_Allreduce");
      mpi_check(MPI_Allreduce(MPI_IN_PLACE, maxima, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD), "MPI_Allreduce");
      e.error2 = sums[0], e.norm2 = sums[1], e.max_error = maxima[0], e.max_speed = maxima[1];
      s.exact = velocity_error(e, time);
    }
    return s;
  }

private:
  const LoadedMesh& local_;
  const FlowProblem& problem_;
  CpuMeshOperators ops_;
  CpuBackend host_;
  HaloExchange<CpuBackend> cell_halo_, node_halo_;
  std::vector<std::int32_t> owned_cells_;
  TetMesh piece_;
};

// The node velocity at the base mesh's nodes (the lattice numbers them first), at rank 0.
std::vector<glm::dvec3> base_node_velocity(const FlowFields& fields, const EntityPiece& piece, std::int64_t base_nodes) {
  std::vector<std::int64_t> ids;
  std::vector<double> values;
  for (size_t i = 0; i < piece.nodes.global.size(); ++i)
    if (piece.nodes.owned[i] && piece.nodes.global[i] < base_nodes) {
      ids.push_back(piece.nodes.global[i]);
      for (int k = 0; k < 3; ++k) values.push_back(fields.node_velocity[i][k]);
    }
  const std::vector<double> all = gather_by_id(ids, values, mpi::rank() == 0 ? size_t(base_nodes) : 0, 3);
  std::vector<glm::dvec3> u(all.size() / 3);
  for (size_t n = 0; n < u.size(); ++n) u[n] = {all[3 * n], all[3 * n + 1], all[3 * n + 2]};
  return u;
}

// Step 4 on one backend: halos of the three entity kinds, the distributed backend and operators,
// the unchanged time loop.
template <class Backend, class FlowOps>
FlowRunResult run_piece(Backend& local, FlowOps& ops, const EntityPiece& piece, const FlowProblem& problem,
                        const LoadedMesh& mesh, const FlowOperatorData& data, const FlowState* initial,
                        const FlowRunHooks& hooks, RankFigures& figures) {
  HaloExchange<Backend> cells(local, piece.cells.links, MPI_COMM_WORLD);
  HaloExchange<Backend> faces(local, piece.faces.links, MPI_COMM_WORLD);
  HaloExchange<Backend> edges(local, piece.edges.links, MPI_COMM_WORLD);
  DistributedBackend<Backend> dist(
      local, {owner_marker(piece.cells), owner_marker(piece.faces), owner_marker(piece.edges)}, MPI_COMM_WORLD);
  dist.attach_halo(std::int64_t(piece.cells.global.size()), cells);
  dist.attach_halo(std::int64_t(piece.faces.global.size()), faces);
  dist.attach_halo(std::int64_t(piece.edges.global.size()), edges);
  DistributedFlowOperators<Backend, FlowOps> dops(dist, ops);
  FlowRunResult r = run_flow(dist, dops, problem, mesh, data, initial, hooks, "rank " + std::to_string(mpi::rank()));
  // Host seconds of the halo not hidden by GPU work, per component (HaloExchange), and round trips.
  figures.add("halo_seconds", cells.seconds() + faces.seconds() + edges.seconds());
  figures.add("halo_readback_seconds", cells.readback_seconds() + faces.readback_seconds() + edges.readback_seconds());
  figures.add("halo_mpi_seconds", cells.mpi_seconds() + faces.mpi_seconds() + edges.mpi_seconds());
  figures.add("halo_upload_seconds", cells.upload_seconds() + faces.upload_seconds() + edges.upload_seconds());
  figures.add_count("halo_exchanges", double(cells.exchanges() + faces.exchanges() + edges.exchanges()));
  figures.add_count("halo_values_received",
                    double(cells.values_received() + faces.values_received() + edges.values_received()));
  figures.add("allreduce_seconds", dist.allreduce_seconds());
  figures.add_count("allreduces", double(dist.allreduces()));
  figures.add("run_seconds", r.seconds);
  return r;
}

}  // namespace

void run_flow_distributed(const FlowOptions& o, const GlobalOptions& globals) {
  const auto t_start = StageTimings::now();
  if (!mpi::active()) mpi::init(nullptr, nullptr, true);
  const int rank = mpi::rank(), ranks = mpi::size();
  SS_REQUIRE(!o.compare, "--compare is not available with MPI ranks (compare a serial run's flow.json instead)");
  SS_REQUIRE(!globals.gl.window, "flow has no live window; drop --window (flow.png and the VTU files show the result)");

  // 1. Every rank opens its device first: a rank that cannot start stops the job before any work.
  std::optional<GlContext> context;
  const std::string device =
      open_rank_device(o.backend, globals.gl, globals.gpu_option && globals.gpu_option->count(), context);

  // 2. Rank 0 reads, checks, partitions and sends; the others receive their base piece.
  std::optional<Root> root;
  PieceAssignment a;
  if (rank == 0) {
    root.emplace();
    a = read_and_distribute(o, *root);
  } else {
    a = receive_piece_assignment(MPI_COMM_WORLD);
  }
  const std::string out_dir = broadcast_string(root ? root->out_dir : std::string());
  const int base_levels = root ? root->base_levels : 0;  // rank 0 writes the checkpoints

  // 3. The piece: refined here, its problem, mesh tables (no renumbering: the piece's order) and
  //    coefficients.
  RankFigures figures;
  auto t0 = StageTimings::now();
  const FineCounts fine = refined_entity_counts(a.base, a.levels);
  const std::int64_t base_nodes = a.base.base_nodes;
  EntityPiece piece = refine_entity_piece(a.base, a.levels, MPI_COMM_WORLD);
  a.base = {};
  figures.add("refine_seconds", std::chrono::duration<double>(StageTimings::now() - t0).count());
  if (root) root->timings.add_since("refine_rank0", t0);
  t0 = StageTimings::now();
  const FlowCase flow_case = [&] {
    FlowCase c = parse_flow_case(a.case_text, a.case_path);
    if (o.refine) c.refine = *o.refine;
    return c;
  }();
  const LoadedMesh local = prepare_in_order(std::move(piece.mesh));
  FlowProblem problem = build_flow_problem(flow_case, local, {&a.groups, &piece.cut});
  use_jacobi_pressure(problem);
  SS_REQUIRE(std::int64_t(local.topology.num_faces) == std::int64_t(piece.faces.global.size()) &&
                 std::int64_t(local.topology.num_edges) == std::int64_t(piece.edges.global.size()),
             "flow: rank " << rank << "'s piece has other faces or edges than it numbered");
  // The operator tables, built once: the coefficients here, the GPU's upload below, then freed.
  std::optional<MeshOperatorTables> tables(build_mesh_operator_tables(local.topology, local.geometry));
  const FlowOperatorData data = piece_operator_data(*tables, problem, piece, fine.cells);
  if (o.backend != "gpu") tables.reset();  // CpuMeshOperators works from the mesh itself
  if (root) root->timings.add_since("prepare_rank0", t0);

  // Checkpoints at rank 0 from the gathered state; --restart sends each rank its part.
  std::optional<FlowState> initial;
  if (o.restart) initial = scatter_state(root ? root->checkpoint : std::nullopt, piece, fine);
  std::optional<CpuMeshOperators> whole_ops;
  if (root && root->whole) whole_ops.emplace(root->whole->mesh);
  // The fields as one piece per rank (else gathered into one VTU at rank 0).
  PieceFields fields(local, problem, piece);
  const bool pieces = !o.single_vtu && !o.no_vtu;
  const TimeSeries names(out_dir, "flow");

  const std::string label = o.backend + ", " + std::to_string(ranks) + " ranks";
  FlowRunHooks hooks = root ? flow_progress_hooks(label, root->problem) : FlowRunHooks{};
  hooks.every = o.every ? *o.every : flow_case.output_every;
  hooks.snapshot = [&](const FlowState& s) {
    const FlowState g = gather_state(s, piece, fine, base_levels);
    std::vector<std::string> written;
    if (pieces) written = fields.write(out_dir, names.snapshot_stem(s.step), fields.compute(s));
    if (!root) return;
    std::optional<FlowState> whole_state;
    if (root->whole) whole_state = root->whole->in_order(g);
    const std::vector<std::string> forces =
        root->meter ? force_rows(*root->meter, root->whole->problem, *whole_state) : std::vector<std::string>{};
    if (o.no_vtu) root->checkpoints->write_checkpoint(g, forces);
    else if (pieces) root->checkpoints->write_pieces(g, written, forces);
    else root->checkpoints->write(g, root->whole->mesh.mesh,
                                  compute_flow_fields(*whole_ops, root->whole->mesh, root->whole->problem, *whole_state),
                                  forces);
  };

  // 4. Run.
  t0 = StageTimings::now();
  figures.add_count("owned_cells", double(piece.cells.owned_count()));
  figures.add_count("ghost_cells", double(piece.cells.global.size() - size_t(piece.cells.owned_count())));
  figures.add_count("owned_faces", double(piece.faces.owned_count()));
  figures.add_count("ghost_faces", double(piece.faces.global.size() - size_t(piece.faces.owned_count())));
  figures.add_count("neighbours", double(piece.cells.links.size()));
  // From the start to the operators on the device (device, piece, tables, upload).
  const auto setup_done = [&] {
    figures.add("setup_seconds", std::chrono::duration<double>(StageTimings::now() - t_start).count());
  };
  FlowRunResult result;
  if (o.backend == "gpu") {
    GpuBackend gpu(*context, LayoutOptions{}, globals.gpu_options());
    GpuMeshOperators mesh_ops(gpu, *tables);
    tables.reset();  // on the device now
    GpuFlowOperators ops(gpu, mesh_ops, data);
    setup_done();
    result = run_piece(gpu, ops, piece, problem, local, data, initial ? &*initial : nullptr, hooks, figures);
  } else {
    CpuBackend cpu;
    CpuMeshOperators mesh_ops(local);
    CpuFlowOperators ops(mesh_ops, data);
    setup_done();
    result = run_piece(cpu, ops, piece, problem, local, data, initial ? &*initial : nullptr, hooks, figures);
  }
  if (root) root->timings.add_since("solve", t0);
  figures.add_count("peak_host_memory_bytes", double(peak_host_memory_bytes()));  // this rank's peak RSS

  // 5. The final fields: the pieces (rank 0 writes flow.pvtu over them), the summary reduced over
  //    the ranks, the node velocity at the base nodes (flow.png), the final state and the per-rank
  //    figures at rank 0, which writes the serial run's other files.
  t0 = StageTimings::now();
  const FlowFields final_fields = fields.compute(result.state);
  const FlowFieldSummary summary = fields.summary(final_fields, result.state.time);
  std::vector<glm::dvec3> base_velocity = base_node_velocity(final_fields, piece, base_nodes);
  if (root) root->timings.add_since("fields", t0);
  std::vector<std::string> final_pieces;
  t0 = StageTimings::now();
  if (pieces) final_pieces = fields.write(out_dir, "flow", final_fields);
  if (root && pieces) root->timings.add_since("write", t0);
  result.state = gather_state(result.state, piece, fine, base_levels);
  // Every boundary face of the whole mesh once: the owned faces of the pieces that are not cut.
  std::int64_t boundary_faces = 0;
  for (size_t k = 0; k < local.topology.boundary_faces.size(); ++k)
    boundary_faces += !piece.cut[k] && piece.faces.owned[size_t(local.topology.boundary_faces[k])];
  mpi_check(MPI_Allreduce(MPI_IN_PLACE, &boundary_faces, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD), "MPI_Allreduce");
  const nlohmann::json per_rank = figures.gather(device);
  if (!root) return;

  std::vector<BackendFlowRun> runs;
  runs.push_back({o.backend, device, std::move(result), {}});
  const LoadedMesh* picture = &root->base;  // flow.png's mesh
  if (root->whole) {
    t0 = StageTimings::now();
    runs[0].result.state = root->whole->in_order(runs[0].result.state);
    runs[0].fields = compute_flow_fields(*whole_ops, root->whole->mesh, root->whole->problem, runs[0].result.state);
    picture = &root->whole->mesh;
    root->timings.add_since("fields", t0);
  } else {
    runs[0].fields.node_velocity = std::move(base_velocity);
  }
  nlohmann::json extra = {{"ranks", ranks}, {"per_rank", per_rank}};
  extra["mesh"] = {{"file", flow_case.mesh_file}, {"nodes", fine.nodes}, {"cells", fine.cells}, {"faces", fine.faces},
                   {"boundary_faces", boundary_faces}, {"refine", flow_case.refine},
                   {"base_cells", root->base.mesh.tets.size()}, {"refined_on_ranks", flow_case.refine - base_levels}};
  FlowOptions rest = o;  // what write_flow_results writes: the VTU unless the pieces are written
  if (pieces) {
    t0 = StageTimings::now();
    write_flow_pvtu((fs::path(out_dir) / "flow.pvtu").string(), final_pieces);
    root->timings.add_since("write", t0);
    extra["vtu"] = {{"file", "flow.pvtu"}, {"pieces", ranks}};
    rest.no_vtu = true;
  }
  write_flow_results(rest, globals, flow_case, *picture, root->problem, runs, root->meter ? &*root->meter : nullptr,
                     root->checkpoint ? &*root->checkpoint : nullptr, root->timings, out_dir, extra, &summary);
}

}  // namespace ss
