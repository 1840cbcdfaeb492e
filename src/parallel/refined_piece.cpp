#include "parallel/refined_piece.hpp"

#include <algorithm>
#include <array>
#include <limits>
#include <numeric>

#include "mesh/refine.hpp"
#include "mesh/topology.hpp"
#include "parallel/entity_partition.hpp"
#include "parallel/global_to_local.hpp"
#include "util/error.hpp"

namespace ss {

namespace {

using i32 = std::int32_t;
using i64 = std::int64_t;

// A base piece's fields in message order, for either direction (Piece: const for packing).
template <class Archive, class Piece>
void transfer_fields(Archive& a, Piece& b) {
  transfer_each(a, b.mesh.source, b.mesh.nodes, b.mesh.tets, b.mesh.tet_groups, b.mesh.boundary_triangles,
                b.mesh.triangle_groups, b.mesh.surface_group_names, b.mesh.volume_group_names);
  transfer_each(a, b.owned_tets, b.node_global, b.tet_global, b.node_owner, b.tet_owner, b.edge_global, b.face_global,
                b.edge_owner, b.face_owner, b.base_nodes, b.base_edges, b.base_faces, b.base_tets);
}

// A fine node as a lattice point of the base mesh: Σ_k weight[k]·x_k / 2^levels over the base
// corners node[0..size) (local base ids, ascending), every weight ≥ 1.
struct LatticePoint {
  std::array<i32, 4> node{};
  std::array<i32, 4> weight{};
  int size = 0;
};

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

// Lattice points strictly inside a base entity with `corners` corners (2: edge, 3: face, 4: tet).
i64 interior_points(int corners, i64 m) {
  if (corners == 2) return m - 1;
  if (corners == 3) return (m - 1) * (m - 2) / 2;
  return (m - 1) * (m - 2) * (m - 3) / 6;
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

// The base entities of a piece by their corners (local ids ascending, unused slots -1): edges,
// faces and tets, each with its global id and owner.
class BaseEntities {
public:
  explicit BaseEntities(const BasePiece& b) {
    for (size_t c = 0; c < b.mesh.tets.size(); ++c) {
      const Tet& t = b.mesh.tets[c];
      for (int k = 0; k < 6; ++k)
        add(2, {t[size_t(kTetEdgeNodes[k][0])], t[size_t(kTetEdgeNodes[k][1])], -1, -1}, b.edge_global[6 * c + size_t(k)],
            b.edge_owner[6 * c + size_t(k)]);
      for (int k = 0; k < 4; ++k)
        add(3, {t[size_t((k + 1) % 4)], t[size_t((k + 2) % 4)], t[size_t((k + 3) % 4)], -1}, b.face_global[4 * c + size_t(k)],
            b.face_owner[4 * c + size_t(k)]);
      add(4, {t[0], t[1], t[2], t[3]}, b.tet_global[c], b.tet_owner[c]);
    }
    for (auto& list : by_size_) {
      std::sort(list.begin(), list.end(), [](const Entry& x, const Entry& y) { return x.nodes < y.nodes; });
      list.erase(std::unique(list.begin(), list.end(), [](const Entry& x, const Entry& y) { return x.nodes == y.nodes; }),
                 list.end());
    }
  }
  // Global id and owner of the entity with these corners; false when the piece has none.
  bool find(const LatticePoint& p, i64& global, i32& owner) const {
    std::array<i32, 4> nodes = {-1, -1, -1, -1};
    for (int k = 0; k < p.size; ++k) nodes[size_t(k)] = p.node[size_t(k)];
    const std::vector<Entry>& list = by_size_[size_t(p.size - 2)];
    const auto it = std::lower_bound(list.begin(), list.end(), nodes, [](const Entry& e, const std::array<i32, 4>& n) {
      return e.nodes < n;
    });
    if (it == list.end() || it->nodes != nodes) return false;
    global = it->global, owner = it->owner;
    return true;
  }

private:
  struct Entry {
    std::array<i32, 4> nodes;
    i64 global;
    i32 owner;
  };
  void add(int corners, std::array<i32, 4> nodes, i64 global, i32 owner) {
    std::sort(nodes.begin(), nodes.begin() + corners);
    by_size_[size_t(corners - 2)].push_back({nodes, global, owner});
  }
  std::vector<Entry> by_size_[3];
};

}  // namespace

void transfer(Packer& p, const BasePiece& piece) { transfer_fields(p, piece); }
void transfer(Unpacker& u, BasePiece& piece) { transfer_fields(u, piece); }

BasePartition::BasePartition(const LoadedMesh& base, std::vector<i32> tet_part, int parts)
    : base_(base), tet_part_(std::move(tet_part)), parts_(parts) {
  const Topology& t = base.topology;
  SS_REQUIRE(t.tables == TopologyTables::all, "partition: the base mesh needs every topology table");
  SS_REQUIRE(tet_part_.size() == base.mesh.tets.size(), "partition: " << tet_part_.size() << " part ids for "
                                                                      << base.mesh.tets.size() << " tets");
  EntityOwners owners = entity_owners(base, tet_part_);
  node_owner_ = std::move(owners.node), edge_owner_ = std::move(owners.edge), face_owner_ = std::move(owners.face);
  const TetMesh& m = base.mesh;
  triangle_face_.resize(m.boundary_triangles.size());
  for (size_t k = 0; k < m.boundary_triangles.size(); ++k) {
    const Triangle& tri = m.boundary_triangles[k];
    triangle_face_[k] = t.find_face(tri[0], tri[1], tri[2]);
    SS_REQUIRE(triangle_face_[k] >= 0, m.source << ": " << triangle_label(m, i32(k)) << " is no tet face");
  }
}

BasePiece BasePartition::piece(int q) const {
  const TetMesh& m = base_.mesh;
  const Topology& topo = base_.topology;
  BasePiece b;
  // Tets: q's own, then the layer (each ascending).
  const std::vector<i64> near = piece_tets(m, tet_part_, q);
  for (i64 c : near)
    if (tet_part_[size_t(c)] == q) b.tet_global.push_back(c);
  b.owned_tets = i32(b.tet_global.size());
  for (i64 c : near)
    if (tet_part_[size_t(c)] != q) b.tet_global.push_back(c);
  for (i64 c : b.tet_global)
    for (NodeId v : m.tets[size_t(c)]) b.node_global.push_back(v);
  std::sort(b.node_global.begin(), b.node_global.end());
  b.node_global.erase(std::unique(b.node_global.begin(), b.node_global.end()), b.node_global.end());
  const GlobalToLocal local_node(b.node_global, q);

  TetMesh& p = b.mesh;
  p.source = m.source;
  p.surface_group_names = m.surface_group_names;
  p.volume_group_names = m.volume_group_names;
  for (i64 v : b.node_global) {
    p.nodes.push_back(m.nodes[size_t(v)]);
    b.node_owner.push_back(node_owner_[size_t(v)]);
  }
  std::vector<char> local_face(size_t(topo.num_faces), 0);
  for (i64 c : b.tet_global) {
    const Tet& g = m.tets[size_t(c)];
    p.tets.push_back({local_node(g[0]), local_node(g[1]), local_node(g[2]), local_node(g[3])});
    p.tet_groups.push_back(m.tet_groups.empty() ? 0 : m.tet_groups[size_t(c)]);
    b.tet_owner.push_back(tet_part_[size_t(c)]);
    for (i32 e : topo.cell_edges[size_t(c)]) {
      b.edge_global.push_back(e);
      b.edge_owner.push_back(edge_owner_[size_t(e)]);
    }
    for (i32 f : topo.cell_faces[size_t(c)]) {
      b.face_global.push_back(f);
      b.face_owner.push_back(face_owner_[size_t(f)]);
      local_face[size_t(f)] = 1;
    }
  }
  for (size_t k = 0; k < m.boundary_triangles.size(); ++k) {
    if (!local_face[size_t(triangle_face_[k])]) continue;
    const Triangle& tri = m.boundary_triangles[k];
    p.boundary_triangles.push_back({local_node(tri[0]), local_node(tri[1]), local_node(tri[2])});
    p.triangle_groups.push_back(m.triangle_groups[k]);
  }
  b.base_nodes = i64(m.nodes.size()), b.base_edges = topo.num_edges, b.base_faces = topo.num_faces;
  b.base_tets = i64(m.tets.size());
  return b;
}

std::int64_t refined_node_count(const BasePiece& b, int levels) {
  const i64 m = i64(1) << levels;
  return b.base_nodes + b.base_edges * interior_points(2, m) + b.base_faces * interior_points(3, m) +
         b.base_tets * interior_points(4, m);
}

namespace {

// A piece being refined: the mesh, each node's lattice point, and per tet its global fine id at
// this level (base tet g at level L: g·8^L + its index among g's descendants) and whether it
// descends from one of the rank's own base tets.
struct RefiningPiece {
  TetMesh mesh;
  std::vector<LatticePoint> point;
  std::vector<i64> tet_id;
  std::vector<char> owned;
};

// Keeps the tets marked in `keep` (order kept), their nodes (order kept) and the file triangles
// that are faces of kept tets (found through the kept tets around a triangle's first node).
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
      r.point[size_t(kept_nodes++)] = r.point[v];
    }
  m.nodes.resize(size_t(kept_nodes));
  r.point.resize(size_t(kept_nodes));
  size_t kept = 0;
  for (size_t t = 0; t < nt; ++t) {
    if (!keep[t]) continue;
    const Tet& tet = m.tets[t];
    m.tets[kept] = {local[size_t(tet[0])], local[size_t(tet[1])], local[size_t(tet[2])], local[size_t(tet[3])]};
    if (!m.tet_groups.empty()) m.tet_groups[kept] = m.tet_groups[t];
    r.tet_id[kept] = r.tet_id[t];
    r.owned[kept++] = r.owned[t];
  }
  m.tets.resize(kept);
  if (!m.tet_groups.empty()) m.tet_groups.resize(kept);
  r.tet_id.resize(kept);
  r.owned.resize(kept);
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

// One uniform refinement of the piece, lattice points and tet ids carried along.
void refine_level(RefiningPiece& r, int rank) {
  const Topology topo = build_topology(r.mesh, TopologyTables::edges);
  const std::vector<i32> id = refined_node_ids(topo, RefineNumbering::interleaved);
  std::vector<LatticePoint> next(size_t(topo.num_nodes) + size_t(topo.num_edges));
  for (i32 v = 0; v < topo.num_nodes; ++v) next[size_t(id[size_t(v)])] = r.point[size_t(v)];
  i32 bad = -1;
#pragma omp parallel for schedule(static) reduction(max : bad)
  for (i32 e = 0; e < topo.num_edges; ++e) {
    const auto& ends = topo.edge_nodes[size_t(e)];
    if (!midpoint(r.point[size_t(ends[0])], r.point[size_t(ends[1])], next[size_t(id[size_t(topo.num_nodes + e)])]))
      bad = std::max(bad, e);
  }
  SS_REQUIRE(bad < 0, r.mesh.source << ": rank " << rank << "'s base piece is not conforming (refined edge " << bad
                                    << " leaves its base tet)");
  r.mesh = refine_once(r.mesh, topo, RefineNumbering::interleaved);
  r.point = std::move(next);
  std::vector<i64> tet_id(r.tet_id.size() * 8);
  std::vector<char> owned(tet_id.size());
  for (size_t c = 0; c < r.tet_id.size(); ++c)
    for (size_t k = 0; k < 8; ++k) tet_id[8 * c + k] = 8 * r.tet_id[c] + i64(k), owned[8 * c + k] = r.owned[c];
  r.tet_id = std::move(tet_id);
  r.owned = std::move(owned);
}

}  // namespace

RankPiece refine_base_piece(const BasePiece& b, int levels, int rank) {
  SS_REQUIRE(levels >= 0 && levels <= 12, "refinement level must be in 0..12, got " << levels);
  SS_REQUIRE(std::is_sorted(b.node_global.begin(), b.node_global.end()), "partition: base piece nodes out of order");
  const i64 m = i64(1) << levels;

  // 1. Refine, carrying each node's lattice point (local base corners ascending = global ascending).
  //    After each level a layer tet is dropped unless one of its nodes lies on the rank's own base
  //    tets (all its base corners are corners of own tets): only such tets have descendants that
  //    touch a node the rank may own.
  RefiningPiece r;
  r.mesh = b.mesh;
  r.point.resize(r.mesh.nodes.size());
  for (size_t v = 0; v < r.point.size(); ++v) r.point[v].node[0] = i32(v), r.point[v].weight[0] = i32(m), r.point[v].size = 1;
  r.tet_id = b.tet_global;
  r.owned.assign(b.tet_global.size(), 0);
  std::fill(r.owned.begin(), r.owned.begin() + b.owned_tets, 1);
  std::vector<char> own_corner(b.node_global.size(), 0);
  for (i32 c = 0; c < b.owned_tets; ++c)
    for (NodeId v : b.mesh.tets[size_t(c)]) own_corner[size_t(v)] = 1;
  for (int level = 0; level < levels; ++level) {
    refine_level(r, rank);
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
      keep[size_t(t)] = r.owned[size_t(t)] || near[size_t(tet[0])] || near[size_t(tet[1])] || near[size_t(tet[2])] ||
                        near[size_t(tet[3])];
    }
    keep_tets(r, keep);
  }

  // 2. Global id and owner of every fine node: its base entity's block, owner and lattice index.
  const BaseEntities entities(b);
  const i64 offset[3] = {b.base_nodes, b.base_nodes + b.base_edges * interior_points(2, m),
                         b.base_nodes + b.base_edges * interior_points(2, m) + b.base_faces * interior_points(3, m)};
  const size_t nn = r.mesh.nodes.size();
  std::vector<i64> global(nn);
  std::vector<i32> owner(nn);
  i64 missing = std::numeric_limits<i64>::max();
#pragma omp parallel for schedule(static) reduction(min : missing)
  for (i64 v = 0; v < i64(nn); ++v) {
    const LatticePoint& p = r.point[size_t(v)];
    if (p.size == 1) {
      global[size_t(v)] = b.node_global[size_t(p.node[0])], owner[size_t(v)] = b.node_owner[size_t(p.node[0])];
      continue;
    }
    i64 entity = 0;
    if (!entities.find(p, entity, owner[size_t(v)])) {
      missing = std::min(missing, v);
      continue;
    }
    global[size_t(v)] = offset[p.size - 2] + entity * interior_points(p.size, m) + lattice_index(p, m);
  }
  SS_REQUIRE(missing == std::numeric_limits<i64>::max(),
             b.mesh.source << ": rank " << rank << ": fine node " << missing << " lies on no base entity of its piece");

  // 3. Keep the owned tets and every other tet touching an owned node.
  {
    std::vector<char> keep(r.mesh.tets.size());
#pragma omp parallel for schedule(static)
    for (i64 t = 0; t < i64(keep.size()); ++t) {
      const Tet& tet = r.mesh.tets[size_t(t)];
      keep[size_t(t)] = r.owned[size_t(t)] || owner[size_t(tet[0])] == rank || owner[size_t(tet[1])] == rank ||
                        owner[size_t(tet[2])] == rank || owner[size_t(tet[3])] == rank;
    }
    // keep_tets compacts the nodes in order: carry the ids and owners along through the lattice points' slots.
    for (size_t v = 0; v < nn; ++v) r.point[v].node[0] = i32(v);  // the points are no longer needed: reuse as a tag
    keep_tets(r, keep);
    std::vector<i64> kept_global(r.mesh.nodes.size());
    std::vector<i32> kept_owner(r.mesh.nodes.size());
    for (size_t v = 0; v < r.mesh.nodes.size(); ++v) {
      kept_global[v] = global[size_t(r.point[v].node[0])];
      kept_owner[v] = owner[size_t(r.point[v].node[0])];
    }
    global = std::move(kept_global);
    owner = std::move(kept_owner);
  }
  r.point = {};

  // 4. Local nodes: owned in refined order, then ghosts by (owner, global id).
  const size_t kept_nodes = r.mesh.nodes.size();
  std::vector<i32> order;
  for (size_t v = 0; v < kept_nodes; ++v)
    if (owner[v] == rank) order.push_back(i32(v));
  const i32 owned_nodes = i32(order.size());
  for (size_t v = 0; v < kept_nodes; ++v)
    if (owner[v] != rank) order.push_back(i32(v));
  std::sort(order.begin() + owned_nodes, order.end(), [&](i32 x, i32 y) {
    return owner[size_t(x)] != owner[size_t(y)] ? owner[size_t(x)] < owner[size_t(y)] : global[size_t(x)] < global[size_t(y)];
  });
  std::vector<i32> local(kept_nodes);
  for (size_t k = 0; k < order.size(); ++k) local[size_t(order[k])] = i32(k);

  RankPiece piece;
  MeshPartition& part = piece.part;
  TetMesh& out = part.mesh;
  out = std::move(r.mesh);
  std::vector<glm::dvec3> coordinates(kept_nodes);
  part.node_global.resize(kept_nodes);
  piece.node_owner.resize(kept_nodes);
  for (size_t k = 0; k < kept_nodes; ++k) {
    coordinates[k] = out.nodes[size_t(order[k])];
    part.node_global[k] = global[size_t(order[k])];
    piece.node_owner[k] = owner[size_t(order[k])];
  }
  out.nodes = std::move(coordinates);
  for (Tet& tet : out.tets)
    for (NodeId& v : tet) v = local[size_t(v)];
  for (Triangle& tri : out.boundary_triangles)
    for (NodeId& v : tri) v = local[size_t(v)];
  part.owned_nodes = owned_nodes;
  part.owned_tets = i32(std::count(r.owned.begin(), r.owned.end(), char(1)));
  SS_REQUIRE(std::is_partitioned(r.owned.begin(), r.owned.end(), [](char o) { return o != 0; }),
             "partition: rank " << rank << "'s owned fine tets are not first");
  part.tet_global = std::move(r.tet_id);
  return piece;
}

std::vector<HaloLink> exchange_node_links(const RankPiece& piece, MPI_Comm comm) {
  int rank = 0, ranks = 1;
  mpi_check(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
  mpi_check(MPI_Comm_size(comm, &ranks), "MPI_Comm_size");
  const MeshPartition& part = piece.part;
  // The ghosts are grouped by owner, ascending global id within a group: that is the request order.
  std::vector<int> asked(size_t(ranks), 0), asked_of_me(size_t(ranks), 0);
  std::vector<std::int64_t> requests;
  for (size_t i = size_t(part.owned_nodes); i < part.node_global.size(); ++i) {
    ++asked[size_t(piece.node_owner[i])];
    requests.push_back(part.node_global[i]);
  }
  mpi_check(MPI_Alltoall(asked.data(), 1, MPI_INT, asked_of_me.data(), 1, MPI_INT, comm), "MPI_Alltoall (halo links)");
  std::vector<int> send_at(size_t(ranks), 0), recv_at(size_t(ranks), 0);
  for (int r = 1; r < ranks; ++r) {
    send_at[size_t(r)] = send_at[size_t(r - 1)] + asked[size_t(r - 1)];
    recv_at[size_t(r)] = recv_at[size_t(r - 1)] + asked_of_me[size_t(r - 1)];
  }
  std::vector<std::int64_t> wanted(size_t(recv_at.back()) + size_t(asked_of_me.back()));
  mpi_check(MPI_Alltoallv(requests.data(), asked.data(), send_at.data(), MPI_INT64_T, wanted.data(), asked_of_me.data(),
                          recv_at.data(), MPI_INT64_T, comm),
            "MPI_Alltoallv (halo links)");
  const GlobalToLocal local_of(part.node_global, rank);
  std::vector<HaloLink> links;
  for (int r = 0; r < ranks; ++r) {
    if (asked[size_t(r)] == 0 && asked_of_me[size_t(r)] == 0) continue;
    SS_REQUIRE(r != rank, "partition: rank " << rank << " holds a ghost of its own");
    HaloLink l;
    l.rank = r;
    for (int k = 0; k < asked[size_t(r)]; ++k) l.recv.push_back(part.owned_nodes + send_at[size_t(r)] + k);
    for (int k = 0; k < asked_of_me[size_t(r)]; ++k) {
      const i32 i = local_of(wanted[size_t(recv_at[size_t(r)] + k)]);
      SS_REQUIRE(i < part.owned_nodes, "partition: rank " << r << " asks rank " << rank << " for node "
                                                          << wanted[size_t(recv_at[size_t(r)] + k)] << ", which it does not own");
      l.send.push_back(i);
    }
    links.push_back(std::move(l));
  }
  return links;
}

}  // namespace ss
