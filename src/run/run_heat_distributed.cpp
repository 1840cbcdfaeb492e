// run_heat_distributed: the heat run over MPI ranks (`mpirun -np N streamsolve heat CASE.toml`), thesis ch. 8.
//
//   rank 0: read the case and the base mesh (unrefined), check the case against it; then, as for
//           flow (parallel/piece_assignment.hpp), METIS k-way partition of the base tets and each
//           rank sent its base tets plus one layer with the global ids and owners of their
//           entities (parallel/refined_node_piece.hpp) and the case file's text.
//   every rank: open its GPU (local rank mod devices, --gpu overrides) or the CPU reference before
//           anything else (a rank that cannot start stops the job at once); refine its base piece
//           --refine times itself (partition, then refine: no rank holds the whole refined mesh),
//           pair its halo with its neighbours, prepare the piece (topology, geometry), build the
//           heat problem on it (ghost nodes take their owner's numbers), assemble its operator,
//           and solve with the unchanged CG over a DistributedBackend (owner-marker reductions) and
//           the halo-overlapped operator. The true residual is summed over the owned rows.
//   every rank: writes its piece of the final field (owned tets, `rank` per tet, `owner` per node),
//           "heat_piece_<rank>.vtu"; rank 0 writes "heat.pvtu" indexing them. With --single-vtu
//           rank 0 refines the whole mesh too and gathers one VTU instead (small runs).
//   rank 0: the PNG (drawn on the base mesh, from the temperatures at its nodes) and the JSON
//           summary with every rank's set-up time and peak memory.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <memory>
#include <optional>

#include <mpi.h>
#include <nlohmann/json.hpp>

#include "cpu/cpu_backend.hpp"
#include "distributed/distributed_heat.hpp"
#include "distributed/distributed_heat_operator.hpp"
#include "gl/context.hpp"
#include "mesh/load_mesh.hpp"
#include "mesh/refine.hpp"
#include "mesh/vtu.hpp"
#include "operators/heat_operator.hpp"
#include "parallel/collect.hpp"
#include "parallel/message.hpp"
#include "parallel/mpi_env.hpp"
#include "parallel/partition.hpp"
#include "parallel/piece_assignment.hpp"
#include "parallel/piece_files.hpp"
#include "parallel/rank_report.hpp"
#include "parallel/refined_node_piece.hpp"
#include "cases/heat_case.hpp"
#include "problems/heat_problem.hpp"
#include "physics/heat_solver.hpp"
#include "render/render_surface.hpp"
#include "run/heat_summary.hpp"
#include "run/outputs.hpp"
#include "run/run_heat.hpp"
#include "util/atomic_file.hpp"
#include "util/error.hpp"
#include "util/host_memory.hpp"

namespace ss {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// Rank 0's view of the whole run.
struct Root {
  HeatCase heat_case;
  LoadedMesh base;                  // the unrefined mesh (every topology table)
  std::optional<RankPiece> whole;   // the whole refined mesh (--single-vtu only), its nodes in serial order
  std::int64_t fine_nodes = 0, fine_tets = 0;
  int levels_on_ranks = 0;  // of the case's refine levels (rank 0 refines a coarse mesh's first ones)
  double load_seconds = 0, partition_seconds = 0, distribute_seconds = 0;
};

// Rank 0: read the case and the base mesh, check the case on it, partition the base tets, send each
// rank its assignment. Returns rank 0's own.
PieceAssignment read_and_distribute(const HeatRunOptions& o, Root& root) {
  const int ranks = mpi::size();
  auto t0 = Clock::now();
  root.heat_case = read_heat_case(o.case_file);
  if (o.refine) root.heat_case.refine = *o.refine;
  const int total_levels = root.heat_case.refine;
  SS_REQUIRE(total_levels >= 0, "refinement level must be >= 0, got " << total_levels);
  LoadOptions base_load;
  base_load.surfaces = root.heat_case.surfaces;  // carried by the pieces: each rank projects as the serial run
  base_load.periodic = root.heat_case.periodic;  // the pieces carry the seams' shifts (base_piece.hpp)
  root.base = load_mesh(root.heat_case.mesh_file, base_load);  // validated, oriented, RCM; every table
  require_refinable(root.base.mesh, total_levels);
  // METIS splits the base mesh: a coarse one rank 0 refines first (coarse_partition_levels).
  const int base_levels = coarse_partition_levels(std::int64_t(root.base.mesh.tets.size()), ranks, total_levels);
  if (base_levels > 0) {  // the serial run's first levels (the same node order)
    LoadOptions load;
    load.refine = base_levels;
    load.surfaces = root.heat_case.surfaces;
    load.periodic = root.heat_case.periodic;
    root.base = load_mesh(root.heat_case.mesh_file, load);
  }
  const int levels = total_levels - base_levels;  // refined on the ranks
  root.levels_on_ranks = levels;
  build_heat_problem(root.heat_case, root.base);  // unknown groups, missing materials: one error, here
  root.fine_tets = std::int64_t(root.base.mesh.tets.size()) << (3 * levels);
  root.load_seconds = since(t0);

  DistributeSeconds seconds;
  PieceAssignment mine = send_piece_assignments(root.base, levels, root.heat_case.path, MPI_COMM_WORLD, &seconds);
  root.partition_seconds = seconds.partition, root.distribute_seconds = seconds.send;
  root.fine_nodes = refined_node_count(mine.base, levels);
  std::fprintf(stderr, "streamsolve: heat: %lld nodes, %lld tets (base mesh of %zu tets refined %d times on the ranks), %s, %d ranks\n",
               static_cast<long long>(root.fine_nodes), static_cast<long long>(root.fine_tets), root.base.mesh.tets.size(),
               levels, root.heat_case.time ? ("transient, " + std::to_string(root.heat_case.time->steps) + " steps").c_str() : "steady",
               ranks);
  // The multigrid over the ranks coarsens along the ranks' own refinement, down to the base mesh.
  if (root.heat_case.multigrid && levels == 0)
    std::fprintf(stderr, "streamsolve: heat: %d ranks: the multigrid over ranks needs the base mesh refined "
                 "(--refine >= 1); the CG uses Jacobi\n", ranks);
  // --single-vtu: rank 0 also refines the whole mesh (as one part: the serial run's node order).
  if (o.single_vtu && !o.no_vtu)
    root.whole = refine_base_piece(BasePartition(root.base, std::vector<std::int32_t>(root.base.mesh.tets.size(), 0), 1).piece(0),
                                   levels, 0);
  return mine;
}

// The arrays of a heat piece, by name and type (what a .pvtu declares).
const std::vector<VtuArray> kPiecePointArrays = {VtuArray::scalars("temperature", {}), VtuArray::integers("owner", {})};

}  // namespace

HeatRunResult run_heat_distributed(const HeatRunOptions& o) {
  const auto t_start = Clock::now();
  SS_REQUIRE(!o.heat_case, "an MPI run reads its case file (the ranks are sent its text): give case_file, not a parsed case");
  if (!mpi::active()) mpi::init(nullptr, nullptr, true);
  const int rank = mpi::rank(), ranks = mpi::size();
  SS_REQUIRE(o.backend == "gpu" || o.backend == "cpu", "--backend must be gpu or cpu");
  SS_REQUIRE(!o.gl.window, "--window is not available with MPI ranks");

  // 1. Every rank opens its device first: a rank that cannot start stops the job before any work.
  std::optional<GlContext> context;
  const std::string device = open_rank_device(o.backend, o.gl, o.gpu_given, context);
  // Each rank's launch path for its own device (ranks on one kind of device agree; the cache makes
  // the probe a first run's cost only).
  std::optional<LaunchChoice> launch;
  if (context) launch = resolve_run_launch(*context, o);

  // 2. Rank 0 reads and partitions the base mesh and sends; the others receive their assignment.
  std::optional<Root> root;
  PieceAssignment assignment;
  if (rank == 0) {
    root.emplace();
    assignment = read_and_distribute(o, *root);
  } else {
    assignment = receive_piece_assignment(MPI_COMM_WORLD);
  }
  const std::string out_dir =
      broadcast_string(rank == 0 ? prepare_output_directory(o.out, root->heat_case.output_directory) : std::string());

  // 3. The piece: refined here, its halo paired, topology and geometry, the problem and operator.
  HeatOperatorData data;
  const LocalHeat h = build_heat_piece(std::move(assignment), o.no_vtu ? std::optional<int>(0) : o.every, data);
  const MeshPartition& part = h.piece.part;
  const std::int32_t owned_nodes = part.owned_nodes, owned_tets = part.owned_tets;
  const std::vector<std::int64_t> owned_node_ids(part.node_global.begin(), part.node_global.begin() + owned_nodes);
  const std::vector<std::int64_t> owned_tet_ids(part.tet_global.begin(), part.tet_global.begin() + owned_tets);
  const std::vector<std::int64_t>* whole_nodes = root && root->whole ? &root->whole->part.node_global : nullptr;
  const std::vector<std::int64_t>* whole_tets = root && root->whole ? &root->whole->part.tet_global : nullptr;

  // Transient snapshots: a piece per rank and a .pvtu each, or (--single-vtu) gathered at rank 0.
  TimeSeries series(out_dir, "heat");
  if (rank == 0) series.remove_previous_run(kHeatFinalFiles);
  const bool pieces = !o.single_vtu;  // the fields as one piece per rank (else gathered at rank 0)
  const bool root_has_whole = o.single_vtu && !o.no_vtu;  // rank 0 refined the whole mesh too
  SnapshotHook snapshot = [&](int step, double time, const std::vector<double>& T) {
    if (pieces) {
      const std::vector<std::string> names = write_rank_pieces(
          out_dir, series.snapshot_stem(step), [&](const std::string& path) { write_heat_piece(path, h, T, {}); },
          MPI_COMM_WORLD);
      if (rank != 0) return;
      series.add_pieces(step, time, names, kPiecePointArrays, {VtuArray::integers("rank", {})});
      return;
    }
    const std::vector<double> all = gather_in_order(owned_node_ids, std::vector<double>(T.begin(), T.begin() + owned_nodes), whole_nodes);
    if (rank != 0) return;
    series.add(step, time, root->whole->part.mesh, {VtuArray::scalars("temperature", all)}, {});
  };
  if (!h.settings.time || o.no_vtu) snapshot = nullptr;

  // 4. Solve.
  HeatPieceRun run;
  double setup_seconds = 0;
  // The local operator eliminates the ghosts and the Dirichlet nodes once, here (no copy of the tables).
  const auto shared = std::make_shared<const HeatOperatorData>(std::move(data));
  const std::vector<std::int32_t> eliminated = piece_fixed_nodes(shared->num_nodes, owned_nodes, h.fixed);
  if (o.backend == "gpu") {
    LayoutOptions layout;
    layout.packing = parse_packing(o.format);
    GpuBackend gpu(*context, layout, launch->options);
    GpuHeatOperator op(gpu, shared, eliminated);
    setup_seconds = since(t_start);
    run = solve_heat_piece(gpu, op, h, *shared, snapshot);
    run.figures.add_text("launch", to_string(launch->path()));
  } else {
    CpuBackend cpu;
    CpuHeatOperator op(shared, eliminated);
    setup_seconds = since(t_start);
    run = solve_heat_piece(cpu, op, h, *shared, snapshot);
  }
  // From the start to the operator on the device (device, piece, tables, upload); the rank's peak RSS.
  run.figures.add("setup_seconds", setup_seconds);
  run.figures.add_count("peak_host_memory_bytes", double(peak_host_memory_bytes()));

  // 5. The final field as one piece per rank (rank 0 writes the .pvtu below, once every piece is
  //    there), unless --single-vtu gathers it into one VTU at rank 0.
  const std::string stem = h.settings.time ? "heat_final" : "heat";
  const bool converged = run.report.converged;
  // The heat flux −k∇T per owned tet, in double on the host (as the serial run).
  std::vector<glm::dvec3> flux = cell_heat_flux(h.mesh, run.temperature, h.conductivity);
  flux.resize(size_t(owned_tets));
  std::vector<std::string> final_pieces;
  if (pieces && converged && !o.no_vtu)
    final_pieces = write_rank_pieces(
        out_dir, stem,
        [&](const std::string& path) {
          write_heat_piece(path, h, run.temperature, {VtuArray::float_vectors("heat_flux", flux)});
        },
        MPI_COMM_WORLD);

  // 6. Whole-run figures: the true residual over the owned rows, the range of T, the per-rank table;
  //    the temperatures at the base mesh's nodes (the PNG); with --single-vtu the whole fields.
  const double true_residual = distributed_true_residual(*shared, h, run.report, run.temperature);
  double range[2] = {std::numeric_limits<double>::max(), std::numeric_limits<double>::max()};  // min T, −max T
  for (std::int32_t i = 0; i < owned_nodes; ++i)
    range[0] = std::min(range[0], run.temperature[size_t(i)]), range[1] = std::min(range[1], -run.temperature[size_t(i)]);
  mpi_check(MPI_Allreduce(MPI_IN_PLACE, range, 2, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD), "MPI_Allreduce");
  const double t_min = range[0], t_max = -range[1];
  const nlohmann::json per_rank = run.figures.gather(device);
  std::int64_t base_nodes = root ? std::int64_t(root->base.mesh.nodes.size()) : 0;
  mpi_check(MPI_Bcast(&base_nodes, 1, MPI_INT64_T, 0, MPI_COMM_WORLD), "MPI_Bcast");
  std::vector<std::int64_t> base_ids;
  std::vector<double> base_T;
  for (std::int32_t i = 0; i < owned_nodes; ++i)
    if (owned_node_ids[size_t(i)] < base_nodes) base_ids.push_back(owned_node_ids[size_t(i)]), base_T.push_back(run.temperature[size_t(i)]);
  const std::vector<double> T_base = gather_by_id(base_ids, base_T, size_t(rank == 0 ? base_nodes : 0));
  const bool single = converged && root_has_whole;
  std::vector<double> T_whole, flux_whole, node_rank, tet_rank;
  if (single) {
    std::vector<double> mine_flux;
    for (const glm::dvec3& f : flux) mine_flux.insert(mine_flux.end(), {f.x, f.y, f.z});
    T_whole = gather_in_order(owned_node_ids, std::vector<double>(run.temperature.begin(), run.temperature.begin() + owned_nodes), whole_nodes);
    flux_whole = gather_in_order(owned_tet_ids, mine_flux, whole_tets, 3);
    node_rank = gather_in_order(owned_node_ids, std::vector<double>(size_t(owned_nodes), rank), whole_nodes);
    tet_rank = gather_in_order(owned_tet_ids, std::vector<double>(size_t(owned_tets), rank), whole_tets);
  }
  HeatRunResult result;
  result.finest_level = "distributed";
  result.backend = o.backend;
  result.device = device;
  result.ranks = ranks;
  result.report = run.report;
  result.true_residual = true_residual;
  result.t_min = t_min, result.t_max = t_max;
  result.converged = converged;
  result.out_dir = out_dir;
  if (o.keep_fields) {  // this rank's owned nodes
    result.temperature.assign(run.temperature.begin(), run.temperature.begin() + owned_nodes);
    result.nodes.assign(h.mesh.mesh.nodes.begin(), h.mesh.mesh.nodes.begin() + owned_nodes);
  }
  if (rank != 0) {
    result.reports = false;
    return result;
  }
  result.refine = root->heat_case.refine;

  // 7. Outputs at rank 0: JSON always, fields when converged (as the serial run).
  const HeatSolveReport& report = run.report;
  const double comm_max = max_over_ranks(per_rank, "communication_seconds");
  const double solve_max = max_over_ranks(per_rank, "solve_seconds");
  const double per_iteration = report.iterations ? report.solve_seconds / report.iterations : 0.0;
  const double share = solve_max > 0 ? comm_max / solve_max : 0.0;

  nlohmann::json summary;
  summary["problem"] = "heat";
  summary["case"] = root->heat_case.path;
  summary["mesh"] = {{"file", root->heat_case.mesh_file}, {"nodes", root->fine_nodes}, {"tets", root->fine_tets},
                     {"refine", root->heat_case.refine}, {"base_nodes", root->base.mesh.nodes.size()},
                     {"base_tets", root->base.mesh.tets.size()}, {"refined_on_ranks", root->levels_on_ranks}};
  describe_backend(summary, o.backend, device, launch);  // rank 0's launch path (per_rank: every rank's)
  summary["ranks"] = ranks;
  add_heat_solve_report(summary, report, true_residual, h.settings.mixed, h.settings.variant);
  summary["preconditioner"] = h.coarser ? "multigrid" : h.settings.jacobi ? "jacobi" : "none";
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
  // Rank 0's stages before the ranks refine (read the base mesh, partition it, send the pieces),
  // then the largest over ranks of each rank's own set-up (refine its piece, prepare it, the whole
  // set-up up to the operator on the device).
  summary["setup_seconds"] = {{"load", root->load_seconds},
                              {"partition", root->partition_seconds},
                              {"distribute", root->distribute_seconds},
                              {"refine_max", max_over_ranks(per_rank, "refine_seconds")},
                              {"prepare_max", max_over_ranks(per_rank, "prepare_seconds")},
                              {"total_max", max_over_ranks(per_rank, "setup_seconds")}};
  summary["peak_host_memory_bytes"] = peak_host_memory_bytes();  // rank 0's; every rank's is in per_rank
  summary["temperature"] = {{"min", t_min}, {"max", t_max}};
  // Fields first, the JSON summary last (as the serial run): heat.json means the run finished.
  if (converged) {
    if (pieces && !o.no_vtu) {
      write_pvtu((fs::path(out_dir) / (stem + ".pvtu")).string(), final_pieces, kPiecePointArrays,
                 {VtuArray::float_vectors("heat_flux", {}), VtuArray::integers("rank", {})});
    } else if (single) {
      std::vector<glm::dvec3> flux_cells(flux_whole.size() / 3);
      for (size_t c = 0; c < flux_cells.size(); ++c) flux_cells[c] = {flux_whole[3 * c], flux_whole[3 * c + 1], flux_whole[3 * c + 2]};
      const std::vector<std::int32_t> owner(node_rank.begin(), node_rank.end()), tet_part(tet_rank.begin(), tet_rank.end());
      write_vtu((fs::path(out_dir) / (stem + ".vtu")).string(), root->whole->part.mesh,
                {VtuArray::scalars("temperature", T_whole), VtuArray::integers("owner", owner)},
                {VtuArray::float_vectors("heat_flux", flux_cells), VtuArray::integers("rank", tet_part)});
    }
    if (!o.no_png) {
      RenderOptions view;
      view.title = "temperature";
      view.subtitle = fs::path(root->heat_case.path).filename().string() + ", " + o.backend + ", " +
                      std::to_string(ranks) + " ranks" + (root->heat_case.refine > 0 ? ", on the base mesh" : "");
      render_surface_png(root->base, T_base, view, output_path(o.png, out_dir, "heat.png"));
    }
  }
  result.json_path = output_path(o.json, out_dir, "heat.json");
  write_file_atomically(result.json_path, summary.dump(2) + "\n");
  if (!report.converged)
    result.failure = "solve did not converge: " + report.stop_reason + " after " + std::to_string(report.iterations) +
                     " CG iterations (summary in " + result.json_path + ")";
  result.seconds_per_iteration = per_iteration;
  result.communication_share = share;
  result.halo_seconds = summary["halo_seconds"].get<double>();
  result.allreduce_seconds = summary["allreduce_seconds"].get<double>();
  result.summary = std::move(summary);
  return result;
}

}  // namespace ss
