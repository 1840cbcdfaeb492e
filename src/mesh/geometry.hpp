#pragma once
// Geometric quantities of a tetrahedral mesh in double precision (thesis §6.1, node-based
// median-dual discretization), plus orientation repair and validity checks.
#include <array>
#include <cstdint>
#include <vector>

#include <glm/geometric.hpp>
#include <glm/vec3.hpp>

#include "mesh/tet_mesh.hpp"
#include "mesh/topology.hpp"

namespace ss {

// A tet counts as degenerate (zero volume) when |V| <= kZeroVolumeTolerance * L^3, L its longest
// edge. A regular tet has V = L^3 / (6 sqrt 2) ~ 0.118 L^3, so this flags only tets flattened to
// round-off level, independent of the mesh's scale and of other tets' sizes.
inline constexpr double kZeroVolumeTolerance = 1e-12;

// Signed volume V = det(p1 - p0, p2 - p0, p3 - p0) / 6 of the nodes' positions (a tet of a periodic
// mesh: from its corner_positions).
double signed_tet_volume(const TetMesh& mesh, const Tet& t);

// Checks every tet for repeated nodes, out-of-range node ids and zero volume (throws ss::Error
// naming the tet and its nodes), then swaps nodes 2 and 3 of every negatively oriented tet.
// Returns how many tets it reoriented.
std::int64_t validate_and_orient_tets(TetMesh& mesh);

struct MeshQuality {
  double min_dihedral_deg = 0;  // smallest interior dihedral angle of any tet
  double max_dihedral_deg = 0;  // largest
  // Aspect ratio of a tet: L_max / (2 sqrt(6) r), r = 3V / (sum of face areas) the inradius,
  // L_max the longest edge; 1 for the regular tet, large for slivers and needles.
  double max_aspect_ratio = 0;
  std::int32_t worst_aspect_tet = -1;
  double min_volume = 0, max_volume = 0;
  double min_edge_length = 0, max_edge_length = 0;
};

struct Geometry {
  glm::dvec3 bbox_min{0.0}, bbox_max{0.0};
  double total_volume = 0;

  std::vector<double> cell_volumes;            // > 0 (tets oriented)
  std::vector<glm::dvec3> cell_centroids;

  std::vector<double> face_areas;
  std::vector<glm::dvec3> face_normals;        // unit, from face_cells[f][0] to face_cells[f][1]
  std::vector<glm::dvec3> face_centroids;
  // Periodic meshes only (empty otherwise): a face lies where its first cell sees it, and its second
  // cell sees it moved by face_jumps[f] (a period offset across a seam, zero elsewhere). A vector from
  // the first cell's centroid to the second's is x_c1 - face_jumps[f] - x_c0.
  std::vector<glm::dvec3> face_jumps;

  std::vector<glm::dvec3> edge_vectors;        // high node - low node
  std::vector<double> edge_lengths;

  // Median-dual control volume of each node: every tet gives V/4 to each of its nodes (the median
  // dual splits a tet into four equal parts), so the sum is the mesh volume.
  std::vector<double> dual_volumes;
  // Dual-face area vector of each (cell, local edge) pair, index c * 6 + k with k in kTetEdgeNodes
  // order (same as Topology::cell_edges). The dual face of edge (a, b) in the tet is the two
  // triangles (edge midpoint, centroid of a face holding the edge, cell centroid); its area vector
  // simplifies to S = (pc - m) x (pd - m) / 12, m the edge midpoint and (a, b, c, d) an even
  // permutation of the tet's nodes. Oriented along the global edge (low node -> high node).
  std::vector<glm::dvec3> dual_face_areas;
  // Outward area vector of each node's dual cell on the boundary: each boundary face gives a third
  // of its area vector to each of its nodes (zero for interior nodes). For every node,
  // sum_edges(+-S) + boundary_dual_area = 0 (the dual cell is closed).
  std::vector<glm::dvec3> boundary_dual_areas;

  MeshQuality quality;
};

// For local edge k = (i, j) of kTetEdgeNodes, the other two nodes (c, d) such that (i, j, c, d) is
// an even permutation of (0, 1, 2, 3).
inline constexpr int kTetEdgeOthers[6][2] = {{2, 3}, {3, 1}, {1, 2}, {0, 3}, {2, 0}, {0, 1}};

// The six dual-face area vectors of a tet with corners p and node ids t (Geometry::dual_face_areas
// of one cell): S = (pc - m) x (pd - m) / 12 for local edge (i, j), oriented along the global edge
// (low node id -> high), S . (pj - pi) = V / 2.
inline void tet_dual_face_areas(const glm::dvec3 p[4], const Tet& t, glm::dvec3 out[6]) {
  for (int k = 0; k < 6; ++k) {
    const int i = kTetEdgeNodes[k][0], j = kTetEdgeNodes[k][1];
    const glm::dvec3 m = 0.5 * (p[i] + p[j]);
    const glm::dvec3 s = glm::cross(p[kTetEdgeOthers[k][0]] - m, p[kTetEdgeOthers[k][1]] - m) / 12.0;
    out[k] = t[i] < t[j] ? s : -s;
  }
}

// The centroid of face f where cell c (one of its cells) sees it: face_centroids[f], moved by the
// face's jump for its second cell on a periodic mesh.
inline glm::dvec3 face_centroid_seen_from(const Geometry& g, const Topology& topo, std::int32_t f, std::int32_t c) {
  const glm::dvec3& x = g.face_centroids[std::size_t(f)];
  return !g.face_jumps.empty() && topo.face_cells[std::size_t(f)][1] == c ? x + g.face_jumps[std::size_t(f)] : x;
}

// Requires positively oriented tets (validate_and_orient_tets first). The per-face arrays follow the
// topology's face rows; edge_vectors, edge_lengths and dual_face_areas are computed only with
// TopologyTables::all. Bit-identical for any number of OpenMP threads.
Geometry compute_geometry(const TetMesh& mesh, const Topology& topo);

// Only the cells' volumes (signed) and centroids, as compute_geometry computes them, in parallel:
// the CPU twin of the GPU refinement's cell geometry (operators/gpu_refinement.hpp).
void cell_volumes_and_centroids(const TetMesh& mesh, std::vector<double>& volumes, std::vector<glm::dvec3>& centroids);

}  // namespace ss
