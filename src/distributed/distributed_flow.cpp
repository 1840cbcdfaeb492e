#include "distributed/distributed_flow.hpp"

#include <algorithm>
#include <array>
#include <limits>
#include <memory>
#include <optional>
#include <type_traits>

#include <mpi.h>

#include "distributed/distributed_flow_heat.hpp"
#include "distributed/distributed_flow_operators.hpp"
#include "distributed/distributed_flow_temperature.hpp"
#include "distributed/distributed_pressure_multigrid.hpp"
#include "multigrid/pressure_matrix.hpp"
#include "parallel/collect.hpp"
#include "parallel/distributed_backend.hpp"
#include "parallel/message.hpp"
#include "parallel/mpi_env.hpp"
#include "parallel/piece_files.hpp"
#include "problems/flow_case_problem.hpp"
#include "util/error.hpp"

namespace ss {
namespace {

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

template <class Backend>
std::array<std::int64_t, 3> kernel_counts(const Backend& b) {
  if constexpr (std::is_same_v<Backend, GpuBackend>) return {b.passes(), b.blocking_reads(), b.deferred_reads()};
  else return {0, 0, 0};
}

// Step 4 on one backend: halos of the three entity kinds, the distributed backend and operators,
// the unchanged time loop.
template <class Backend, class FlowOps>
FlowRunResult run_piece(Backend& local, FlowOps& ops, const EntityPiece& piece, const FlowProblem& problem,
                        const LoadedMesh& mesh, const FlowOperatorData& data, const FlowState* initial,
                        const FlowRunHooks& hooks, const FlowPieceRun& run, RankFigures& figures) {
  const bool exact = problem.method == FlowMethod::exact;
  const bool with_nodes = exact || run.heat;  // the gauge's node potentials; the temperature
  HaloExchange<Backend> cells(local, piece.cells.links, MPI_COMM_WORLD);
  HaloExchange<Backend> faces(local, piece.faces.links, MPI_COMM_WORLD);
  HaloExchange<Backend> edges(local, piece.edges.links, MPI_COMM_WORLD);
  HaloExchange<Backend> nodes(local, with_nodes ? piece.nodes.links : std::vector<HaloLink>{}, MPI_COMM_WORLD);
  std::vector<std::vector<double>> markers = {owner_marker(piece.cells), owner_marker(piece.faces),
                                              owner_marker(piece.edges)};
  if (with_nodes) markers.push_back(owner_marker(piece.nodes));
  DistributedBackend<Backend> dist(local, markers, MPI_COMM_WORLD);
  dist.attach_halo(std::int64_t(piece.cells.global.size()), cells);
  dist.attach_halo(std::int64_t(piece.faces.global.size()), faces);
  dist.attach_halo(std::int64_t(piece.edges.global.size()), edges);
  if (with_nodes) dist.attach_halo(std::int64_t(piece.nodes.global.size()), nodes);
  DistributedFlowOperators<Backend, FlowOps> dops(dist, ops);
  if (exact) dops.set_streamfunction_setup(piece_streamfunction_setup(run.whole_streamfunction, piece, mesh));
  std::unique_ptr<DistributedPressureMultigrid<Backend>> pressure_multigrid;
  if (problem.pressure.multigrid) {  // the V-cycle over the refinement's cell levels
    std::vector<std::int32_t> cell0(mesh.topology.face_cells.size()), cell1(cell0.size());
    for (size_t f = 0; f < cell0.size(); ++f) cell0[f] = mesh.topology.face_cells[f][0], cell1[f] = mesh.topology.face_cells[f][1];
    CellLevel finest = finest_cell_level(piece.cells.global, piece.cells.owned, piece.cells.links,
                                         pressure_matrix(cell0, cell1, data), MPI_COMM_WORLD);
    MultigridOptions options;
    options.smoother_degree = pressure_smoother_degree(problem.pressure, true);
    pressure_multigrid = std::make_unique<DistributedPressureMultigrid<Backend>>(
        local, std::move(finest), cells, [&dops](const auto& x, auto& y) { dops.pressure_apply_owned(x, y); },
        run.refinements, !data.pressure_fixed, options, MPI_COMM_WORLD);
    pressure_multigrid->set_output_update([&dist](auto& z) { dist.update_ghosts(z); });
    dops.set_pressure_v_cycle([&](const auto& r, auto& z) { (*pressure_multigrid)(r, z); });
    figures.add("pressure_multigrid_setup_seconds", pressure_multigrid->setup_seconds());
    figures.add_count("pressure_multigrid_levels", double(pressure_multigrid->num_levels()));
    figures.add_count("pressure_multigrid_coarsest_cells", double(pressure_multigrid->coarsest_size()));
  }
  // A [heat] run's temperature on the piece: its operators complete their outputs over the node halo.
  std::optional<FlowTemperature<DistributedBackend<Backend>>> temperature;
  if (run.heat) temperature.emplace(dist, mesh, *run.heat, ghost_completion(piece.nodes));
  const std::array<std::int64_t, 3> launched = kernel_counts(local);
  FlowRunResult r = march_flow(dist, dops, problem, mesh, data, initial, hooks, "rank " + std::to_string(mpi::rank()),
                             temperature ? &*temperature : nullptr);
  // The march's kernel passes, blocking reduction read-backs and those deferred behind later work
  // (pipelined CG) (GPU backend): fixed costs a pass and a read-back pay whatever the piece's size.
  if constexpr (std::is_same_v<Backend, GpuBackend>) {
    figures.add_count("kernel_passes", double(local.passes() - launched[0]));
    figures.add_count("reduction_read_backs", double(local.blocking_reads() - launched[1]));
    figures.add_count("deferred_reduction_read_backs", double(local.deferred_reads() - launched[2]));
  }
  if (pressure_multigrid) {
    figures.add("pressure_multigrid_coarsest_seconds", pressure_multigrid->coarsest_seconds());
    figures.add("pressure_multigrid_coarser_halo_seconds", pressure_multigrid->coarser_halo_seconds());
    figures.add_count("pressure_multigrid_coarser_halo_exchanges", double(pressure_multigrid->coarser_halo_exchanges()));
  }
  // Host seconds of the halo not hidden by GPU work, per component (HaloExchange), and round trips.
  figures.add("halo_seconds", cells.seconds() + faces.seconds() + edges.seconds() + nodes.seconds());
  figures.add("halo_readback_seconds", cells.readback_seconds() + faces.readback_seconds() + edges.readback_seconds() + nodes.readback_seconds());
  figures.add("halo_mpi_seconds", cells.mpi_seconds() + faces.mpi_seconds() + edges.mpi_seconds() + nodes.mpi_seconds());
  figures.add("halo_upload_seconds", cells.upload_seconds() + faces.upload_seconds() + edges.upload_seconds() + nodes.upload_seconds());
  figures.add_count("halo_exchanges", double(cells.exchanges() + faces.exchanges() + edges.exchanges() + nodes.exchanges()));
  figures.add_count("halo_overlapped_exchanges", double(dist.overlapped_updates()));  // of those, overlapped
  figures.add_count("halo_cell_exchanges", double(cells.exchanges()));  // of those, per entity kind
  figures.add_count("halo_face_exchanges", double(faces.exchanges()));
  figures.add_count("halo_edge_exchanges", double(edges.exchanges()));
  figures.add_count("halo_node_exchanges", double(nodes.exchanges()));
  figures.add_count("halo_values_received",
                    double(cells.values_received() + faces.values_received() + edges.values_received() +
                           nodes.values_received()));
  // Reductions queued inside a halo update (one wait for both: solver/cg.hpp's halo_last)
  figures.add_count("reductions_in_halo_updates", double(dist.queued_in_halo_updates()));
  figures.add("allreduce_seconds", dist.allreduce_seconds());
  figures.add_count("allreduces", double(dist.allreduces()));
  figures.add("run_seconds", r.seconds);
  return r;
}

}  // namespace

// The piece's operator coefficients, right on its ghosts too (from their owners).
FlowOperatorData piece_operator_data(const MeshOperatorTables& tables, const FlowProblem& problem,
                                     const EntityPiece& piece, std::int64_t global_cells) {
  double min_length = smallest_cell_length(tables);  // all ranks' (local pseudo-time steps)
  mpi_check(MPI_Allreduce(MPI_IN_PLACE, &min_length, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD), "MPI_Allreduce");
  FlowOperatorData d = flow_operator_data(tables, problem, min_length);
  CpuBackend host;
  HaloExchange<CpuBackend> cells(host, piece.cells.links, MPI_COMM_WORLD);
  HaloExchange<CpuBackend> faces(host, piece.faces.links, MPI_COMM_WORLD);
  for (std::vector<double>* v : {&d.free_mask, &d.face_mass, &d.area_over_distance, &d.pressure_weight,
                                 &d.laplacian_diagonal, &d.inverse_volume_sum})
    faces.update(*v);
  for (std::vector<double>* v : {&d.inverse_volume, &d.pressure_diagonal}) cells.update(*v);
  if (!d.face_step_scale.empty()) faces.update(d.face_step_scale), cells.update(d.cell_step_scale);
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
  FlowState g;
  g.step = s.step, g.time = s.time, g.dt = s.dt;
  g.base_levels = base_levels;
  const bool root = mpi::rank() == 0;
  const std::vector<std::int64_t> faces = owned_entries(piece.faces.global, piece.faces);
  const std::vector<std::int64_t> cells = owned_entries(piece.cells.global, piece.cells);
  g.flux = gather_by_id(faces, owned_entries(s.flux, piece.faces), root ? size_t(fine.faces) : 0);
  g.pressure = gather_by_id(cells, owned_entries(s.pressure, piece.cells), root ? size_t(fine.cells) : 0);
  if (!s.pressure_increment.empty())  // the extrapolated pressure guess's history: every rank has it or none
    g.pressure_increment = gather_by_id(cells, owned_entries(s.pressure_increment, piece.cells), root ? size_t(fine.cells) : 0);
  if (!s.previous_pressure_rate.empty())
    g.previous_pressure_rate =
        gather_by_id(cells, owned_entries(s.previous_pressure_rate, piece.cells), root ? size_t(fine.cells) : 0);
  g.pressure_increment_dt = s.pressure_increment_dt, g.previous_pressure_increment_dt = s.previous_pressure_increment_dt;
  if (!s.previous_flux.empty())  // every rank has one or none
    g.previous_flux = gather_by_id(faces, owned_entries(s.previous_flux, piece.faces), root ? size_t(fine.faces) : 0);
  if (!s.previous_convection.empty())  // Crank–Nicolson's, on every rank after the first step
    g.previous_convection =
        gather_by_id(faces, owned_entries(s.previous_convection, piece.faces), root ? size_t(fine.faces) : 0);
  const std::vector<std::int64_t> edges = owned_entries(piece.edges.global, piece.edges);
  const auto gather_edges = [&](const std::vector<double>& v) {
    return gather_by_id(edges, owned_entries(v, piece.edges), root ? size_t(fine.edges) : 0);
  };
  if (!s.streamfunction.empty()) g.streamfunction = gather_edges(s.streamfunction);  // the exact method's, on every rank
  if (!s.vorticity.empty()) g.vorticity = gather_edges(s.vorticity);  // the vorticity system's, on every rank
  if (!s.previous_vorticity.empty()) g.previous_vorticity = gather_edges(s.previous_vorticity);
  if (!s.temperature.empty())  // a [heat] run's, on every rank: by global node id
    g.temperature = gather_by_id(owned_entries(piece.nodes.global, piece.nodes), owned_entries(s.temperature, piece.nodes),
                                 root ? size_t(fine.nodes) : 0);
  return g;
}

// --restart: rank 0's checkpoint (by global id), each rank's entries of it (cut faces 0).
FlowState scatter_state(const std::optional<FlowState>& whole, const EntityPiece& piece, const FineCounts& fine) {
  double head[13] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  if (whole) {
    SS_REQUIRE(std::int64_t(whole->flux.size()) == fine.faces && std::int64_t(whole->pressure.size()) == fine.cells &&
                   (whole->streamfunction.empty() || std::int64_t(whole->streamfunction.size()) == fine.edges) &&
                   (whole->temperature.empty() || std::int64_t(whole->temperature.size()) == fine.nodes),
               "--restart: the checkpoint of step " << whole->step << " does not fit this mesh");  // checked at reading
    head[0] = whole->step, head[1] = whole->time, head[2] = whole->dt, head[3] = !whole->previous_flux.empty();
    head[4] = !whole->streamfunction.empty();
    head[5] = std::int64_t(whole->vorticity.size()) == fine.edges;
    head[6] = head[5] != 0 && whole->previous_vorticity.size() == whole->vorticity.size();
    head[7] = !whole->temperature.empty();
    head[8] = !whole->previous_convection.empty();
    head[9] = std::int64_t(whole->pressure_increment.size()) == fine.cells;
    head[10] = head[9] != 0 && whole->previous_pressure_rate.size() == whole->pressure_increment.size();
    head[11] = whole->pressure_increment_dt, head[12] = whole->previous_pressure_increment_dt;
  }
  mpi_check(MPI_Bcast(head, 13, MPI_DOUBLE, 0, MPI_COMM_WORLD), "MPI_Bcast");
  FlowState s;
  s.step = int(head[0]), s.time = head[1], s.dt = head[2];
  const std::vector<double> none;
  s.flux = scatter_by_id(whole ? whole->flux : none, piece.faces.global);
  s.pressure = scatter_by_id(whole ? whole->pressure : none, piece.cells.global);
  if (head[3] != 0) s.previous_flux = scatter_by_id(whole ? whole->previous_flux : none, piece.faces.global);
  if (head[8] != 0) s.previous_convection = scatter_by_id(whole ? whole->previous_convection : none, piece.faces.global);
  if (head[4] != 0) s.streamfunction = scatter_by_id(whole ? whole->streamfunction : none, piece.edges.global);
  if (head[5] != 0) s.vorticity = scatter_by_id(whole ? whole->vorticity : none, piece.edges.global);
  if (head[6] != 0) s.previous_vorticity = scatter_by_id(whole ? whole->previous_vorticity : none, piece.edges.global);
  if (head[7] != 0) s.temperature = scatter_by_id(whole ? whole->temperature : none, piece.nodes.global);
  if (head[9] != 0) s.pressure_increment = scatter_by_id(whole ? whole->pressure_increment : none, piece.cells.global);
  if (head[10] != 0)
    s.previous_pressure_rate = scatter_by_id(whole ? whole->previous_pressure_rate : none, piece.cells.global);
  s.pressure_increment_dt = head[11], s.previous_pressure_increment_dt = head[12];
  return s;
}

PieceFields::PieceFields(const LoadedMesh& local, const FlowProblem& problem, const EntityPiece& piece)
    : local_(local), problem_(problem), ops_(local), cell_halo_(host_, piece.cells.links, MPI_COMM_WORLD),
      node_halo_(host_, piece.nodes.links, MPI_COMM_WORLD) {
  for (size_t c = 0; c < piece.cells.owned.size(); ++c)
    if (piece.cells.owned[c]) owned_cells_.push_back(std::int32_t(c));
  piece_.nodes = local.mesh.nodes;
  piece_.period_offsets = local.mesh.period_offsets;  // periodic: the VTU unfolds the seams
  for (std::int32_t c : owned_cells_) {
    piece_.tets.push_back(local.mesh.tets[size_t(c)]);
    if (is_periodic(local.mesh)) piece_.corner_shifts.push_back(local.mesh.corner_shifts[size_t(c)]);
  }
}

FlowFields PieceFields::compute(const FlowState& state) {
  FlowFieldGhosts ghosts;
  ghosts.cells = [&](std::vector<double>& v) { cell_halo_.update(v); };
  ghosts.nodes = [&](std::vector<double>& v) { node_halo_.update(v); };
  return compute_flow_fields(ops_, local_, problem_, state, &ghosts);
}

std::vector<std::string> PieceFields::write(const std::string& out_dir, const std::string& stem, const FlowFields& fields) {
  return write_rank_pieces(
      out_dir, stem,
      [&](const std::string& path) { write_flow_vtu(path, piece_, select_cells(fields, owned_cells_), mpi::rank()); },
      MPI_COMM_WORLD);
}

FlowFieldSummary PieceFields::summary(const FlowFields& fields, double time) const {
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

// The node temperature at the base mesh's nodes, at rank 0 (empty without one).
std::vector<double> base_node_temperature(const FlowFields& fields, const EntityPiece& piece, std::int64_t base_nodes) {
  if (fields.node_temperature.empty()) return {};
  std::vector<std::int64_t> ids;
  std::vector<double> values;
  for (size_t i = 0; i < piece.nodes.global.size(); ++i)
    if (piece.nodes.owned[i] && piece.nodes.global[i] < base_nodes) {
      ids.push_back(piece.nodes.global[i]);
      values.push_back(fields.node_temperature[i]);
    }
  return gather_by_id(ids, values, mpi::rank() == 0 ? size_t(base_nodes) : 0, 1);
}

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

FlowRunResult run_flow_piece(GpuBackend& local, GpuFlowOperators& ops, const EntityPiece& piece,
                             const FlowProblem& problem, const LoadedMesh& mesh, const FlowOperatorData& data,
                             const FlowState* initial, const FlowRunHooks& hooks, const FlowPieceRun& run,
                             RankFigures& figures) {
  return run_piece(local, ops, piece, problem, mesh, data, initial, hooks, run, figures);
}

FlowRunResult run_flow_piece(CpuBackend& local, CpuFlowOperators& ops, const EntityPiece& piece,
                             const FlowProblem& problem, const LoadedMesh& mesh, const FlowOperatorData& data,
                             const FlowState* initial, const FlowRunHooks& hooks, const FlowPieceRun& run,
                             RankFigures& figures) {
  return run_piece(local, ops, piece, problem, mesh, data, initial, hooks, run, figures);
}

}  // namespace ss
