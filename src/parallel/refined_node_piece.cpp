#include "parallel/refined_node_piece.hpp"

#include <algorithm>
#include <array>

#include "parallel/halo_pairing.hpp"
#include "parallel/lattice_refinement.hpp"
#include "util/error.hpp"

namespace ss {

namespace {

using i32 = std::int32_t;
using i64 = std::int64_t;

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
