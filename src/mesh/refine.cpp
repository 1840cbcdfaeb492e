#include "mesh/refine.hpp"

#include <glm/geometric.hpp>

#include "mesh/geometry.hpp"
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

TetMesh refine_once(const TetMesh& mesh, const Topology& topo, RefineNumbering numbering) {
  const i32 nn = topo.num_nodes, ne = topo.num_edges, nc = topo.num_cells;
  SS_REQUIRE(static_cast<std::int64_t>(nc) * 8 <= kMaxTets && static_cast<std::int64_t>(nn) + ne < (1LL << 31),
             mesh.source << ": refinement would give " << 8LL * nc << " tets; the mesh tables handle at most " << kMaxTets
                         << " (32-bit ids): use a smaller --refine");
  TetMesh out;
  out.source = mesh.source;
  out.surface_group_names = mesh.surface_group_names;
  out.volume_group_names = mesh.volume_group_names;  // tags are dropped: refined entities have none
  const std::vector<i32> id = refined_node_ids(topo, numbering);
  out.nodes.resize(static_cast<size_t>(nn) + ne);
#pragma omp parallel for schedule(static)
  for (i32 v = 0; v < nn; ++v) out.nodes[size_t(id[size_t(v)])] = mesh.nodes[size_t(v)];
#pragma omp parallel for schedule(static)
  for (i32 e = 0; e < ne; ++e)
    out.nodes[size_t(id[size_t(nn + e)])] = 0.5 * (mesh.nodes[topo.edge_nodes[e][0]] + mesh.nodes[topo.edge_nodes[e][1]]);

  out.tets.resize(static_cast<size_t>(nc) * 8);
  out.tet_groups.resize(out.tets.size());
#pragma omp parallel for schedule(static)
  for (i32 c = 0; c < nc; ++c) {
    const Tet& coarse = mesh.tets[c];
    const Tet t = {id[size_t(coarse[0])], id[size_t(coarse[1])], id[size_t(coarse[2])], id[size_t(coarse[3])]};
    // m[i][j]: midpoint node of local edge (i, j).
    i32 m[4][4];
    for (int k = 0; k < 6; ++k) {
      const int i = kTetEdgeNodes[k][0], j = kTetEdgeNodes[k][1];
      m[i][j] = m[j][i] = id[size_t(nn + topo.cell_edges[c][k])];
    }
    Tet* child = &out.tets[static_cast<size_t>(c) * 8];
    child[0] = {t[0], m[0][1], m[0][2], m[0][3]};
    child[1] = {m[0][1], t[1], m[1][2], m[1][3]};
    child[2] = {m[0][2], m[1][2], t[2], m[2][3]};
    child[3] = {m[0][3], m[1][3], m[2][3], t[3]};
    // Inner octahedron: opposite vertex pairs (01,23), (02,13), (03,12); cut along the shortest
    // (the first on ties; squared lengths, as the GPU twin shaders/refine_children.glsl compares).
    const i32 diag[3][2] = {{m[0][1], m[2][3]}, {m[0][2], m[1][3]}, {m[0][3], m[1][2]}};
    int best = 0;
    double best_len = 0;
    for (int d = 0; d < 3; ++d) {
      const glm::dvec3 v = out.nodes[diag[d][0]] - out.nodes[diag[d][1]];
      const double len = glm::dot(v, v);
      if (d == 0 || len < best_len) best = d, best_len = len;
    }
    const i32 p = diag[best][0], q = diag[best][1];
    // Equator r, s, u, w: the other two opposite pairs (r, u) and (s, w), visited alternately.
    const i32 r = diag[(best + 1) % 3][0], u = diag[(best + 1) % 3][1];
    const i32 s = diag[(best + 2) % 3][0], w = diag[(best + 2) % 3][1];
    child[4] = {p, q, r, s};
    child[5] = {p, q, s, u};
    child[6] = {p, q, u, w};
    child[7] = {p, q, w, r};
    for (int k = 0; k < 8; ++k) {
      // Corner children inherit the parent's orientation; the inner four depend on the diagonal.
      if (signed_tet_volume(out, child[k]) < 0) std::swap(child[k][2], child[k][3]);
      out.tet_groups[static_cast<size_t>(c) * 8 + k] = mesh.tet_groups.empty() ? 0 : mesh.tet_groups[c];
    }
  }

  const i32 nt = static_cast<i32>(mesh.boundary_triangles.size());
  out.boundary_triangles.resize(static_cast<size_t>(nt) * 4);
  out.triangle_groups.resize(out.boundary_triangles.size());
  for (i32 t = 0; t < nt; ++t) {
    const Triangle& tri = mesh.boundary_triangles[t];
    i32 mid[3];
    for (int k = 0; k < 3; ++k) {
      i32 e = topo.find_edge(tri[k], tri[(k + 1) % 3]);
      SS_REQUIRE(e >= 0, mesh.source << ": " << triangle_label(mesh, t) << " (" << nodes_label(mesh, tri.data(), 3)
                                     << ") has an edge that is no tet edge");
      mid[k] = id[size_t(nn + e)];  // midpoint of (tri[k], tri[k+1])
    }
    const i32 v[3] = {id[size_t(tri[0])], id[size_t(tri[1])], id[size_t(tri[2])]};
    Triangle* child = &out.boundary_triangles[static_cast<size_t>(t) * 4];
    child[0] = {v[0], mid[0], mid[2]};
    child[1] = {mid[0], v[1], mid[1]};
    child[2] = {mid[2], mid[1], v[2]};
    child[3] = {mid[0], mid[1], mid[2]};
    for (int k = 0; k < 4; ++k) out.triangle_groups[static_cast<size_t>(t) * 4 + k] = mesh.triangle_groups[t];
  }
  return out;
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
