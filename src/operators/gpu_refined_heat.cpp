#include "operators/gpu_refined_heat.hpp"

#include <algorithm>
#include <cmath>
#include <tuple>

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

}  // namespace

GpuRefinedHeatTables gpu_refine_heat_tables(GpuBackend& gpu, const LoadedMesh& coarse, const std::vector<double>& conductivity,
                                            RefineNumbering numbering) {
  const Topology& topo = coarse.topology;
  const std::string& source = coarse.mesh.source;
  SS_REQUIRE(topo.tables == TopologyTables::all && std::int64_t(topo.face_cells.size()) == topo.mesh_faces,
             source << ": the GPU's fine heat tables need the coarse level's face tables (TopologyTables::all)");
  SS_REQUIRE(std::int64_t(conductivity.size()) == topo.num_cells,
             source << ": " << conductivity.size() << " conductivities for " << topo.num_cells << " cells");
  SS_REQUIRE(std::int64_t(coarse.geometry.dual_volumes.size()) == topo.num_nodes,
             source << ": the GPU's fine heat tables need the coarse level's geometry (dual volumes)");
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
  const Field coarse_mass = gpu.upload(coarse.geometry.dual_volumes);
  std::vector<KernelInput> inputs = level.inputs();
  inputs.insert(inputs.end(), {GpuBackend::in("coarse_face_nodes", face_nodes), GpuBackend::in("coarse_face_cells", face_cells),
                               GpuBackend::in("edge_cell_offsets", offsets), GpuBackend::in("edge_cells", around),
                               GpuBackend::in("coarse_conductivity", cell_conductivity),
                               GpuBackend::in("coarse_mass", coarse_mass)});
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
  return fine;
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
  return d;
}

}  // namespace ss
