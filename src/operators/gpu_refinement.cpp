#include "operators/gpu_refinement.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <tuple>
#include <vector>

#include "mesh/geometry.hpp"
#include "util/error.hpp"

namespace ss {

using i32 = std::int32_t;

namespace {

// The coarse coordinates as 32-bit words (each double's low word, then its high word): the
// kernels rebuild the exact doubles (packDouble2x32).
std::vector<i32> coordinate_words(const TetMesh& mesh) {
  std::vector<i32> words(mesh.nodes.size() * 6);
  static_assert(sizeof(glm::dvec3) == 3 * sizeof(double), "dvec3 is three packed doubles");
  std::memcpy(words.data(), mesh.nodes.data(), words.size() * sizeof(i32));
  return words;
}

template <typename Row>
std::vector<i32> flatten(const std::vector<Row>& rows) {
  std::vector<i32> flat(rows.size() * std::tuple_size<Row>::value);
  std::memcpy(flat.data(), rows.data(), flat.size() * sizeof(i32));
  return flat;
}

// Per coarse cell: how refine_once cuts it (refine_cut) and V/8, the volume of each child.
void cuts_and_child_volumes(const TetMesh& coarse, std::vector<i32>& cuts, std::vector<double>& child_volumes) {
  const std::int64_t nc = std::int64_t(coarse.tets.size());
  cuts.resize(size_t(nc));
  child_volumes.resize(size_t(nc));
#pragma omp parallel for schedule(static)
  for (std::int64_t c = 0; c < nc; ++c) {
    const Tet& t = coarse.tets[size_t(c)];
    const glm::dvec3 corners[4] = {coarse.nodes[t[0]], coarse.nodes[t[1]], coarse.nodes[t[2]], coarse.nodes[t[3]]};
    cuts[size_t(c)] = refine_cut(corners);
    child_volumes[size_t(c)] = signed_tet_volume(coarse, t) / 8.0;
  }
}

}  // namespace

std::vector<KernelInput> GpuCoarseLevel::inputs() const {
  const auto in = [](const char* name, const IndexField& f) { return GpuBackend::in(name, f); };
  return {in("coarse_coordinates", coordinates), in("low_node_offsets", low_node_offsets), in("coarse_cells", cells),
          in("coarse_cell_edges", cell_edges),   in("coarse_edge_nodes", edge_nodes),     in("coarse_cuts", cuts),
          GpuBackend::in("coarse_volumes_eighth", volumes_eighth)};
}

GpuCoarseLevel upload_coarse_level(GpuBackend& gpu, const TetMesh& coarse, const Topology& topo, RefineNumbering numbering) {
  const std::int64_t nn = topo.num_nodes, ne = topo.num_edges, nc = topo.num_cells;
  SS_REQUIRE(nn == std::int64_t(coarse.nodes.size()) && nc == std::int64_t(coarse.tets.size()) && !topo.cell_edges.empty(),
             coarse.source << ": the topology given to the GPU refinement is not the mesh's (or has no edge tables)");
  SS_REQUIRE(nc * 8 <= kMaxTets, coarse.source << ": refinement would give " << 8 * nc << " tets; the mesh tables handle at most "
                                               << kMaxTets << " (32-bit ids): use a smaller --refine");
  SS_REQUIRE(coarse.boundary_surfaces.empty(),
             coarse.source << ": the GPU refinement puts new nodes at straight midpoints and cannot honour [[mesh.surface]] ("
                           << coarse.boundary_surfaces.front().where << "); refine on the host (--finest-level host)");
  static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "coordinate_words gives each double's low word first");
  GpuCoarseLevel level;
  level.coordinates = gpu.upload_indices(coordinate_words(coarse));
  level.cells = gpu.upload_indices(flatten(coarse.tets));
  level.cell_edges = gpu.upload_indices(flatten(topo.cell_edges));
  level.edge_nodes = gpu.upload_indices(ne > 0 ? flatten(topo.edge_nodes) : std::vector<i32>{0});
  level.low_node_offsets = gpu.upload_indices(topo.edge_offsets_by_low_node);
  std::vector<double> child_volumes;
  cuts_and_child_volumes(coarse, level.cut_codes, child_volumes);
  level.cuts = gpu.upload_indices(level.cut_codes);
  level.volumes_eighth = gpu.upload(child_volumes);
  level.uniforms = {uniform_int("coarse_nodes", int(nn)), uniform_int("interleaved", numbering == RefineNumbering::interleaved)};
  return level;
}

GpuRefinedMesh gpu_refine_once(GpuBackend& gpu, const TetMesh& coarse, const Topology& topo, RefineNumbering numbering) {
  return gpu_refine_once(gpu, upload_coarse_level(gpu, coarse, topo, numbering), topo.num_edges);
}

GpuRefinedMesh gpu_refine_once(GpuBackend& gpu, const GpuCoarseLevel& level, std::int64_t coarse_edges) {
  GpuRefinedMesh fine;
  fine.num_nodes = level.low_node_offsets.size() - 1 + coarse_edges;
  fine.num_cells = 8 * level.cuts.size();
  const std::vector<KernelInput> inputs = level.inputs();

  // 1. Fine node coordinates.
  fine.x = gpu.make_vector(fine.num_nodes);
  fine.y = gpu.make_vector(fine.num_nodes);
  fine.z = gpu.make_vector(fine.num_nodes);
  gpu.launch("refine_nodes.glsl", inputs, {&fine.x, &fine.y, &fine.z}, level.uniforms);

  // 2. Fine cells: corners, volumes, centroids.
  fine.cell_nodes = IndexField(gpu.layout_for(4 * fine.num_cells));
  gpu.launch_indices("refine_cell_nodes.glsl", inputs, {&fine.cell_nodes}, level.uniforms, 0, i32(fine.num_nodes - 1));
  fine.cell_volumes = gpu.make_vector(fine.num_cells);
  fine.centroid_x = gpu.make_vector(fine.num_cells);
  fine.centroid_y = gpu.make_vector(fine.num_cells);
  fine.centroid_z = gpu.make_vector(fine.num_cells);
  gpu.launch("refine_cell_geometry.glsl", inputs, {&fine.cell_volumes, &fine.centroid_x, &fine.centroid_y, &fine.centroid_z},
             level.uniforms);
  return fine;
}

RefinementDifferences compare_with_reference(GpuBackend& gpu, const GpuRefinedMesh& fine, const TetMesh& reference) {
  RefinementDifferences d;
  const std::int64_t nn = std::int64_t(reference.nodes.size()), nc = std::int64_t(reference.tets.size());
  d.sizes_match = fine.num_nodes == nn && fine.num_cells == nc;
  if (!d.sizes_match) return d;
  const std::vector<i32> corners = fine.cell_nodes.download();
  for (std::int64_t c = 0; c < nc; ++c)
    for (int k = 0; k < 4; ++k)
      if (corners[size_t(4 * c + k)] != reference.tets[size_t(c)][k]) {
        ++d.wrong_corners;
        if (d.first_wrong_cell < 0) d.first_wrong_cell = c;
      }
  double scale = 0;
  for (const glm::dvec3& p : reference.nodes) scale = std::max({scale, std::fabs(p.x), std::fabs(p.y), std::fabs(p.z)});
  const auto check = [&](double gpu_value, double cpu_value, double cpu_scale, double& worst, std::int64_t& inexact) {
    worst = std::max(worst, std::fabs(gpu_value - cpu_value) / cpu_scale);
    if (gpu_value != double(float(cpu_value))) ++inexact;
  };
  {
    const std::vector<double> x = gpu.download(fine.x), y = gpu.download(fine.y), z = gpu.download(fine.z);
    for (std::int64_t i = 0; i < nn; ++i) {
      const glm::dvec3& p = reference.nodes[size_t(i)];
      check(x[size_t(i)], p.x, scale, d.coordinates, d.inexact_coordinates);
      check(y[size_t(i)], p.y, scale, d.coordinates, d.inexact_coordinates);
      check(z[size_t(i)], p.z, scale, d.coordinates, d.inexact_coordinates);
    }
  }
  std::vector<double> volumes;
  std::vector<glm::dvec3> centroids;
  cell_volumes_and_centroids(reference, volumes, centroids);
  const std::vector<double> v = gpu.download(fine.cell_volumes), cx = gpu.download(fine.centroid_x),
                            cy = gpu.download(fine.centroid_y), cz = gpu.download(fine.centroid_z);
  for (std::int64_t c = 0; c < nc; ++c) {
    const size_t i = size_t(c);
    check(v[i], volumes[i], volumes[i], d.volumes, d.inexact_volumes);
    check(cx[i], centroids[i].x, scale, d.centroids, d.inexact_centroids);
    check(cy[i], centroids[i].y, scale, d.centroids, d.inexact_centroids);
    check(cz[i], centroids[i].z, scale, d.centroids, d.inexact_centroids);
  }
  return d;
}

}  // namespace ss
