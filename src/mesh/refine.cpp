#include "mesh/refine.hpp"

#include <algorithm>
#include <utility>

#include <glm/geometric.hpp>

#include "mesh/geometry.hpp"
#include "mesh/periodic.hpp"
#include "mesh/topology.hpp"
#include "util/error.hpp"

namespace ss {

using i32 = std::int32_t;

std::vector<i32> refined_node_ids(const Topology& topo, RefineNumbering numbering) {
  const i32 nn = topo.num_nodes, ne = topo.num_edges;
  std::vector<i32> id(static_cast<size_t>(nn) + static_cast<size_t>(ne));
  if (numbering == RefineNumbering::coarse_first) {
    for (i32 i = 0; i < nn + ne; ++i) id[size_t(i)] = i;
    return id;
  }
  // Edges are sorted by (low, high): before node v come the v coarse nodes below it and the
  // edge_offsets_by_low_node[v] midpoints of their edges; edge e (low node a) follows a and the
  // edges of a before it.
#pragma omp parallel for schedule(static)
  for (i32 v = 0; v < nn; ++v) id[size_t(v)] = v + topo.edge_offsets_by_low_node[size_t(v)];
#pragma omp parallel for schedule(static)
  for (i32 e = 0; e < ne; ++e) id[size_t(nn) + size_t(e)] = e + topo.edge_nodes[size_t(e)][0] + 1;
  return id;
}

namespace {

// Slots 4..9 hold the midpoints of the local edges in kTetEdgeNodes order (01 02 03 12 13 23).
constexpr int kCornerChildren[4][4] = {{0, 4, 5, 6}, {4, 1, 7, 8}, {5, 7, 2, 9}, {6, 8, 9, 3}};
// The octahedron's opposite vertex pairs (diagonals): (01, 23), (02, 13), (03, 12).
constexpr int kDiagonals[3][2] = {{4, 9}, {5, 8}, {6, 7}};

double six_signed_volume(const glm::dvec3& p0, const glm::dvec3& p1, const glm::dvec3& p2, const glm::dvec3& p3) {
  return glm::dot(p1 - p0, glm::cross(p2 - p0, p3 - p0));
}

}  // namespace

void refined_child_slots(i32 cut, int k, int slots[4]) {
  if (k < 4) {
    for (int i = 0; i < 4; ++i) slots[i] = kCornerChildren[k][i];
  } else {
    // Inner octahedron around the diagonal (p, q): the equator r, s, u, w (the other two opposite
    // pairs (r, u) and (s, w)) visited alternately gives children (p, q, r, s), (p, q, s, u), ...
    const int best = cut & 3;
    const int r = kDiagonals[(best + 1) % 3][0], u = kDiagonals[(best + 1) % 3][1];
    const int s = kDiagonals[(best + 2) % 3][0], w = kDiagonals[(best + 2) % 3][1];
    const int equator[5] = {r, s, u, w, r};
    slots[0] = kDiagonals[best][0], slots[1] = kDiagonals[best][1];
    slots[2] = equator[k - 4], slots[3] = equator[k - 3];
  }
  if (cut & (4 << k)) std::swap(slots[2], slots[3]);
}

i32 refine_cut(const glm::dvec3 corners[4]) {
  glm::dvec3 p[10];
  for (int i = 0; i < 4; ++i) p[i] = corners[i];
  for (int k = 0; k < 6; ++k) p[4 + k] = 0.5 * (corners[kTetEdgeNodes[k][0]] + corners[kTetEdgeNodes[k][1]]);
  // Cut along the shortest diagonal. Lengths within a relative kDiagonalTie of the shortest count
  // as ties, won by the first: exact ties (structured meshes) then never hang on the last bit.
  double squared[3];
  for (int d = 0; d < 3; ++d) {
    const glm::dvec3 v = p[kDiagonals[d][0]] - p[kDiagonals[d][1]];
    squared[d] = glm::dot(v, v);
  }
  const double limit = std::min({squared[0], squared[1], squared[2]}) * (1.0 + kDiagonalTie);
  i32 cut = squared[0] <= limit ? 0 : squared[1] <= limit ? 1 : 2;
  // Corner children inherit the parent's orientation; the inner four depend on the diagonal.
  for (int k = 0; k < 8; ++k) {
    int s[4];
    refined_child_slots(cut, k, s);
    if (six_signed_volume(p[s[0]], p[s[1]], p[s[2]], p[s[3]]) < 0) cut |= 4 << k;
  }
  return cut;
}

std::vector<std::uint32_t> surface_edge_masks(const TetMesh& mesh, const Topology& topo) {
  if (mesh.boundary_surfaces.empty()) return {};
  std::vector<std::uint32_t> masks(size_t(topo.num_edges), 0);
  for (size_t t = 0; t < mesh.boundary_triangles.size(); ++t) {
    std::uint32_t bits = 0;
    for (size_t k = 0; k < mesh.boundary_surfaces.size(); ++k)
      if (mesh.boundary_surfaces[k].group_id == mesh.triangle_groups[t]) bits |= std::uint32_t(1) << k;
    if (!bits) continue;
    const Triangle& tri = mesh.boundary_triangles[t];
    for (int k = 0; k < 3; ++k) {
      const i32 e = topo.find_edge(tri[size_t(k)], tri[size_t((k + 1) % 3)]);
      if (e >= 0) masks[size_t(e)] |= bits;
    }
  }
  return masks;
}

namespace {

// The lowest surface bit of the edges of coarse tet c, or -1: the surface a bad child is blamed on.
int surface_of_cell(const Topology& topo, const std::vector<std::uint32_t>& edge_surfaces, i32 c) {
  std::uint32_t bits = 0;
  for (int k = 0; k < 6; ++k) bits |= edge_surfaces[size_t(topo.cell_edges[size_t(c)][size_t(k)])];
  for (int b = 0; b < kMaxBoundarySurfaces; ++b)
    if (bits >> b & 1u) return b;
  return -1;
}

// After projecting midpoints onto boundary surfaces: every child of coarse tet c must keep a
// positive volume; the first that does not (lowest coarse tet) is reported.
void require_positive_children(const TetMesh& coarse, const Topology& topo, const TetMesh& fine,
                               const std::vector<std::uint32_t>& edge_surfaces) {
  const i32 nc = i32(coarse.tets.size());
  i32 bad = nc;
#pragma omp parallel for schedule(static) reduction(min : bad)
  for (i32 c = 0; c < nc; ++c) {
    for (int k = 0; k < 8; ++k) {
      glm::dvec3 p[4];
      corner_positions(fine, size_t(c) * 8 + size_t(k), p);
      if (!(six_signed_volume(p[0], p[1], p[2], p[3]) > 0.0))
        bad = std::min(bad, c);
    }
  }
  if (bad == nc) return;
  const int s = surface_of_cell(topo, edge_surfaces, bad);
  const BoundarySurface* surface = s >= 0 ? &coarse.boundary_surfaces[size_t(s)] : nullptr;
  SS_THROW(coarse.source << ": refining " << tet_with_nodes(coarse, bad) << " with its boundary nodes moved onto the "
                         << (surface ? surface_shape_name(surface->shape) : "declared") << " of group '"
                         << (surface ? surface->group : "?") << "' (" << (surface ? surface->where : "[[mesh.surface]]")
                         << ") gives an inverted or flat child tet: the mesh is too coarse there for that surface");
}

}  // namespace

TetMesh refine_once(const TetMesh& mesh, const Topology& topo, RefineNumbering numbering) {
  return refine_once(mesh, topo, numbering, surface_edge_masks(mesh, topo));
}

TetMesh refine_once(const TetMesh& mesh, const Topology& topo, RefineNumbering numbering,
                    const std::vector<std::uint32_t>& edge_surfaces) {
  const i32 nn = topo.num_nodes, ne = topo.num_edges, nc = topo.num_cells;
  SS_REQUIRE(static_cast<std::int64_t>(nc) * 8 <= kMaxTets && static_cast<std::int64_t>(nn) + ne < (1LL << 31),
             mesh.source << ": refinement would give " << 8LL * nc << " tets; the mesh tables handle at most " << kMaxTets
                         << " (32-bit ids): use a smaller --refine");
  TetMesh out;
  out.source = mesh.source;
  out.surface_group_names = mesh.surface_group_names;
  out.volume_group_names = mesh.volume_group_names;  // tags are dropped: refined entities have none
  out.boundary_surfaces = mesh.boundary_surfaces;
  const std::vector<i32> id = refined_node_ids(topo, numbering);
  out.nodes = refined_node_coordinates(mesh, topo, numbering, edge_surfaces);

  out.tets.resize(static_cast<size_t>(nc) * 8);
  out.tet_groups.resize(out.tets.size());
  const bool periodic = is_periodic(mesh);
  out.period_offsets = mesh.period_offsets;
  if (periodic) out.corner_shifts.resize(out.tets.size());
#pragma omp parallel for schedule(static)
  for (i32 c = 0; c < nc; ++c) {
    const Tet& coarse = mesh.tets[c];
    glm::dvec3 corners[4];
    corner_positions(mesh, size_t(c), corners);
    const i32 cut = refine_cut(corners);
    i32 slot_ids[10];  // fine ids of the slots of refined_child_slots
    for (int i = 0; i < 4; ++i) slot_ids[i] = id[size_t(coarse[i])];
    for (int k = 0; k < 6; ++k) slot_ids[4 + k] = id[size_t(nn + topo.cell_edges[c][k])];
    // Periodic: a corner keeps its shift; a midpoint lies where the edge's low node's corner does
    // (refined_node_coordinates puts it in that node's frame).
    PeriodShift slot_shifts[10] = {};
    if (periodic) {
      for (int i = 0; i < 4; ++i) slot_shifts[i] = mesh.corner_shifts[size_t(c)][size_t(i)];
      for (int k = 0; k < 6; ++k) {
        const int i = kTetEdgeNodes[k][0], j = kTetEdgeNodes[k][1];
        slot_shifts[4 + k] = slot_shifts[coarse[i] < coarse[j] ? i : j];
      }
    }
    for (int k = 0; k < 8; ++k) {
      int slots[4];
      refined_child_slots(cut, k, slots);
      const size_t child = static_cast<size_t>(c) * 8 + size_t(k);
      out.tets[child] = {slot_ids[slots[0]], slot_ids[slots[1]], slot_ids[slots[2]], slot_ids[slots[3]]};
      out.tet_groups[child] = mesh.tet_groups.empty() ? 0 : mesh.tet_groups[c];
      if (periodic)
        for (int i = 0; i < 4; ++i) out.corner_shifts[child][size_t(i)] = slot_shifts[slots[i]];
    }
  }

  const i32 nt = static_cast<i32>(mesh.boundary_triangles.size());
  out.boundary_triangles.resize(static_cast<size_t>(nt) * 4);
  out.triangle_groups.resize(out.boundary_triangles.size());
  for (i32 t = 0; t < nt; ++t) {
    const Triangle& tri = mesh.boundary_triangles[t];
    for (int k = 0; k < 3; ++k)
      SS_REQUIRE(topo.find_edge(tri[k], tri[(k + 1) % 3]) >= 0, mesh.source << ": " << triangle_label(mesh, t) << " ("
                                                                              << nodes_label(mesh, tri.data(), 3)
                                                                              << ") has an edge that is no tet edge");
    const auto children = refined_triangle_children(topo, id, tri);
    for (int k = 0; k < 4; ++k) {
      out.boundary_triangles[static_cast<size_t>(t) * 4 + k] = children[size_t(k)];
      out.triangle_groups[static_cast<size_t>(t) * 4 + k] = mesh.triangle_groups[t];
    }
  }
  if (!edge_surfaces.empty()) require_positive_children(mesh, topo, out, edge_surfaces);
  return out;
}

std::vector<glm::dvec3> refined_node_coordinates(const TetMesh& mesh, const Topology& topo, RefineNumbering numbering) {
  return refined_node_coordinates(mesh, topo, numbering, surface_edge_masks(mesh, topo));
}

std::vector<glm::dvec3> refined_node_coordinates(const TetMesh& mesh, const Topology& topo, RefineNumbering numbering,
                                                 const std::vector<std::uint32_t>& edge_surfaces) {
  const i32 nn = topo.num_nodes, ne = topo.num_edges;
  SS_REQUIRE(edge_surfaces.empty() || (edge_surfaces.size() == size_t(ne) && !mesh.boundary_surfaces.empty()),
             mesh.source << ": refinement got " << edge_surfaces.size() << " edge surface masks for " << ne << " edges and "
                         << mesh.boundary_surfaces.size() << " surfaces");
  const std::vector<i32> id = refined_node_ids(topo, numbering);
  std::vector<glm::dvec3> nodes(static_cast<size_t>(nn) + static_cast<size_t>(ne));
#pragma omp parallel for schedule(static)
  for (i32 v = 0; v < nn; ++v) nodes[size_t(id[size_t(v)])] = mesh.nodes[size_t(v)];
#pragma omp parallel for schedule(static)
  for (i32 e = 0; e < ne; ++e)
    nodes[size_t(id[size_t(nn + e)])] = 0.5 * (mesh.nodes[topo.edge_nodes[e][0]] + mesh.nodes[topo.edge_nodes[e][1]]);
  if (is_periodic(mesh))  // an edge across a seam: its midpoint as seen from its low node
#pragma omp parallel for schedule(static)
    for (i32 c = 0; c < i32(mesh.tets.size()); ++c)
      for (int k = 0; k < 6; ++k) {
        const int i = kTetEdgeNodes[k][0], j = kTetEdgeNodes[k][1];
        const Tet& t = mesh.tets[size_t(c)];
        const int low = t[i] < t[j] ? i : j, high = i + j - low;
        const glm::dvec3 mid = mesh.nodes[size_t(t[low])] + 0.5 * tet_edge_vector(mesh, size_t(c), low, high);
        nodes[size_t(id[size_t(nn + topo.cell_edges[size_t(c)][size_t(k)])])] = mid;
      }
  if (edge_surfaces.empty()) return nodes;
#pragma omp parallel for schedule(static)
  for (i32 e = 0; e < ne; ++e) {
    const std::uint32_t bits = edge_surfaces[size_t(e)];
    if (!bits) continue;
    glm::dvec3& x = nodes[size_t(id[size_t(nn + e)])];
    for (size_t k = 0; k < mesh.boundary_surfaces.size(); ++k)
      if (bits >> k & 1u) x = project_onto(mesh.boundary_surfaces[k], x);
  }
  return nodes;
}

std::array<std::array<i32, 3>, 4> refined_triangle_children(const Topology& topo, const std::vector<i32>& id,
                                                            const std::array<i32, 3>& tri) {
  i32 mid[3];  // fine id of the midpoint of (tri[k], tri[k+1])
  for (int k = 0; k < 3; ++k) mid[k] = id[size_t(topo.num_nodes + topo.find_edge(tri[k], tri[(k + 1) % 3]))];
  const i32 v[3] = {id[size_t(tri[0])], id[size_t(tri[1])], id[size_t(tri[2])]};
  return {{{v[0], mid[0], mid[2]}, {mid[0], v[1], mid[1]}, {mid[2], mid[1], v[2]}, {mid[0], mid[1], mid[2]}}};
}

void require_refinable(const TetMesh& mesh, int levels) {
  std::int64_t tets = std::int64_t(mesh.tets.size());
  for (int level = 0; level < levels && tets <= kMaxTets; ++level) tets *= 8;
  SS_REQUIRE(tets <= kMaxTets, mesh.source << ": refining " << levels << " times would give " << mesh.tets.size() << " x 8^"
                                           << levels << " tets; the mesh tables handle at most " << kMaxTets
                                           << " (32-bit ids): use a smaller --refine");
}

TetMesh refine_uniform(const TetMesh& mesh, int levels) {
  SS_REQUIRE(levels >= 0, "refinement level must be >= 0, got " << levels);
  TetMesh out = mesh;
  for (int level = 0; level < levels; ++level) out = refine_once(out, build_topology(out, TopologyTables::edges));
  return out;
}

}  // namespace ss
