// run_flow_distributed: the flow run over MPI ranks (`mpirun -np N streamsolve flow CASE.toml`), thesis ch. 8.
//
//   1. every rank opens its GPU (local rank mod devices, --gpu overrides) or the CPU reference first.
//   2. rank 0 reads the case and the base mesh (the file's, refined at rank 0 only when it has fewer
//      than 64 tets per rank: coarse_partition_levels), checks the case on it (every case mistake
//      stops here), partitions its tets (METIS) and sends each rank its base tets plus one layer
//      and the case file's text (parallel/piece_assignment.hpp, as for heat).
//   3. every rank refines its base piece the remaining --refine times itself, for every entity kind
//      (parallel/refined_entity_piece.hpp: partition, then refine; no rank holds the whole refined
//      mesh), builds its piece's problem (the case's conditions; cut faces a placeholder), mesh
//      tables and operator coefficients, the ghost entries of the coefficients from their owners;
//      the curl–curl term's interval comes from one Lanczos run over all ranks (edge_space).
//   4. every rank runs the unchanged FlowSolver over a DistributedBackend (owner-marked reductions,
//      one marker per entity kind) and DistributedFlowOperators (every operator output's ghosts
//      exchanged): the same steps, reductions and iterations as the serial run. What each rank does
//      with its piece (coefficients, state by global id, fields, the time loop) is
//      distributed/distributed_flow.hpp; this file keeps rank 0's checks, the dispatch to a backend, the results.
//   5. the fields: every rank writes its piece (its owned cells) of each snapshot and of the final
//      state, flow_NNNNNN_piece_<rank>.vtu and flow_piece_<rank>.vtu, and rank 0 the .pvtu over them.
//      Checkpoints are gathered at rank 0 by the pieces' global ids (the state file records that
//      numbering: a serial run cannot continue them, nor this one a serial run's); flow.json's
//      field summary is reduced over the ranks' owned cells; flow.png is drawn on the base mesh
//      from the node velocities at its nodes; each [[probe]] point is sampled by the rank owning the
//      cell that holds it and gathered at rank 0, which writes probes/<name>.csv as the serial run
//      does (distributed/distributed_probes.hpp). Rank 0 refines the whole mesh too only for what needs
//      it: --single-vtu (one gathered VTU instead of the pieces, small runs) and [[force]] groups
//      (the wall vorticity is a solve on the whole mesh).
//      A [heat] run carries its temperature on every rank's piece (distributed_flow_temperature.hpp):
//      T in the pieces, the gathered VTU, the probes and the checkpoints (by global node id), and
//      heat.csv / flow.json's heat from the groups' wall heat summed over the ranks' owned nodes.
//      --restart: rank 0 reads the last checkpoint, partitions at its base level, and each rank
//      asks it for its entries by global id.
// The exact method: rank 0 refines the whole mesh too, for the streamfunction's boundary tree and
// harmonic basis (distributed/distributed_streamfunction.hpp). The pressure multigrid runs over
// the ranks along the refinement the ranks made (distributed/distributed_pressure_multigrid.hpp);
// without one (--refine 0, or a base mesh refined at rank 0 only) the pressure solve uses Jacobi
// (stderr and flow.json say so).
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <memory>
#include <optional>

#include <mpi.h>

#include "cpu/cpu_backend.hpp"
#include "distributed/distributed_flow.hpp"
#include "distributed/distributed_flow_heat.hpp"
#include "distributed/distributed_probes.hpp"
#include "gl/context.hpp"
#include "mesh/refine.hpp"
#include "operators/flow_operators.hpp"
#include "parallel/collect.hpp"
#include "parallel/message.hpp"
#include "parallel/mpi_env.hpp"
#include "parallel/piece_assignment.hpp"
#include "parallel/rank_report.hpp"
#include "parallel/refined_entity_piece.hpp"
#include "problems/flow_case_problem.hpp"
#include "run/flow_checkpoints.hpp"
#include "run/flow_histories.hpp"
#include "run/flow_probe_files.hpp"
#include "run/flow_results.hpp"
#include "run/outputs.hpp"
#include "run/run_flow.hpp"
#include "util/error.hpp"
#include "util/host_memory.hpp"

namespace ss {
namespace {

namespace fs = std::filesystem;

// Without refinement on the ranks the pressure multigrid has no coarser levels: Jacobi instead.
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
  std::vector<std::int64_t> face_global, cell_global, edge_global, node_global;

  WholeMesh(const LoadedMesh& base, int levels, const FlowCase& flow_case) {
    EntityPiece whole = refine_entity_piece(
        BasePartition(base, std::vector<std::int32_t>(base.mesh.tets.size(), 0), 1).piece(0), levels, MPI_COMM_SELF);
    face_global = std::move(whole.faces.global);
    cell_global = std::move(whole.cells.global);
    edge_global = std::move(whole.edges.global);
    node_global = std::move(whole.nodes.global);
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
    s.previous_convection = permute(by_id.previous_convection, face_global);
    s.pressure = permute(by_id.pressure, cell_global);
    s.pressure_increment = permute(by_id.pressure_increment, cell_global);
    s.previous_pressure_rate = permute(by_id.previous_pressure_rate, cell_global);
    s.streamfunction = permute(by_id.streamfunction, edge_global);
    s.vorticity = permute(by_id.vorticity, edge_global);
    s.previous_vorticity = permute(by_id.previous_vorticity, edge_global);
    s.temperature = permute(by_id.temperature, node_global);
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
  std::optional<FlowProbeFiles> probe_files;  // probes/<name>.csv from the values the ranks sample
  std::optional<FlowHeatProblem> heat;         // [heat] on the file's mesh: checked once; flow.json's settings
  std::optional<FlowHeatHistory> heat_history;  // heat.csv from the groups' heat summed over the ranks
  std::optional<FlowEnergyHistory> energy_history;  // energy.csv (the steps' reports are the whole mesh's)
  std::optional<FlowState> checkpoint;  // --restart: the one continued (ids by global id)
  std::optional<WholeMesh> whole;
  std::optional<WholeStreamfunction> streamfunction;  // the exact method: the whole mesh's boundary
  std::optional<FlowForceMeter> meter;  // on the whole mesh
  StageTimings timings;
};

// Rank 0: read, check, partition, send. Returns rank 0's own assignment.
PieceAssignment read_and_distribute(const FlowRunOptions& o, Root& root) {
  const int ranks = mpi::size();
  root.flow_case = read_flow_case(o.case_file);
  FlowCase& c = root.flow_case;
  if (o.refine) c.refine = *o.refine;
  SS_REQUIRE(c.refine >= 0, "refinement level must be >= 0, got " << c.refine);

  // The case checked on the file's mesh first (every case mistake is the serial error, once, and
  // leaves the output folder alone).
  auto t0 = StageTimings::now();
  LoadOptions base_load;
  base_load.surfaces = c.surfaces;  // carried by the pieces: each rank projects as the serial run
  base_load.periodic = c.periodic;  // the pieces carry the seams' shifts (base_piece.hpp)
  root.base = load_mesh(c.mesh_file, base_load);
  require_refinable(root.base.mesh, c.refine);
  add_mesh_timings(root.timings, root.base.report, std::chrono::duration<double>(StageTimings::now() - t0).count(), false);
  t0 = StageTimings::now();
  root.problem = build_flow_problem(c, root.base);
  if (c.heat) root.heat = build_flow_heat_problem(c, root.base);  // an unknown thermal group stops here
  root.timings.add_since("problem", t0);
  const FlowProbes probes(root.base, c.probes);  // a point outside the mesh stops here, as in the serial run

  // The output folder: a fresh run clears the previous one's files, a restart takes its checkpoint.
  root.out_dir = prepare_output_directory(o.out, c.output_directory);
  root.checkpoints.emplace(root.out_dir, !c.forces.empty());
  root.probe_files.emplace(root.out_dir, c.probes);
  root.heat_history.emplace(root.out_dir);
  root.energy_history.emplace(root.out_dir);
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
    root.probe_files->clear_previous_run();
    root.heat_history->clear_previous_run();
    root.energy_history->clear_previous_run();
  }

  // The base mesh: the file's, or its first levels where it has too few tets per rank (a restart
  // keeps its checkpoint's base level: the ids depend on it).
  root.base_levels = root.checkpoint ? root.checkpoint->base_levels
                                     : coarse_partition_levels(std::int64_t(root.base.mesh.tets.size()), ranks, c.refine);
  if (root.base_levels > 0) {
    t0 = StageTimings::now();
    LoadOptions load;
    load.refine = root.base_levels;
    load.surfaces = c.surfaces;
    load.periodic = c.periodic;
    root.base = load_mesh(c.mesh_file, load);
    root.timings.add_since("base_levels", t0);
  }

  const int levels = c.refine - root.base_levels;
  if (levels == 0 && root.problem.pressure.multigrid) {
    std::fprintf(stderr, "streamsolve: flow: %d ranks, no refinement on the ranks: the pressure multigrid has no "
                         "coarser levels; the pressure solve uses Jacobi\n", ranks);
    use_jacobi_pressure(root.problem);
  }
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
    const FlowState& s = *root.checkpoint;
    SS_REQUIRE(!c.heat || std::int64_t(s.temperature.size()) == fine.nodes,
               c.where("heat") << ": --restart: the checkpoint of step " << s.step << " in '" << root.out_dir
                               << "' carries " << (s.temperature.empty() ? "no temperature" : "another mesh's temperature")
                               << " (a run without [heat] or an older file); run the [heat] case from the start");
    root.probe_files->continue_from(root.checkpoint->time);
    if (c.heat) root.heat_history->continue_from(s.step);
    root.energy_history->continue_from(s.step);
    root.checkpoints->continue_from(*root.checkpoint);
    std::fprintf(stderr, "streamsolve: flow: continuing from step %d (t = %g)\n", root.checkpoint->step,
                 root.checkpoint->time);
  }
  const bool keep_whole = (o.single_vtu && !o.no_vtu) || !root.problem.forces.empty();
  const bool exact = root.problem.method == FlowMethod::exact;
  if (keep_whole || exact) {
    t0 = StageTimings::now();
    root.whole.emplace(root.base, levels, c);
    if (!root.problem.forces.empty()) root.meter.emplace(root.whole->mesh, root.whole->problem);
    if (exact)
      root.streamfunction.emplace(WholeStreamfunction{build_streamfunction_boundary(root.whole->mesh, root.whole->problem),
                                                      root.whole->face_global, root.whole->edge_global});
    if (!keep_whole) root.whole.reset();
    root.timings.add_since("whole_mesh", t0);
  }
  return mine;
}

}  // namespace

FlowRunOutcome run_flow_distributed(const FlowRunOptions& o) {
  const auto t_start = StageTimings::now();
  SS_REQUIRE(!o.flow_case, "an MPI run reads its case file (the ranks are sent its text): give case_file, not a parsed case");
  if (!mpi::active()) mpi::init(nullptr, nullptr, true);
  const int rank = mpi::rank(), ranks = mpi::size();
  SS_REQUIRE(!o.compare, "--compare is not available with MPI ranks (compare a serial run's flow.json instead)");
  SS_REQUIRE(!o.gl.window, "flow has no live window; drop --window (flow.png and the VTU files show the result)");

  // 1. Every rank opens its device first: a rank that cannot start stops the job before any work.
  std::optional<GlContext> context;
  const std::string device =
      open_rank_device(o.backend, o.gl, o.gpu_given, context);
  std::optional<LaunchChoice> launch;  // each rank's own device's path
  if (context) launch = resolve_run_launch(*context, o);

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
  if (a.levels == 0) use_jacobi_pressure(problem);
  // [heat]: the temperature on the piece (its fixed nodes the whole mesh's) and its wall heat meter.
  std::optional<FlowHeatProblem> heat;
  std::optional<FlowHeatMeter> heat_meter;
  if (flow_case.heat) {
    heat = piece_flow_heat_problem(flow_case, local, a.groups, piece);
    heat_meter.emplace(local, *heat, heat_meter_piece(piece));
  }
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
  // Each probe point answered by the rank owning the cell that holds it, gathered at rank 0.
  const DistributedProbes probes(local, piece.cells, flow_case.probes);
  const bool pieces = !o.single_vtu && !o.no_vtu;
  const TimeSeries names(out_dir, "flow");

  const std::string label = o.backend + ", " + std::to_string(ranks) + " ranks";
  FlowRunHooks hooks = root ? flow_progress_hooks(label, root->problem) : FlowRunHooks{};
  hooks.every = o.every ? *o.every : flow_case.output_every;
  if (root)
    hooks.progress = [&history = *root->energy_history, print = hooks.progress](const FlowStepInfo& info, double seconds,
                                                                              bool last) {
      history.add(info);
      print(info, seconds, last);
    };
  hooks.snapshot = [&](const FlowState& s) {
    const FlowState g = gather_state(s, piece, fine, base_levels);
    std::vector<std::string> written;
    std::optional<FlowFields> f;
    if (pieces || probes.size() > 0) f = fields.compute(s);
    if (pieces) written = fields.write(out_dir, names.snapshot_stem(s.step), *f);
    const ProbeSamples samples = probes.size() > 0 ? probes.sample_all(*f) : ProbeSamples{};
    const std::vector<FlowGroupHeat> heat_groups = heat_meter ? measure_over_ranks(*heat_meter, s) : std::vector<FlowGroupHeat>{};
    if (!root) return;
    root->probe_files->write(s.time, samples);  // before the checkpoint: a restart finds its rows
    if (heat_meter) root->heat_history->write(g, heat_groups);  // likewise
    root->energy_history->write();
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
  const FlowPieceRun run{a.levels, root && root->streamfunction ? &*root->streamfunction : nullptr,
                         heat ? &*heat : nullptr};
  if (o.backend == "gpu") {
    GpuBackend gpu(*context, LayoutOptions{}, launch->options);
    figures.add_text("launch", to_string(launch->path()));
    GpuMeshOperators mesh_ops(gpu, *tables);
    tables.reset();  // on the device now
    GpuFlowOperators ops(gpu, mesh_ops, data);
    setup_done();
    result = run_flow_piece(gpu, ops, piece, problem, local, data, initial ? &*initial : nullptr, hooks, run, figures);
  } else {
    CpuBackend cpu;
    CpuMeshOperators mesh_ops(local);
    CpuFlowOperators ops(mesh_ops, data);
    setup_done();
    result = run_flow_piece(cpu, ops, piece, problem, local, data, initial ? &*initial : nullptr, hooks, run, figures);
  }
  if (root) {
    root->timings.add_since("solve", t0);
    root->energy_history->write();
  }
  figures.add_count("peak_host_memory_bytes", double(peak_host_memory_bytes()));  // this rank's peak RSS

  // 5. The final fields: the pieces (rank 0 writes flow.pvtu over them), the summary reduced over
  //    the ranks, the node velocity at the base nodes (flow.png), the final state and the per-rank
  //    figures at rank 0, which writes the serial run's other files.
  t0 = StageTimings::now();
  const FlowFields final_fields = fields.compute(result.state);
  const FlowFieldSummary summary = fields.summary(final_fields, result.state.time);
  std::vector<glm::dvec3> base_velocity = base_node_velocity(final_fields, piece, base_nodes);
  std::vector<double> base_temperature = base_node_temperature(final_fields, piece, base_nodes);
  const ProbeSamples final_samples = probes.size() > 0 ? probes.sample_all(final_fields) : ProbeSamples{};
  const std::vector<FlowGroupHeat> final_heat =
      heat_meter ? measure_over_ranks(*heat_meter, result.state) : std::vector<FlowGroupHeat>{};
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
  if (!root) {
    FlowRunOutcome outcome;
    outcome.reports = false;
    outcome.backend = o.backend;
    outcome.device = device;
    outcome.ranks = ranks;
    outcome.out_dir = out_dir;
    return outcome;
  }

  std::vector<BackendFlowRun> runs;
  runs.push_back({o.backend, device, std::move(result), {}, launch});  // rank 0's launch path (per_rank: every rank's)
  const LoadedMesh* picture = &root->base;  // flow.png's mesh
  if (root->whole) {
    t0 = StageTimings::now();
    runs[0].result.state = root->whole->in_order(runs[0].result.state);
    runs[0].fields = compute_flow_fields(*whole_ops, root->whole->mesh, root->whole->problem, runs[0].result.state);
    picture = &root->whole->mesh;
    root->timings.add_since("fields", t0);
  } else {
    runs[0].fields.node_velocity = std::move(base_velocity);
    runs[0].fields.node_temperature = std::move(base_temperature);
  }
  nlohmann::json extra = {{"ranks", ranks}, {"per_rank", per_rank}};
  if (probes.size() > 0) {
    root->probe_files->write(runs[0].result.state.time, final_samples);  // the end, unless its output step wrote it
    extra["probes"] = root->probe_files->summary(final_samples);
  }
  if (root->heat) extra["heat"] = heat_summary_json(*root->heat, final_heat, runs);
  extra["mesh"] = {{"file", flow_case.mesh_file}, {"nodes", fine.nodes}, {"cells", fine.cells}, {"faces", fine.faces},
                   {"boundary_faces", boundary_faces}, {"refine", flow_case.refine},
                   {"base_cells", root->base.mesh.tets.size()}, {"refined_on_ranks", flow_case.refine - base_levels}};
  FlowRunOptions rest = o;  // what write_flow_results writes: the VTU unless the pieces are written
  if (pieces) {
    t0 = StageTimings::now();
    write_flow_pvtu((fs::path(out_dir) / "flow.pvtu").string(), final_pieces);
    root->timings.add_since("write", t0);
    extra["vtu"] = {{"file", "flow.pvtu"}, {"pieces", ranks}};
    rest.no_vtu = true;
  }
  FlowRunOutcome outcome =
      write_flow_results(rest, flow_case, *picture, root->problem, runs, root->meter ? &*root->meter : nullptr,
                         root->checkpoint ? &*root->checkpoint : nullptr, root->timings, out_dir, extra, &summary);
  outcome.ranks = ranks;
  return outcome;
}

}  // namespace ss
