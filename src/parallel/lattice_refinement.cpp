#include "parallel/lattice_refinement.hpp"

#include <algorithm>
#include <limits>
#include <numeric>
#include <optional>
#include <utility>

#include "mesh/refine.hpp"
#include "mesh/topology.hpp"
#include "util/error.hpp"

namespace ss {

namespace {

using i32 = std::int32_t;
using i64 = std::int64_t;

// The midpoint of two lattice points of one base tet: weights summed and halved (both even until
// the last level, as every weight is a multiple of 2^(levels − level)). False when the support
// would exceed a tet (a non-conforming base piece).
bool midpoint(const LatticePoint& a, const LatticePoint& b, LatticePoint& m) {
  m.size = 0;
  int i = 0, j = 0;
  while (i < a.size || j < b.size) {
    i32 node = 0, weight = 0;
    if (j >= b.size || (i < a.size && a.node[size_t(i)] < b.node[size_t(j)])) {
      node = a.node[size_t(i)], weight = a.weight[size_t(i++)];
    } else if (i >= a.size || b.node[size_t(j)] < a.node[size_t(i)]) {
      node = b.node[size_t(j)], weight = b.weight[size_t(j++)];
    } else {
      node = a.node[size_t(i)], weight = a.weight[size_t(i++)] + b.weight[size_t(j++)];
    }
    if (m.size == 4) return false;
    m.node[size_t(m.size)] = node;
    m.weight[size_t(m.size++)] = weight / 2;
  }
  return true;
}

// Pairs (a', b) ≥ 0 with a' < a and a' + b ≤ n: Σ_{i<a} (n − i + 1).
i64 pairs_before(i64 a, i64 n) { return a * (n + 1) - a * (a - 1) / 2; }

// Index of the interior point with weights w (ascending global corner order) among those of its
// entity: w_0 follows from the others; the rest, less one each, enumerated lexicographically.
i64 lattice_index(const LatticePoint& p, i64 m) {
  if (p.size == 2) return p.weight[1] - 1;
  if (p.size == 3) return pairs_before(p.weight[1] - 1, m - 3) + (p.weight[2] - 1);
  const i64 n = m - 4, a = p.weight[1] - 1;
  i64 before = 0;
  for (i64 i = 0; i < a; ++i) before += (n - i + 1) * (n - i + 2) / 2;  // triples with first entry i
  return before + pairs_before(p.weight[2] - 1, n - a) + (p.weight[3] - 1);
}

// One uniform refinement of the piece, lattice points, tet ids and base tets carried along.
// `entities`: the base entities' surface bits (needed when the mesh has boundary surfaces).
void refine_level(RefiningPiece& r, int rank, const BaseEntities* entities) {
  const Topology topo = build_topology(r.mesh, TopologyTables::edges);
  const std::vector<i32> id = refined_node_ids(topo, RefineNumbering::interleaved);
  std::vector<LatticePoint> next(size_t(topo.num_nodes) + size_t(topo.num_edges));
  r.parent.resize(next.size());
  for (i32 v = 0; v < topo.num_nodes; ++v) {
    next[size_t(id[size_t(v)])] = r.point[size_t(v)];
    r.parent[size_t(id[size_t(v)])] = {v, v};
  }
  i32 bad = -1;
#pragma omp parallel for schedule(static) reduction(max : bad)
  for (i32 e = 0; e < topo.num_edges; ++e) {
    const auto& ends = topo.edge_nodes[size_t(e)];
    r.parent[size_t(id[size_t(topo.num_nodes + e)])] = {ends[0], ends[1]};
    if (!midpoint(r.point[size_t(ends[0])], r.point[size_t(ends[1])], next[size_t(id[size_t(topo.num_nodes + e)])]))
      bad = std::max(bad, e);
  }
  SS_REQUIRE(bad < 0, r.mesh.source << ": rank " << rank << "'s base piece is not conforming (refined edge " << bad
                                    << " leaves its base tet)");
  std::vector<std::uint32_t> edge_surfaces;
  if (!r.mesh.boundary_surfaces.empty()) {
    SS_REQUIRE(entities, r.mesh.source << ": rank " << rank << ": refining with boundary surfaces needs the base entities");
    edge_surfaces.assign(size_t(topo.num_edges), 0);
#pragma omp parallel for schedule(static)
    for (i32 e = 0; e < topo.num_edges; ++e) {
      const LatticePoint& p = next[size_t(id[size_t(topo.num_nodes + e)])];
      if (p.size < 2 || p.size > 3) continue;  // inside a base tet: on no surface
      const BaseEntities::Entry* entry = entities->find(p);
      edge_surfaces[size_t(e)] = entry ? entry->surfaces : 0;
    }
  }
  r.mesh = refine_once(r.mesh, topo, RefineNumbering::interleaved, edge_surfaces);
  r.point = std::move(next);
  std::vector<i64> tet_id(r.tet_id.size() * 8);
  std::vector<i32> base(tet_id.size());
  for (size_t c = 0; c < r.tet_id.size(); ++c)
    for (size_t k = 0; k < 8; ++k) tet_id[8 * c + k] = 8 * r.tet_id[c] + i64(k), base[8 * c + k] = r.base[c];
  r.tet_id = std::move(tet_id);
  r.base = std::move(base);
}

}  // namespace

bool lattice_support(const LatticePoint* points, int count, LatticePoint& support) {
  support.size = 0;
  for (int k = 0; k < count; ++k)
    for (int j = 0; j < points[k].size; ++j) {
      const i32 v = points[k].node[size_t(j)];
      const auto end = support.node.begin() + support.size;
      if (std::find(support.node.begin(), end, v) != end) continue;
      if (support.size == 4) return false;
      support.node[size_t(support.size++)] = v;
    }
  std::sort(support.node.begin(), support.node.begin() + support.size);
  return true;
}

i64 interior_points(int corners, i64 m) {
  if (corners == 2) return m - 1;
  if (corners == 3) return (m - 1) * (m - 2) / 2;
  return (m - 1) * (m - 2) * (m - 3) / 6;
}

BaseEntities::BaseEntities(const BasePiece& b) {
  for (size_t c = 0; c < b.mesh.tets.size(); ++c) {
    const Tet& t = b.mesh.tets[c];
    for (int k = 0; k < 6; ++k)
      add(2, {t[size_t(kTetEdgeNodes[k][0])], t[size_t(kTetEdgeNodes[k][1])], -1, -1}, b.edge_global[6 * c + size_t(k)],
          b.edge_owner[6 * c + size_t(k)], false, b.edge_surfaces.empty() ? 0 : b.edge_surfaces[6 * c + size_t(k)]);
    for (int k = 0; k < 4; ++k)
      add(3, {t[size_t((k + 1) % 4)], t[size_t((k + 2) % 4)], t[size_t((k + 3) % 4)], -1}, b.face_global[4 * c + size_t(k)],
          b.face_owner[4 * c + size_t(k)], !b.face_boundary.empty() && b.face_boundary[4 * c + size_t(k)],
          b.face_surfaces.empty() ? 0 : b.face_surfaces[4 * c + size_t(k)]);
    add(4, {t[0], t[1], t[2], t[3]}, b.tet_global[c], b.tet_owner[c], false, 0);
  }
  for (auto& list : by_size_) {
    std::sort(list.begin(), list.end(), [](const Entry& x, const Entry& y) { return x.nodes < y.nodes; });
    list.erase(std::unique(list.begin(), list.end(), [](const Entry& x, const Entry& y) { return x.nodes == y.nodes; }),
               list.end());
  }
}

const BaseEntities::Entry* BaseEntities::find(const LatticePoint& p) const {
  std::array<i32, 4> nodes = {-1, -1, -1, -1};
  for (int k = 0; k < p.size; ++k) nodes[size_t(k)] = p.node[size_t(k)];
  const std::vector<Entry>& list = by_size_[size_t(p.size - 2)];
  const auto it = std::lower_bound(list.begin(), list.end(), nodes,
                                   [](const Entry& e, const std::array<i32, 4>& n) { return e.nodes < n; });
  return it == list.end() || it->nodes != nodes ? nullptr : &*it;
}

void BaseEntities::add(int corners, std::array<i32, 4> nodes, i64 global, i32 owner, bool boundary, std::uint32_t surfaces) {
  for (int i = 1; i < corners; ++i)  // insertion sort of the corners (GCC cannot bound std::sort here)
    for (int j = i; j > 0 && nodes[size_t(j - 1)] > nodes[size_t(j)]; --j) std::swap(nodes[size_t(j - 1)], nodes[size_t(j)]);
  by_size_[size_t(corners - 2)].push_back({nodes, global, owner, boundary, surfaces});
}

void keep_tets(RefiningPiece& r, const std::vector<char>& keep) {
  TetMesh& m = r.mesh;
  const size_t nn = m.nodes.size(), nt = m.tets.size();
  std::vector<i32> local(nn, -1);
  for (size_t t = 0; t < nt; ++t)
    if (keep[t])
      for (NodeId v : m.tets[t]) local[size_t(v)] = 0;
  i32 kept_nodes = 0;
  for (size_t v = 0; v < nn; ++v)
    if (local[v] == 0) {
      local[v] = kept_nodes;
      m.nodes[size_t(kept_nodes)] = m.nodes[v];
      if (!r.parent.empty()) r.parent[size_t(kept_nodes)] = r.parent[v];
      r.point[size_t(kept_nodes++)] = r.point[v];
    }
  m.nodes.resize(size_t(kept_nodes));
  r.point.resize(size_t(kept_nodes));
  if (!r.parent.empty()) r.parent.resize(size_t(kept_nodes));
  size_t kept = 0;
  for (size_t t = 0; t < nt; ++t) {
    if (!keep[t]) continue;
    const Tet& tet = m.tets[t];
    m.tets[kept] = {local[size_t(tet[0])], local[size_t(tet[1])], local[size_t(tet[2])], local[size_t(tet[3])]};
    if (!m.tet_groups.empty()) m.tet_groups[kept] = m.tet_groups[t];
    if (is_periodic(m)) m.corner_shifts[kept] = m.corner_shifts[t];
    r.tet_id[kept] = r.tet_id[t];
    r.base[kept++] = r.base[t];
  }
  m.tets.resize(kept);
  if (!m.tet_groups.empty()) m.tet_groups.resize(kept);
  if (is_periodic(m)) m.corner_shifts.resize(kept);
  r.tet_id.resize(kept);
  r.base.resize(kept);
  // The file triangles that are faces of kept tets, found through the kept tets around a
  // triangle's first node.
  std::vector<i32> around_offsets(size_t(kept_nodes) + 1, 0), around;
  for (const Tet& tet : m.tets)
    for (NodeId v : tet) ++around_offsets[size_t(v) + 1];
  std::partial_sum(around_offsets.begin(), around_offsets.end(), around_offsets.begin());
  around.resize(size_t(around_offsets.back()));
  std::vector<i32> fill(around_offsets.begin(), around_offsets.end() - 1);
  for (size_t c = 0; c < m.tets.size(); ++c)
    for (NodeId v : m.tets[c]) around[size_t(fill[size_t(v)]++)] = i32(c);
  size_t kept_triangles = 0;
  for (size_t k = 0; k < m.boundary_triangles.size(); ++k) {
    const Triangle& tri = m.boundary_triangles[k];
    const Triangle mine = {local[size_t(tri[0])], local[size_t(tri[1])], local[size_t(tri[2])]};
    if (mine[0] < 0 || mine[1] < 0 || mine[2] < 0) continue;
    bool face = false;
    for (i32 a = around_offsets[size_t(mine[0])]; a < around_offsets[size_t(mine[0]) + 1] && !face; ++a) {
      const Tet& tet = m.tets[size_t(around[size_t(a)])];
      const auto has = [&](NodeId v) { return std::find(tet.begin(), tet.end(), v) != tet.end(); };
      face = has(mine[1]) && has(mine[2]);
    }
    if (!face) continue;
    m.triangle_groups[kept_triangles] = m.triangle_groups[k];
    m.boundary_triangles[kept_triangles++] = mine;
  }
  m.boundary_triangles.resize(kept_triangles);
  m.triangle_groups.resize(kept_triangles);
}

RefiningPiece refine_base_levels(const BasePiece& b, int levels, int rank,
                                 const std::function<void(RefiningPiece&, int)>& at_level) {
  SS_REQUIRE(levels >= 0 && levels <= 12, "refinement level must be in 0..12, got " << levels);
  SS_REQUIRE(std::is_sorted(b.node_global.begin(), b.node_global.end()), "partition: base piece nodes out of order");
  const i64 m = i64(1) << levels;
  RefiningPiece r;
  r.mesh = b.mesh;
  r.point.resize(r.mesh.nodes.size());
  for (size_t v = 0; v < r.point.size(); ++v) r.point[v].node[0] = i32(v), r.point[v].weight[0] = i32(m), r.point[v].size = 1;
  r.tet_id = b.tet_global;
  r.base.resize(b.tet_global.size());
  std::iota(r.base.begin(), r.base.end(), 0);
  std::vector<char> own_corner(b.node_global.size(), 0);
  for (i32 c = 0; c < b.owned_tets; ++c)
    for (NodeId v : b.mesh.tets[size_t(c)]) own_corner[size_t(v)] = 1;
  SS_REQUIRE(r.mesh.boundary_surfaces.empty() || (b.edge_surfaces.size() == 6 * b.mesh.tets.size() &&
                                                  b.face_surfaces.size() == 4 * b.mesh.tets.size()),
             b.mesh.source << ": rank " << rank << "'s base piece has boundary surfaces but not their edge and face bits");
  std::optional<BaseEntities> entities;
  if (!r.mesh.boundary_surfaces.empty()) entities.emplace(b);
  if (at_level) at_level(r, 0);
  for (int level = 0; level < levels; ++level) {
    refine_level(r, rank, entities ? &*entities : nullptr);
    std::vector<char> near(r.mesh.nodes.size());
#pragma omp parallel for schedule(static)
    for (i64 v = 0; v < i64(near.size()); ++v) {
      const LatticePoint& p = r.point[size_t(v)];
      bool all = true;
      for (int k = 0; k < p.size; ++k) all = all && own_corner[size_t(p.node[size_t(k)])];
      near[size_t(v)] = all;
    }
    std::vector<char> keep(r.mesh.tets.size());
#pragma omp parallel for schedule(static)
    for (i64 t = 0; t < i64(keep.size()); ++t) {
      const Tet& tet = r.mesh.tets[size_t(t)];
      keep[size_t(t)] = r.base[size_t(t)] < b.owned_tets || near[size_t(tet[0])] || near[size_t(tet[1])] ||
                        near[size_t(tet[2])] || near[size_t(tet[3])];
    }
    keep_tets(r, keep);
    if (at_level) at_level(r, level + 1);
  }
  return r;
}

void fine_node_ids(const RefiningPiece& r, const BasePiece& b, const BaseEntities& entities, int levels, int rank,
                   std::vector<i64>& global, std::vector<i32>& owner) {
  const i64 m = i64(1) << levels;
  const i64 offset[3] = {b.base_nodes, b.base_nodes + b.base_edges * interior_points(2, m),
                         b.base_nodes + b.base_edges * interior_points(2, m) + b.base_faces * interior_points(3, m)};
  const size_t nn = r.mesh.nodes.size();
  global.resize(nn);
  owner.resize(nn);
  i64 missing = std::numeric_limits<i64>::max();
#pragma omp parallel for schedule(static) reduction(min : missing)
  for (i64 v = 0; v < i64(nn); ++v) {
    const LatticePoint& p = r.point[size_t(v)];
    if (p.size == 1) {
      global[size_t(v)] = b.node_global[size_t(p.node[0])], owner[size_t(v)] = b.node_owner[size_t(p.node[0])];
      continue;
    }
    const BaseEntities::Entry* e = entities.find(p);
    if (!e) {
      missing = std::min(missing, v);
      continue;
    }
    owner[size_t(v)] = e->owner;
    global[size_t(v)] = offset[p.size - 2] + e->global * interior_points(p.size, m) + lattice_index(p, m);
  }
  SS_REQUIRE(missing == std::numeric_limits<i64>::max(),
             b.mesh.source << ": rank " << rank << ": fine node " << missing << " lies on no base entity of its piece");
}

}  // namespace ss
