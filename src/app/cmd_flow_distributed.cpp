// The flow command over MPI ranks (`mpirun -np N streamsolve flow CASE.toml`), thesis ch. 8.
//
//   1. every rank opens its GPU (local rank mod devices, --gpu overrides) or the CPU reference first.
//   2. rank 0 reads the case and the mesh, builds the problem on the whole mesh (every case mistake
//      stops here), partitions the tets (METIS on the file's mesh, or on a coarse level of it when
//      it has fewer than 64 tets per rank; the refined tets inherit their ancestor's part) and sends
//      each rank its piece for every entity kind (parallel/entity_partition.hpp) with the boundary
//      condition of each of its boundary faces.
//   3. every rank builds its piece's problem (the case's conditions; cut faces a placeholder), mesh
//      tables and operator coefficients, the ghost entries of the coefficients from their owners;
//      the curl–curl term's interval comes from one Lanczos run over all ranks (edge_space).
//   4. every rank runs the unchanged FlowSolver over a DistributedBackend (owner-marked reductions,
//      one marker per entity kind) and DistributedFlowOperators (every operator output's ghosts
//      exchanged): the same steps, reductions and iterations as the serial run.
//   5. the fields: every rank writes its piece (its owned cells) of each snapshot and of the final
//      state, flow_NNNNNN_piece_<rank>.vtu and flow_piece_<rank>.vtu, and rank 0 the .pvtu over them;
//      --single-vtu gathers them into the serial run's one VTU at rank 0 instead. Checkpoints and
//      the final state are gathered at rank 0, which writes the serial run's other files
//      (flow_NNNNNN.state, flow.pvd, forces.csv, flow.png, flow.json).
//      --restart: rank 0 reads the last checkpoint and sends each rank its entries.
// Not over ranks (an error says so, before any work): the exact method. The pressure multigrid
// preconditioner is serial: over ranks the pressure solve uses Jacobi (stderr and flow.json say so).
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>

#include <mpi.h>

#include "app/flow_command.hpp"
#include "app/flow_output.hpp"
#include "cpu/cpu_backend.hpp"
#include "gl/context.hpp"
#include "operators/curl_curl_viscous.hpp"
#include "operators/flow_operators.hpp"
#include "parallel/collect.hpp"
#include "parallel/distributed_backend.hpp"
#include "parallel/distributed_flow_operators.hpp"
#include "parallel/entity_partition.hpp"
#include "parallel/halo.hpp"
#include "parallel/message.hpp"
#include "parallel/mpi_env.hpp"
#include "parallel/rank_report.hpp"
#include "physics/flow_case_problem.hpp"
#include "util/error.hpp"
#include "util/host_memory.hpp"

namespace ss {
namespace {

namespace fs = std::filesystem;

constexpr int piece_tag = 21;

// What rank 0 sends each rank.
struct FlowPiece {
  EntityPiece piece;
  std::vector<std::int32_t> boundary_condition;  // per boundary face of the piece: condition, -1 on a cut face
  std::int64_t global_cells = 0;
};

void put(Packer& p, const EntityHalo& h) {
  p.put(h.global);
  p.put(h.owned);
  p.put(std::uint64_t(h.links.size()));
  for (const HaloLink& l : h.links) {
    p.put(l.rank);
    p.put(l.send);
    p.put(l.recv);
  }
}

void get(Unpacker& u, EntityHalo& h) {
  u.get(h.global);
  u.get(h.owned);
  std::uint64_t links = 0;
  u.get(links);
  h.links.resize(size_t(links));
  for (HaloLink& l : h.links) {
    u.get(l.rank);
    u.get(l.send);
    u.get(l.recv);
  }
}

std::vector<char> pack(const FlowPiece& f) {
  Packer p;
  p.put(f.piece.mesh.source);
  p.put(f.piece.mesh.nodes);
  p.put(f.piece.mesh.tets);
  p.put(f.piece.mesh.tet_groups);
  for (const EntityHalo* h : {&f.piece.nodes, &f.piece.cells, &f.piece.faces, &f.piece.edges}) put(p, *h);
  p.put(f.piece.boundary_index);
  p.put(f.boundary_condition);
  p.put(f.global_cells);
  return std::move(p.bytes());
}

FlowPiece unpack(const std::vector<char>& bytes) {
  Unpacker u(bytes);
  FlowPiece f;
  u.get(f.piece.mesh.source);
  u.get(f.piece.mesh.nodes);
  u.get(f.piece.mesh.tets);
  u.get(f.piece.mesh.tet_groups);
  for (EntityHalo* h : {&f.piece.nodes, &f.piece.cells, &f.piece.faces, &f.piece.edges}) get(u, *h);
  u.get(f.piece.boundary_index);
  u.get(f.boundary_condition);
  u.get(f.global_cells);
  return f;
}

// Over ranks the pressure multigrid is replaced by Jacobi (the V-cycle is serial).
void use_jacobi_pressure(FlowProblem& p) {
  if (p.pressure.multigrid) p.pressure.multigrid = false, p.pressure.jacobi = true;
}

// Rank 0's view of the whole run.
struct Root {
  FlowCase flow_case;
  LoadedMesh mesh;
  FlowProblem problem;
  // Per rank, global ids: owned faces and cells in its local order (gathers), all its local faces
  // and cells (restart).
  std::vector<std::vector<std::int64_t>> owned_faces, owned_cells, local_faces, local_cells;
  StageTimings timings;
};

std::vector<std::int64_t> owned_ids(const EntityHalo& h) {
  std::vector<std::int64_t> ids;
  for (size_t i = 0; i < h.global.size(); ++i)
    if (h.owned[i]) ids.push_back(h.global[i]);
  return ids;
}

// Rank 0: read, build, partition, send. Returns rank 0's own piece.
FlowPiece read_and_distribute(const FlowOptions& o, Root& root) {
  const int ranks = mpi::size();
  root.flow_case = read_flow_case(o.case_file);
  if (o.refine) root.flow_case.refine = *o.refine;
  auto t0 = StageTimings::now();
  root.mesh = load_mesh(root.flow_case.mesh_file, root.flow_case.refine);
  add_mesh_timings(root.timings, root.mesh.report,
                   std::chrono::duration<double>(StageTimings::now() - t0).count(), false);
  t0 = StageTimings::now();
  root.problem = build_flow_problem(root.flow_case, root.mesh);
  SS_REQUIRE(root.problem.method == FlowMethod::classical,
             root.flow_case.where("scheme.method")
                 << ": the exact method runs on one process only (its streamfunction boundary lift, harmonic basis and "
                    "gauge are built on the whole mesh); start it without mpirun, or use method = \"classical\"");
  if (root.problem.pressure.multigrid)
    std::fprintf(stderr, "streamsolve: flow: %d ranks: the pressure multigrid is serial; the pressure solve uses Jacobi\n",
                 ranks);
  use_jacobi_pressure(root.problem);
  root.timings.add_since("problem", t0);
  const Topology& t = root.mesh.topology;
  std::fprintf(stderr, "streamsolve: flow: %zu nodes, %d cells, %d faces (%zu on the boundary), %d ranks\n",
               root.mesh.mesh.nodes.size(), t.num_cells, t.num_faces, t.boundary_faces.size(), ranks);

  // METIS splits a coarse level (coarse_partition_levels: the file's mesh unless it has too few tets
  // per rank); the refined tets inherit their ancestor's part.
  t0 = StageTimings::now();
  const int refine = root.flow_case.refine;
  const int coarse = coarse_partition_levels(root.mesh.report.file_tets, ranks, refine);
  LoadOptions coarse_load;
  coarse_load.refine = coarse;
  coarse_load.tables = TopologyTables::edges;
  const LoadedMesh coarse_mesh = load_mesh(root.flow_case.mesh_file, coarse_load);
  std::vector<EntityPiece> pieces =
      partition_entities(root.mesh, inherit_partition(partition_tets(coarse_mesh.mesh, ranks), refine - coarse), ranks);
  root.timings.add_since("partition", t0);
  t0 = StageTimings::now();
  FlowPiece mine;
  for (int q = 0; q < ranks; ++q) {
    FlowPiece f;
    f.piece = std::move(pieces[size_t(q)]);
    for (std::int32_t b : f.piece.boundary_index)
      f.boundary_condition.push_back(b < 0 ? -1 : root.problem.boundary_condition[size_t(b)]);
    f.global_cells = t.num_cells;
    root.owned_faces.push_back(owned_ids(f.piece.faces));
    root.owned_cells.push_back(owned_ids(f.piece.cells));
    root.local_faces.push_back(f.piece.faces.global);
    root.local_cells.push_back(f.piece.cells.global);
    if (q == 0) mine = std::move(f);
    else send_bytes(pack(f), q, piece_tag, MPI_COMM_WORLD);
  }
  root.timings.add_since("distribute", t0);
  return mine;
}

// The piece's problem: the case's conditions (in case order, as rank 0 numbered them) and one more
// for the cut faces (at rest: no owned entity's operator row reads it).
FlowProblem piece_problem(const FlowCase& flow_case, const FlowPiece& f) {
  FlowProblem p = build_flow_problem_settings(flow_case);
  use_jacobi_pressure(p);
  const std::int32_t cut = std::int32_t(p.conditions.size());
  FlowCondition placeholder;
  placeholder.label = "partition cut";
  p.conditions.push_back(placeholder);
  for (std::int32_t c : f.boundary_condition) {
    SS_REQUIRE(c < cut, "flow: rank " << mpi::rank() << " got condition " << c << " of " << cut);
    p.boundary_condition.push_back(c < 0 ? cut : c);
  }
  return p;
}

std::vector<double> owner_marker(const EntityHalo& h) { return std::vector<double>(h.owned.begin(), h.owned.end()); }

template <class T>
std::vector<double> owned_values(const std::vector<T>& v, const EntityHalo& h) {
  std::vector<double> out;
  for (size_t i = 0; i < h.owned.size(); ++i)
    if (h.owned[i]) out.push_back(double(v[i]));
  return out;
}

// The edges of the whole mesh as seen from this piece, for the curl–curl viscous term's Lanczos
// interval (eigen_estimate.hpp): start values by global edge id, ghosts from their owners, dot
// products over the owned edges of every rank. So every rank count finds the serial run's interval.
std::shared_ptr<const LanczosSpace> edge_space(const EntityHalo& edges) {
  struct Halo {
    CpuBackend host;
    HaloExchange<CpuBackend> exchange;
    explicit Halo(const std::vector<HaloLink>& links) : exchange(host, links, MPI_COMM_WORLD) {}
  };
  auto halo = std::make_shared<Halo>(edges.links);
  auto space = std::make_shared<LanczosSpace>();
  space->global_ids = edges.global;
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
FlowOperatorData piece_operator_data(const LoadedMesh& local, const FlowProblem& problem, const FlowPiece& f) {
  const MeshOperatorTables tables = build_mesh_operator_tables(local.topology, local.geometry);
  FlowOperatorData d = build_flow_operator_data(tables, problem.boundary_kinds());
  CpuBackend host;
  HaloExchange<CpuBackend> cells(host, f.piece.cells.links, MPI_COMM_WORLD);
  HaloExchange<CpuBackend> faces(host, f.piece.faces.links, MPI_COMM_WORLD);
  for (std::vector<double>* v : {&d.free_mask, &d.face_mass, &d.area_over_distance, &d.pressure_weight,
                                 &d.laplacian_diagonal})
    faces.update(*v);
  for (std::vector<double>* v : {&d.inverse_volume, &d.pressure_diagonal}) cells.update(*v);
  // An outlet anywhere makes P definite on every rank (cut faces are walls: they add none).
  int fixed = d.pressure_fixed ? 1 : 0, any = 0;
  mpi_check(MPI_Allreduce(&fixed, &any, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD), "MPI_Allreduce");
  d.pressure_fixed = any != 0;
  d.global_cells = f.global_cells;
  d.edge_space = edge_space(f.piece.edges);
  return d;
}

// A rank's state on the whole mesh at rank 0 (owned entries gathered; empty elsewhere).
FlowState gather_state(const FlowState& s, const FlowPiece& f, const Root* root) {
  FlowState g{s.step, s.time, s.dt, {}, {}, {}, {}};
  const size_t nf = root ? size_t(root->mesh.topology.num_faces) : 0, nc = root ? size_t(root->mesh.topology.num_cells) : 0;
  g.flux = gather_to_root(owned_values(s.flux, f.piece.faces), root ? &root->owned_faces : nullptr, nf);
  g.pressure = gather_to_root(owned_values(s.pressure, f.piece.cells), root ? &root->owned_cells : nullptr, nc);
  if (!s.previous_flux.empty())  // every rank has one or none
    g.previous_flux = gather_to_root(owned_values(s.previous_flux, f.piece.faces), root ? &root->owned_faces : nullptr, nf);
  return g;
}

// --restart: rank 0's checkpoint, each rank's entries of it.
FlowState scatter_state(const std::optional<FlowState>& whole, const Root* root) {
  double head[4] = {0, 0, 0, 0};
  if (whole) head[0] = whole->step, head[1] = whole->time, head[2] = whole->dt, head[3] = !whole->previous_flux.empty();
  mpi_check(MPI_Bcast(head, 4, MPI_DOUBLE, 0, MPI_COMM_WORLD), "MPI_Bcast");
  FlowState s;
  s.step = int(head[0]), s.time = head[1], s.dt = head[2];
  const std::vector<double> none;
  s.flux = scatter_from_root(whole ? whole->flux : none, root ? &root->local_faces : nullptr);
  s.pressure = scatter_from_root(whole ? whole->pressure : none, root ? &root->local_cells : nullptr);
  if (head[3] != 0) s.previous_flux = scatter_from_root(whole->previous_flux, root ? &root->local_faces : nullptr);
  return s;
}

// The fields of a rank's piece, right on its owned cells and their nodes (cell and node halos),
// written as "<stem>_piece_<rank>.vtu": the owned cells, every local node, and the cell array `rank`.
class PieceWriter {
public:
  PieceWriter(const LoadedMesh& local, const FlowProblem& problem, const FlowPiece& f)
      : local_(local), problem_(problem), ops_(local), cell_halo_(host_, f.piece.cells.links, MPI_COMM_WORLD),
        node_halo_(host_, f.piece.nodes.links, MPI_COMM_WORLD) {
    for (size_t c = 0; c < f.piece.cells.owned.size(); ++c)
      if (f.piece.cells.owned[c]) owned_cells_.push_back(std::int32_t(c));
    piece_.nodes = local.mesh.nodes;
    for (std::int32_t c : owned_cells_) piece_.tets.push_back(local.mesh.tets[size_t(c)]);
  }

  // Every rank writes its piece (collective: the halo updates and a barrier, so that every piece is
  // there when this returns); the piece names, for rank 0's .pvtu.
  std::vector<std::string> write(const std::string& out_dir, const std::string& stem, const FlowState& state) {
    FlowFieldGhosts ghosts;
    ghosts.cells = [&](std::vector<double>& v) { cell_halo_.update(v); };
    ghosts.nodes = [&](std::vector<double>& v) { node_halo_.update(v); };
    const FlowFields fields = compute_flow_fields(ops_, local_, problem_, state, &ghosts);
    write_flow_vtu((fs::path(out_dir) / piece_name(stem, mpi::rank())).string(), piece_,
                   select_cells(fields, owned_cells_), mpi::rank());
    mpi_check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
    std::vector<std::string> names;
    for (int q = 0; q < mpi::size(); ++q) names.push_back(piece_name(stem, q));
    return names;
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

// Step 4 on one backend: halos of the three entity kinds, the distributed backend and operators,
// the unchanged time loop.
template <class Backend, class FlowOps>
FlowRunResult run_piece(Backend& local, FlowOps& ops, const FlowPiece& f, const FlowProblem& problem,
                        const LoadedMesh& mesh, const FlowOperatorData& data, const FlowState* initial,
                        const FlowRunHooks& hooks, RankFigures& figures) {
  HaloExchange<Backend> cells(local, f.piece.cells.links, MPI_COMM_WORLD);
  HaloExchange<Backend> faces(local, f.piece.faces.links, MPI_COMM_WORLD);
  HaloExchange<Backend> edges(local, f.piece.edges.links, MPI_COMM_WORLD);
  DistributedBackend<Backend> dist(
      local, {owner_marker(f.piece.cells), owner_marker(f.piece.faces), owner_marker(f.piece.edges)}, MPI_COMM_WORLD);
  dist.attach_halo(std::int64_t(f.piece.cells.global.size()), cells);
  dist.attach_halo(std::int64_t(f.piece.faces.global.size()), faces);
  dist.attach_halo(std::int64_t(f.piece.edges.global.size()), edges);
  DistributedFlowOperators<Backend, FlowOps> dops(dist, ops);
  FlowRunResult r = run_flow(dist, dops, problem, mesh, data, initial, hooks, "rank " + std::to_string(mpi::rank()));
  figures.add("halo_seconds", cells.seconds() + faces.seconds() + edges.seconds());
  figures.add_count("halo_exchanges", double(cells.exchanges() + faces.exchanges() + edges.exchanges()));
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

  // 2. Rank 0 reads, partitions and sends; the others receive their piece.
  std::optional<Root> root;
  FlowPiece f;
  if (rank == 0) {
    root.emplace();
    f = read_and_distribute(o, *root);
  } else {
    f = unpack(recv_bytes(0, piece_tag, MPI_COMM_WORLD));
  }
  const std::string out_dir =
      broadcast_string(rank == 0 ? prepare_output_directory(o.out, root->flow_case.output_directory) : std::string());

  // 3. The piece: its problem, mesh tables (no renumbering: the partition's order) and coefficients.
  auto t0 = StageTimings::now();
  FlowCase flow_case = read_flow_case(o.case_file);
  const FlowProblem problem = piece_problem(flow_case, f);
  LoadOptions load;
  load.renumber = false;
  const LoadedMesh local = prepare_mesh(std::move(f.piece.mesh), load);
  SS_REQUIRE(std::int64_t(local.topology.num_faces) == std::int64_t(f.piece.faces.global.size()) &&
                 std::int64_t(local.topology.num_edges) == std::int64_t(f.piece.edges.global.size()) &&
                 local.topology.boundary_faces.size() == f.boundary_condition.size(),
             "flow: rank " << rank << "'s piece has other faces or edges than rank 0 partitioned");
  const FlowOperatorData data = piece_operator_data(local, problem, f);
  if (root) root->timings.add_since("prepare_rank0", t0);

  // Checkpoints and snapshots at rank 0 from the gathered state; --restart sends each rank its part.
  std::optional<FlowCheckpoints> checkpoints;
  std::optional<FlowState> whole_initial;
  std::optional<CpuMeshOperators> output_ops;
  std::optional<FlowForceMeter> meter;
  if (root) {
    checkpoints.emplace(out_dir, !root->problem.forces.empty());
    if (o.restart) {
      whole_initial = checkpoints->resume();
      std::fprintf(stderr, "streamsolve: flow: continuing from step %d (t = %g)\n", whole_initial->step, whole_initial->time);
    } else {
      checkpoints->clear_previous_run();
    }
    output_ops.emplace(root->mesh);
    if (!root->problem.forces.empty()) meter.emplace(root->mesh, root->problem);
  }
  std::optional<FlowState> initial;
  if (o.restart) initial = scatter_state(whole_initial, root ? &*root : nullptr);

  // The fields as one piece per rank (else gathered into one VTU at rank 0).
  std::optional<PieceWriter> pieces;
  if (!o.single_vtu && !o.no_vtu) pieces.emplace(local, problem, f);
  const TimeSeries names(out_dir, "flow");

  const std::string label = o.backend + ", " + std::to_string(ranks) + " ranks";
  FlowRunHooks hooks = rank == 0 ? flow_progress_hooks(label, root->problem) : FlowRunHooks{};
  hooks.every = o.every ? *o.every : flow_case.output_every;
  hooks.snapshot = [&](const FlowState& s) {
    const FlowState g = gather_state(s, f, root ? &*root : nullptr);
    std::vector<std::string> written;
    if (pieces) written = pieces->write(out_dir, names.snapshot_stem(s.step), s);
    if (!root) return;
    const std::vector<std::string> forces = meter ? force_rows(*meter, root->problem, g) : std::vector<std::string>{};
    if (o.no_vtu) checkpoints->write_checkpoint(g, forces);
    else if (pieces) checkpoints->write_pieces(g, written, forces);
    else checkpoints->write(g, root->mesh.mesh, compute_flow_fields(*output_ops, root->mesh, root->problem, g), forces);
  };

  // 4. Run.
  t0 = StageTimings::now();
  RankFigures figures;
  figures.add_count("owned_cells", double(f.piece.cells.owned_count()));
  figures.add_count("ghost_cells", double(f.piece.cells.global.size() - size_t(f.piece.cells.owned_count())));
  figures.add_count("owned_faces", double(f.piece.faces.owned_count()));
  figures.add_count("ghost_faces", double(f.piece.faces.global.size() - size_t(f.piece.faces.owned_count())));
  figures.add_count("neighbours", double(f.piece.cells.links.size()));
  // From the start to the operators on the device (device, piece, tables, upload).
  const auto setup_done = [&] {
    figures.add("setup_seconds", std::chrono::duration<double>(StageTimings::now() - t_start).count());
  };
  FlowRunResult result;
  if (o.backend == "gpu") {
    GpuBackend gpu(*context, LayoutOptions{}, globals.gpu_options());
    const MeshOperatorTables tables = build_mesh_operator_tables(local.topology, local.geometry);
    GpuMeshOperators mesh_ops(gpu, tables);
    GpuFlowOperators ops(gpu, mesh_ops, data);
    setup_done();
    result = run_piece(gpu, ops, f, problem, local, data, initial ? &*initial : nullptr, hooks, figures);
  } else {
    CpuBackend cpu;
    CpuMeshOperators mesh_ops(local);
    CpuFlowOperators ops(mesh_ops, data);
    setup_done();
    result = run_piece(cpu, ops, f, problem, local, data, initial ? &*initial : nullptr, hooks, figures);
  }
  if (root) root->timings.add_since("solve", t0);
  figures.add_count("peak_host_memory_bytes", double(peak_host_memory_bytes()));  // this rank's peak RSS

  // 5. The final fields as pieces (rank 0 writes flow.pvtu over them), the final state and the
  //    per-rank figures at rank 0, which writes the serial run's other files.
  std::vector<std::string> final_pieces;
  const auto t_pieces = StageTimings::now();
  if (pieces) final_pieces = pieces->write(out_dir, "flow", result.state);
  if (root && pieces) root->timings.add_since("write", t_pieces);
  result.state = gather_state(result.state, f, root ? &*root : nullptr);
  const nlohmann::json per_rank = figures.gather(device);
  if (!root) return;
  t0 = StageTimings::now();
  std::vector<BackendFlowRun> runs;
  runs.push_back({o.backend, device, std::move(result), {}});
  runs[0].fields = compute_flow_fields(*output_ops, root->mesh, root->problem, runs[0].result.state);
  root->timings.add_since("fields", t0);
  nlohmann::json extra = {{"ranks", ranks}, {"per_rank", per_rank}};
  FlowOptions rest = o;  // what write_flow_results writes: the VTU unless the pieces are written
  if (pieces) {
    t0 = StageTimings::now();
    write_flow_pvtu((fs::path(out_dir) / "flow.pvtu").string(), final_pieces);
    root->timings.add_since("write", t0);
    extra["vtu"] = {{"file", "flow.pvtu"}, {"pieces", ranks}};
    rest.no_vtu = true;
  }
  write_flow_results(rest, globals, root->flow_case, root->mesh, root->problem, runs, meter ? &*meter : nullptr,
                     whole_initial ? &*whole_initial : nullptr, root->timings, out_dir, extra);
}

}  // namespace ss
