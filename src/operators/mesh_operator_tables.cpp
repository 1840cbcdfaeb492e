#include "operators/mesh_operator_tables.hpp"

#include <glm/geometric.hpp>

#include "util/error.hpp"

namespace ss {

MeshOperatorTables build_mesh_operator_tables(const Topology& topo, const Geometry& geo) {
  MeshOperatorTables t;
  t.num_cells = topo.num_cells;
  t.num_faces = topo.num_faces;
  t.num_edges = topo.num_edges;
  SS_REQUIRE(t.num_cells > 0 && t.num_faces > 0 && t.num_edges > 0, "mesh operators need a mesh with at least one tet");
  SS_REQUIRE(geo.cell_volumes.size() == size_t(t.num_cells) && geo.face_centroids.size() == size_t(t.num_faces),
             "mesh operators: geometry does not match the topology");
  const size_t nc = size_t(t.num_cells), nf = size_t(t.num_faces), ne = size_t(t.num_edges);

  // Faces -> cells; boundary faces point into the boundary vector.
  t.boundary_faces = topo.boundary_faces;
  t.face_cell0.resize(nf);
  t.face_cell1.resize(nf);
  std::int32_t next_boundary = 0;
  for (size_t f = 0; f < nf; ++f) {
    t.face_cell0[f] = topo.face_cells[f][0];
    if (topo.face_cells[f][1] >= 0) {
      t.face_cell1[f] = topo.face_cells[f][1];
    } else {
      SS_REQUIRE(next_boundary < std::int32_t(t.boundary_faces.size()) && t.boundary_faces[size_t(next_boundary)] == std::int32_t(f),
                 "mesh operators: boundary face list does not match face " << f);
      t.face_cell1[f] = ~next_boundary++;
    }
  }
  SS_REQUIRE(next_boundary == std::int32_t(t.boundary_faces.size()), "mesh operators: boundary face list too long");

  // Cells -> faces (signed), interpolation coefficients.
  for (int k = 0; k < 4; ++k) {
    t.cell_faces[size_t(k)].resize(nc);
    for (int d = 0; d < 3; ++d) t.interpolation[size_t(k)][size_t(d)].resize(nc);
  }
  t.cell_volumes = geo.cell_volumes;
#pragma omp parallel for schedule(static) if (nc > 50000)
  for (size_t c = 0; c < nc; ++c) {
    const glm::dvec3 xc = geo.cell_centroids[c];
    const double inv_volume = 1.0 / geo.cell_volumes[c];
    for (size_t k = 0; k < 4; ++k) {
      const std::int32_t f = topo.cell_faces[c][k];
      t.cell_faces[k][c] = encode_signed_index(f, topo.cell_face_signs[c][k]);
      const glm::dvec3 w = (face_centroid_seen_from(geo, topo, f, std::int32_t(c)) - xc) * inv_volume;
      for (int d = 0; d < 3; ++d) t.interpolation[k][size_t(d)][c] = w[d];
    }
  }

  // Faces -> edges (signed); edges -> faces (CSR in ascending face order: the topology's edge_faces).
  SS_REQUIRE(topo.edge_face_offsets.size() == ne + 1, "mesh operators need the topology's edge-face table");
  for (auto& table : t.face_edges) table.resize(nf);
#pragma omp parallel for schedule(static) if (nf > 50000)
  for (size_t f = 0; f < nf; ++f)
    for (size_t j = 0; j < 3; ++j) t.face_edges[j][f] = encode_signed_index(topo.face_edges[f][j], topo.face_edge_signs[f][j]);
  t.edge_face_count.resize(ne);
  t.edge_face_start.resize(ne);
  t.edge_face_list.resize(topo.edge_faces.size());
#pragma omp parallel for schedule(static) if (ne > 50000)
  for (size_t e = 0; e < ne; ++e) {
    t.edge_face_start[e] = topo.edge_face_offsets[e];
    t.edge_face_count[e] = topo.edge_face_offsets[e + 1] - topo.edge_face_offsets[e];
    for (std::int32_t k = topo.edge_face_offsets[e]; k < topo.edge_face_offsets[e + 1]; ++k) {
      const std::int32_t f = topo.edge_faces[size_t(k)];
      size_t j = 0;
      while (topo.face_edges[size_t(f)][j] != std::int32_t(e)) ++j;
      t.edge_face_list[size_t(k)] = encode_signed_index(f, topo.face_edge_signs[size_t(f)][j]);
    }
  }

  // Integration coefficients and A_f / L_f.
  for (int d = 0; d < 3; ++d) {
    t.integration0[size_t(d)].resize(nf);
    t.integration1[size_t(d)].assign(nf, 0.0);
  }
  t.face_area_over_distance.resize(nf);
#pragma omp parallel for schedule(static) if (nf > 50000)
  for (size_t f = 0; f < nf; ++f) {
    const glm::dvec3 xf = geo.face_centroids[f];
    const glm::dvec3 r0 = xf - geo.cell_centroids[size_t(topo.face_cells[f][0])];
    glm::dvec3 r1(0.0);
    if (topo.face_cells[f][1] >= 0)
      r1 = geo.cell_centroids[size_t(topo.face_cells[f][1])] - face_centroid_seen_from(geo, topo, std::int32_t(f), topo.face_cells[f][1]);
    for (int d = 0; d < 3; ++d) {
      t.integration0[size_t(d)][f] = r0[d];
      t.integration1[size_t(d)][f] = r1[d];
    }
    t.face_area_over_distance[f] = geo.face_areas[f] / glm::length(r0 + r1);
  }
  return t;
}

}  // namespace ss
