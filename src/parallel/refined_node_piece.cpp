#include "parallel/refined_node_piece.hpp"

#include <algorithm>
#include <array>
#include <limits>
#include <numeric>

#include "mesh/refine.hpp"
#include "mesh/topology.hpp"
#include "parallel/entity_partition.hpp"
#include "parallel/global_to_local.hpp"
#include "parallel/halo_pairing.hpp"
#include "parallel/lattice_refinement.hpp"
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
                b.edge_owner, b.face_owner, b.face_boundary, b.base_nodes, b.base_edges, b.base_faces, b.base_tets);
}

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
      b.face_boundary.push_back(topo.face_cells[size_t(f)][1] < 0);
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

// Steps 2–4 of refine_base_piece on `r`, `b` refined `levels` times: the global ids and owners,
// the cut to the tets around owned nodes, the local order. source[k] (when asked): r's index of
// local node k.
RankPiece cut_refined_piece(RefiningPiece r, const BasePiece& b, const BaseEntities& entities, int levels, int rank,
                            std::vector<i32>* source) {
  std::vector<i64> global;
  std::vector<i32> owner;
  fine_node_ids(r, b, entities, levels, rank, global, owner);

  // 3. Keep the owned tets and every other tet touching an owned node (the ids and owners follow
  //    the kept nodes through their slots in the lattice points, which are not needed any more).
  const size_t nn = r.mesh.nodes.size();
  {
    std::vector<char> keep(r.mesh.tets.size());
#pragma omp parallel for schedule(static)
    for (i64 t = 0; t < i64(keep.size()); ++t) {
      const Tet& tet = r.mesh.tets[size_t(t)];
      keep[size_t(t)] = r.base[size_t(t)] < b.owned_tets || owner[size_t(tet[0])] == rank || owner[size_t(tet[1])] == rank ||
                        owner[size_t(tet[2])] == rank || owner[size_t(tet[3])] == rank;
    }
    for (size_t v = 0; v < nn; ++v) r.point[v].node[0] = i32(v);
    keep_tets(r, keep);
    std::vector<i64> kept_global(r.mesh.nodes.size());
    std::vector<i32> kept_owner(r.mesh.nodes.size());
    if (source) source->resize(r.mesh.nodes.size());
    for (size_t v = 0; v < r.mesh.nodes.size(); ++v) {
      kept_global[v] = global[size_t(r.point[v].node[0])];
      kept_owner[v] = owner[size_t(r.point[v].node[0])];
      if (source) (*source)[v] = r.point[v].node[0];
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
  if (source) {
    std::vector<i32> kept_source(kept_nodes);
    for (size_t k = 0; k < kept_nodes; ++k) kept_source[k] = (*source)[size_t(order[k])];
    *source = std::move(kept_source);
  }

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
  part.owned_tets = i32(std::count_if(r.base.begin(), r.base.end(), [&](i32 c) { return c < b.owned_tets; }));
  SS_REQUIRE(std::is_partitioned(r.base.begin(), r.base.end(), [&](i32 c) { return c < b.owned_tets; }),
             "partition: rank " << rank << "'s owned fine tets are not first");
  part.tet_global = std::move(r.tet_id);
  return piece;
}

// r's lattice weights, in units of 2^-from, in units of 2^-to (to <= from: every weight of a
// level-`to` node is a multiple of 2^(from - to)).
void coarser_lattice_units(RefiningPiece& r, int from, int to) {
  for (LatticePoint& p : r.point)
    for (int k = 0; k < p.size; ++k) p.weight[size_t(k)] >>= (from - to);
}

}  // namespace

RankPiece refine_base_piece(const BasePiece& b, int levels, int rank) {
  // 1. Refine, carrying each node's lattice point; 2–4. ids, owners, the cut and the local order.
  return cut_refined_piece(refine_base_levels(b, levels, rank), b, BaseEntities(b), levels, rank, nullptr);
}

PieceHierarchy refine_base_hierarchy(const BasePiece& b, int levels, int rank) {
  PieceHierarchy h;
  const BaseEntities entities(b);
  std::vector<i32> previous_local;  // the previous level's refining-piece index -> its local id (-1: cut)
  refine_base_levels(b, levels, rank, [&](RefiningPiece& r, int level) {
    std::vector<i32> source;
    RefiningPiece copy = level == levels ? std::move(r) : r;
    coarser_lattice_units(copy, levels, level);
    const std::vector<std::array<i32, 2>> parent = std::move(copy.parent);
    const size_t refining_nodes = copy.mesh.nodes.size();
    RankPiece piece = cut_refined_piece(std::move(copy), b, entities, level, rank, &source);
    if (level > 0) {
      LevelMap map;
      map.coarse_nodes = i32(h.levels.back().part.mesh.nodes.size());
      map.fine_nodes = i32(source.size());
      map.parents.resize(source.size());
      for (size_t k = 0; k < source.size(); ++k) {
        const std::array<i32, 2>& p = parent[size_t(source[k])];
        map.parents[k] = {previous_local[size_t(p[0])], previous_local[size_t(p[1])]};
      }
      h.maps.push_back(std::move(map));
    }
    previous_local.assign(refining_nodes, -1);
    for (size_t k = 0; k < source.size(); ++k) previous_local[size_t(source[k])] = i32(k);
    h.levels.push_back(std::move(piece));
  });
  return h;
}

std::vector<HaloLink> exchange_node_links(const RankPiece& piece, MPI_Comm comm) {
  const MeshPartition& part = piece.part;
  std::vector<EntityKey> keys(part.node_global.size());
  for (size_t i = 0; i < keys.size(); ++i) keys[i] = {part.node_global[i], -1, -1};
  return pair_halo_links(keys, piece.node_owner, std::vector<char>(keys.size(), 1), comm);
}

}  // namespace ss
