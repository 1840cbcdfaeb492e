#include "operators/gpu_refined_heat.hpp"

#include <algorithm>
#include <cmath>
#include <tuple>
#include <utility>

#include "mesh/bucket_sort.hpp"
#include "operators/gpu_refinement.hpp"
#include "util/error.hpp"

namespace ss {

using i32 = std::int32_t;

namespace {

// Fixed-width rows as one array (at least one value: a texture needs one texel).
template <typename Row>
std::vector<i32> flat(const std::vector<Row>& rows) {
  std::vector<i32> values;
  values.reserve(rows.size() * std::tuple_size<Row>::value);
  for (const Row& row : rows) values.insert(values.end(), row.begin(), row.end());
  if (values.empty()) values.push_back(0);
  return values;
}

// Row starts of the fine node graph (fine nodes + 1 entries): a coarse node has its coarse degree; the
// midpoint of coarse edge e has 2 halves + 2 inner edges per face around e + the diagonals that end
// at it.
std::vector<i32> fine_row_offsets(const Topology& topo, const std::vector<i32>& cut_codes, RefineNumbering numbering) {
  std::vector<i32> diagonals(size_t(topo.num_edges), 0);  // cells around e whose diagonal ends at e's midpoint
  constexpr int kDiagonalEdges[3][2] = {{0, 5}, {1, 4}, {2, 3}};  // diagonal (4, 9), (5, 8), (6, 7) as local edges
  for (i32 c = 0; c < topo.num_cells; ++c)
    for (int k : kDiagonalEdges[cut_codes[size_t(c)] & 3]) ++diagonals[size_t(topo.cell_edges[size_t(c)][size_t(k)])];
  const std::vector<i32> fine_id = refined_node_ids(topo, numbering);  // of coarse node v, then of edge e's midpoint
  std::vector<i32> offsets(fine_id.size() + 1, 0);
  for (i32 v = 0; v < topo.num_nodes; ++v)
    offsets[size_t(fine_id[size_t(v)]) + 1] = topo.node_offsets[size_t(v) + 1] - topo.node_offsets[size_t(v)];
  for (i32 e = 0; e < topo.num_edges; ++e)
    offsets[size_t(fine_id[size_t(topo.num_nodes + e)]) + 1] =
        2 + 2 * (topo.edge_face_offsets[size_t(e) + 1] - topo.edge_face_offsets[size_t(e)]) + diagonals[size_t(e)];
  for (size_t i = 1; i < offsets.size(); ++i) offsets[i] += offsets[i - 1];
  return offsets;
}

}  // namespace

GpuRefinedHeatTables gpu_refine_heat_tables(GpuBackend& gpu, const LoadedMesh& coarse, const std::vector<double>& conductivity,
                                            const std::vector<double>& heat_capacity, RefineNumbering numbering) {
  const Topology& topo = coarse.topology;
  const std::string& source = coarse.mesh.source;
  SS_REQUIRE(topo.tables == TopologyTables::all && std::int64_t(topo.face_cells.size()) == topo.mesh_faces,
             source << ": the GPU's fine heat tables need the coarse level's face tables (TopologyTables::all)");
  SS_REQUIRE(std::int64_t(conductivity.size()) == topo.num_cells,
             source << ": " << conductivity.size() << " conductivities for " << topo.num_cells << " cells");
  SS_REQUIRE(heat_capacity.empty() || std::int64_t(heat_capacity.size()) == topo.num_cells,
             source << ": " << heat_capacity.size() << " heat capacities for " << topo.num_cells << " cells");
  for (i32 c = 0; c < topo.num_cells; ++c)
    SS_REQUIRE(std::isfinite(conductivity[size_t(c)]) && conductivity[size_t(c)] > 0 &&
                   (heat_capacity.empty() || (std::isfinite(heat_capacity[size_t(c)]) && heat_capacity[size_t(c)] > 0)),
               source << ": cell " << c << " has conductivity " << conductivity[size_t(c)]
                      << (heat_capacity.empty() ? "" : " and heat capacity " + std::to_string(heat_capacity[size_t(c)]))
                      << " (both must be > 0)");
  SS_REQUIRE(std::int64_t(coarse.geometry.cell_volumes.size()) == topo.num_cells,
             source << ": the GPU's fine heat tables need the coarse level's geometry (cell volumes)");
  const GpuCoarseLevel level = upload_coarse_level(gpu, coarse.mesh, topo, numbering);

  // 1. The cells around each coarse edge (6c + k: local edge k of cell c), ascending by cell.
  const auto* cell_edges = topo.cell_edges.data();
  std::vector<i32> edge_cells(size_t(topo.num_cells) * 6);
  const std::vector<i32> edge_cell_offsets = detail::bucket_scatter<6>(
      topo.num_cells, topo.num_edges, [cell_edges](i32 c, int k) { return cell_edges[c][size_t(k)]; },
      [&edge_cells](i32 pos, i32 c, int k) { edge_cells[size_t(pos)] = 6 * c + k; });
  if (edge_cells.empty()) edge_cells.push_back(0);

  // 2. The rest of the coarse tables the kernels read.
  const IndexField face_nodes = gpu.upload_indices(flat(topo.face_nodes));
  const IndexField face_cells = gpu.upload_indices(flat(topo.face_cells));
  const IndexField offsets = gpu.upload_indices(edge_cell_offsets);
  const IndexField around = gpu.upload_indices(edge_cells);
  const Field cell_conductivity = gpu.upload(conductivity);
  // ρc per coarse cell, and the coarse lumped heat capacity Σ_c ρc V_c / 4 (a coarse node keeps 1/8 of it).
  const std::vector<double> rho_c = heat_capacity.empty() ? std::vector<double>(size_t(topo.num_cells), 1.0) : heat_capacity;
  std::vector<double> mass(size_t(topo.num_nodes), 0.0);
  for (i32 c = 0; c < topo.num_cells; ++c)
    for (i32 node : coarse.mesh.tets[size_t(c)]) mass[size_t(node)] += rho_c[size_t(c)] * coarse.geometry.cell_volumes[size_t(c)] / 4.0;
  const Field coarse_mass = gpu.upload(mass), cell_heat_capacity = gpu.upload(rho_c);
  // The coordinates as float pairs (hi = float(x), lo = float(x - hi)), for differences in float.
  std::vector<double> hi(size_t(topo.num_nodes) * 3), lo(hi.size());
  for (size_t v = 0; v < coarse.mesh.nodes.size(); ++v)
    for (int d = 0; d < 3; ++d) {
      const double x = coarse.mesh.nodes[v][d];
      hi[3 * v + size_t(d)] = double(float(x));
      lo[3 * v + size_t(d)] = x - double(float(x));
    }
  const Field coordinates_hi = gpu.upload(hi), coordinates_lo = gpu.upload(lo);
  const IndexField node_offsets = gpu.upload_indices(topo.node_offsets);
  const IndexField node_edges = gpu.upload_indices(topo.node_edges.empty() ? std::vector<i32>{0} : topo.node_edges);
  const IndexField face_offsets = gpu.upload_indices(topo.edge_face_offsets);
  const IndexField faces_around = gpu.upload_indices(topo.edge_faces.empty() ? std::vector<i32>{0} : topo.edge_faces);
  std::vector<KernelInput> inputs = level.inputs();
  inputs.insert(inputs.end(), {GpuBackend::in("coarse_face_nodes", face_nodes), GpuBackend::in("coarse_face_cells", face_cells),
                               GpuBackend::in("edge_cell_offsets", offsets), GpuBackend::in("edge_cells", around),
                               GpuBackend::in("coarse_conductivity", cell_conductivity),
                               GpuBackend::in("coarse_mass", coarse_mass), GpuBackend::in("coarse_heat_capacity", cell_heat_capacity),
                               GpuBackend::in("coarse_coordinates_hi", coordinates_hi),
                               GpuBackend::in("coarse_coordinates_lo", coordinates_lo), GpuBackend::in("coarse_node_offsets", node_offsets),
                               GpuBackend::in("coarse_node_edges", node_edges), GpuBackend::in("edge_face_offsets", face_offsets),
                               GpuBackend::in("edge_faces", faces_around)});
  std::vector<KernelUniform> uniforms = level.uniforms;
  uniforms.push_back(uniform_int("coarse_edges", topo.num_edges));
  uniforms.push_back(uniform_int("coarse_faces", topo.num_faces));

  // 3. The fine edges, their coefficients, the fine masses.
  GpuRefinedHeatTables fine;
  fine.num_nodes = std::int64_t(topo.num_nodes) + topo.num_edges;
  fine.num_edges = 2 * std::int64_t(topo.num_edges) + 3 * std::int64_t(topo.num_faces) + topo.num_cells;
  SS_REQUIRE(2 * fine.num_edges < (std::int64_t(1) << 31),
             source << ": the refined level's " << fine.num_edges << " edges exceed the 32-bit tables: use a smaller --refine");
  fine.edge_nodes = IndexField(gpu.layout_for(2 * fine.num_edges));
  gpu.launch_indices("refine_heat_edge_nodes.glsl", inputs, {&fine.edge_nodes}, uniforms, 0, i32(fine.num_nodes - 1));
  fine.edge_coefficients = gpu.make_vector(fine.num_edges);
  gpu.launch("refine_heat_coefficients.glsl", inputs, {&fine.edge_coefficients}, uniforms);
  fine.mass = gpu.make_vector(fine.num_nodes);
  gpu.launch("refine_heat_mass.glsl", inputs, {&fine.mass}, uniforms);

  // 4. The fine node graph: row starts from the coarse counts, then each entry's edge and neighbour,
  // its K_ij, and the rows' sums.
  fine.offsets = gpu.upload_indices(fine_row_offsets(topo, level.cut_codes, numbering));
  inputs.push_back(GpuBackend::in("fine_offsets", fine.offsets));
  uniforms.push_back(uniform_int("fine_nodes", i32(fine.num_nodes)));
  const i32 entries = i32(2 * fine.num_edges);
  fine.node_edges = IndexField(gpu.layout_for(entries));
  fine.neighbors = IndexField(gpu.layout_for(entries));
  uniforms.push_back(uniform_int("neighbors_output", 0));
  gpu.launch_indices("refine_heat_node_edges.glsl", inputs, {&fine.node_edges}, uniforms, 0, i32(fine.num_edges - 1));
  uniforms.back() = uniform_int("neighbors_output", 1);
  gpu.launch_indices("refine_heat_node_edges.glsl", inputs, {&fine.neighbors}, uniforms, 0, i32(fine.num_nodes - 1));
  fine.coefficients = gpu.make_vector(entries);
  gpu.gather(fine.edge_coefficients, fine.node_edges, fine.coefficients);
  fine.diagonal = gpu.make_vector(fine.num_nodes);
  gpu.launch("refine_heat_diagonal.glsl",
             {GpuBackend::in("fine_offsets", fine.offsets), GpuBackend::in("coefficients", fine.coefficients)},
             {&fine.diagonal});
  return fine;
}

GpuRefinedHeatSystem::GpuRefinedHeatSystem(GpuBackend& gpu, const GpuRefinedHeatTables& tables,
                                           std::vector<i32> fixed_nodes, std::vector<double> fixed_values)
    : gpu_(gpu), tables_(tables), fixed_nodes_(std::move(fixed_nodes)), fixed_values_(std::move(fixed_values)) {
  SS_REQUIRE(fixed_values_.size() == fixed_nodes_.size(),
             "refined heat system: " << fixed_values_.size() << " Dirichlet values for " << fixed_nodes_.size() << " fixed nodes");
  std::vector<double> fixed(size_t(tables.num_nodes), 0.0);
  for (i32 node : fixed_nodes_) {
    SS_REQUIRE(node >= 0 && node < tables.num_nodes,
               "refined heat system: fixed node " << node << " is not one of the " << tables.num_nodes << " nodes");
    fixed[size_t(node)] = 1.0;
  }
  fixed_ = gpu.upload(fixed);
  // K_ij fixed_j per entry; the free columns' K_ij = K_ij − that; d_i = −Σ_j K_ij fixed_j.
  const std::int64_t entries = tables.coefficients.size();
  Field fixed_neighbor = gpu.make_vector(entries), fixed_part = gpu.make_vector(entries);
  gpu.gather(fixed_, tables.neighbors, fixed_neighbor);
  gpu.multiply(tables.coefficients, fixed_neighbor, fixed_part);
  free_coefficients_ = gpu.make_vector(entries);
  gpu.axpy(-1.0, fixed_part, tables.coefficients, free_coefficients_);
  shift_ = gpu.make_vector(tables.num_nodes);
  gpu.launch("refine_heat_diagonal.glsl",
             {GpuBackend::in("fine_offsets", tables.offsets), GpuBackend::in("coefficients", fixed_part)}, {&shift_});
  zero_entries_ = gpu.make_vector(entries);
  gpu.fill(zero_entries_, 0.0);
  zero_nodes_ = gpu.make_vector(tables.num_nodes);
  gpu.fill(zero_nodes_, 0.0);
}

GpuRefinedHeatSystem::Vector GpuRefinedHeatSystem::system_diagonal(double a, double s) {
  // a m + s K_ii, then fixed rows 1: v + fixed (1 − v).
  Vector v = gpu_.make_vector(tables_.num_nodes), fixed_v = gpu_.make_vector(tables_.num_nodes);
  gpu_.linear_combination({a, s}, {&tables_.mass, &tables_.diagonal}, v);
  gpu_.multiply(fixed_, v, fixed_v);
  Vector out = gpu_.make_vector(tables_.num_nodes);
  gpu_.linear_combination({1.0, 1.0, -1.0}, {&v, &fixed_, &fixed_v}, out);
  return out;
}

void GpuRefinedHeatSystem::apply_system(double a, double s, const Vector& x, Vector& y) {
  gpu_.launch("heat_apply_system.glsl",
              {GpuBackend::in("T", x), GpuBackend::in("offsets", tables_.offsets), GpuBackend::in("neighbors", tables_.neighbors),
               GpuBackend::in("coefficients", free_coefficients_), GpuBackend::in("mass", tables_.mass),
               GpuBackend::in("shift", shift_), GpuBackend::in("fixed_mask", fixed_)},
              {&y},
              {uniform_float("mass_coefficient", a), uniform_float("stiffness_coefficient", s), uniform_int("quad_rows", 0)});
}

void GpuRefinedHeatSystem::prepare_solution_precise(PreciseVector& X) {
  if (!fixed_nodes_.empty()) gpu_.scatter_precise(X, fixed_nodes_, fixed_values_);
}

void GpuRefinedHeatSystem::residual_precise(double a, double s, const PreciseVector& f, const PreciseVector& X,
                                            PreciseVector& out, bool fixed_rows) {
  const auto hi = [](double v) { return double(float(v)); };  // a and s as float pairs (1/Δt is no float)
  gpu_.launch("heat_residual_precise.glsl",
              {GpuBackend::in("f_hi", f.hi), GpuBackend::in("f_lo", f.lo), GpuBackend::in("x_hi", X.hi),
               GpuBackend::in("x_lo", X.lo), GpuBackend::in("mass_hi", tables_.mass), GpuBackend::in("mass_lo", zero_nodes_),
               GpuBackend::in("coefficients_hi", tables_.coefficients), GpuBackend::in("coefficients_lo", zero_entries_),
               GpuBackend::in("fixed_mask", fixed_), GpuBackend::in("offsets", tables_.offsets),
               GpuBackend::in("neighbors", tables_.neighbors)},
              {&out.hi, &out.lo},
              {uniform_float("a_hi", hi(a)), uniform_float("a_lo", a - hi(a)), uniform_float("s_hi", hi(s)),
               uniform_float("s_lo", s - hi(s)), uniform_int("fixed_rows", fixed_rows ? 1 : 0)});
}

RefinedHeatDifferences compare_with_reference(GpuBackend& gpu, const GpuRefinedHeatTables& tables, const LoadedMesh& fine,
                                              const HeatOperatorData& reference) {
  RefinedHeatDifferences d;
  const Topology& topo = fine.topology;
  d.sizes_match = tables.num_nodes == topo.num_nodes && tables.num_edges == topo.num_edges &&
                  reference.num_nodes == topo.num_nodes;
  if (!d.sizes_match) return d;
  const std::vector<i32> ends = tables.edge_nodes.download();
  const std::vector<double> coefficients = gpu.download(tables.edge_coefficients);
  std::vector<char> seen(size_t(topo.num_edges), 0);
  for (std::int64_t i = 0; i < tables.num_edges; ++i) {
    const i32 a = ends[size_t(2 * i)], b = ends[size_t(2 * i + 1)];
    const i32 e = a < b ? topo.find_edge(a, b) : -1;
    if (e < 0 || seen[size_t(e)]) {
      ++d.wrong_edges;
      continue;
    }
    seen[size_t(e)] = 1;
    const double scale = std::max(reference.diagonal[size_t(a)], reference.diagonal[size_t(b)]);
    d.coefficients = std::max(d.coefficients, std::fabs(coefficients[size_t(i)] - reference.edge_coefficients[size_t(e)]) / scale);
  }
  const std::vector<double> mass = gpu.download(tables.mass);
  for (i32 i = 0; i < topo.num_nodes; ++i)
    d.mass = std::max(d.mass, std::fabs(mass[size_t(i)] - reference.mass[size_t(i)]) / reference.mass[size_t(i)]);

  // The node graph: each row's (neighbour, node of the edge's other end) pairs as the host's, in any order.
  const std::vector<i32> offsets = tables.offsets.download(), neighbors = tables.neighbors.download(),
                         node_edges = tables.node_edges.download();
  const std::vector<double> diagonal = gpu.download(tables.diagonal);
  std::vector<std::pair<i32, i32>> row, host_row;
  for (i32 i = 0; i < topo.num_nodes; ++i) {
    row.clear();
    host_row.clear();
    for (i32 k = offsets[size_t(i)]; k < offsets[size_t(i) + 1]; ++k) {
      const i32 e = node_edges[size_t(k)];  // in the GPU's edge order: its ends as the host's edge id
      const i32 a = ends[size_t(2 * e)], b = ends[size_t(2 * e + 1)];
      row.emplace_back(neighbors[size_t(k)], (a == i || b == i) ? topo.find_edge(a, b) : -1);
    }
    for (i32 k = topo.node_offsets[size_t(i)]; k < topo.node_offsets[size_t(i) + 1]; ++k)
      host_row.emplace_back(topo.node_neighbors[size_t(k)], topo.node_edges[size_t(k)]);
    std::sort(row.begin(), row.end());
    if (offsets[size_t(i)] != topo.node_offsets[size_t(i)] || row != host_row) ++d.wrong_rows;
    double row_scale = 0;  // Σ_j |K_ij|: the scale of the float sum K_ii = -Σ_j K_ij
    for (i32 k = reference.offsets[size_t(i)]; k < reference.offsets[size_t(i) + 1]; ++k)
      row_scale += std::fabs(reference.coefficients[size_t(k)]);
    d.diagonal = std::max(d.diagonal, std::fabs(diagonal[size_t(i)] - reference.diagonal[size_t(i)]) / row_scale);
  }

  // K·T on the GPU's tables (heat_apply.glsl, one entry at a time) against the host's.
  std::vector<double> T(size_t(topo.num_nodes));
  for (size_t i = 0; i < T.size(); ++i) T[i] = std::sin(double(i));
  const Field gpu_T = gpu.upload(T);
  Field KT = gpu.make_vector(topo.num_nodes);
  gpu.launch("heat_apply.glsl",
             {GpuBackend::in("T", gpu_T), GpuBackend::in("offsets", tables.offsets), GpuBackend::in("neighbors", tables.neighbors),
              GpuBackend::in("coefficients", tables.coefficients)},
             {&KT}, {uniform_int("quad_rows", 0)});
  const std::vector<double> gpu_KT = gpu.download(KT);
  for (i32 i = 0; i < topo.num_nodes; ++i) {
    double sum = 0;
    for (i32 k = reference.offsets[size_t(i)]; k < reference.offsets[size_t(i) + 1]; ++k)
      sum += reference.coefficients[size_t(k)] * (T[size_t(reference.neighbors[size_t(k)])] - T[size_t(i)]);
    d.apply = std::max(d.apply, std::fabs(gpu_KT[size_t(i)] - sum) / reference.diagonal[size_t(i)]);  // max |T| <= 1
  }
  return d;
}

}  // namespace ss
