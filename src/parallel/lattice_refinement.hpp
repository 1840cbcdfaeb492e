#pragma once
// What both kinds of refined pieces share (refined_node_piece.hpp for heat's pieces of nodes,
// refined_entity_piece.hpp for flow's pieces of every entity kind): a base piece (base_piece.hpp)
// refined level by level with every fine node's lattice point carried along, and the fine nodes'
// global ids and owners.
//
// Fine ids without the fine mesh. Uniform refinement puts every fine node on the barycentric lattice
// of the base tets with denominator m = 2^levels: the node is Σ_k w_k x_k / m over the corners x_k
// of the smallest base entity E (node, edge, face or tet) it lies in, all w_k ≥ 1, Σ_k w_k = m.
// Its global id is E's block plus the index of (w_1, w_2, ...) — the weights listed by ascending
// global base node id — among the lattice points strictly inside such an entity:
//   base nodes [0, N₀); then m−1 ids per base edge, (m−1)(m−2)/2 per base face and
//   (m−1)(m−2)(m−3)/6 per base tet, each in rank 0's base topology order.
// Every rank holding a fine node numbers it the same way, and the ids fill [0, N_fine). Its owner is
// E's owner (the lowest part among the base tets around E), which every rank holding a tet around E
// is told. Fine tet t of base tet b is b·8^levels + (t's index among b's descendants, in
// refine_once's child order). Both sides of an interface make the same fine nodes with the same
// coordinates bit for bit: the same midpoints of the same corners, cut by refine_cut of the same
// corners in the same order (tests/parallel/test_partition.cpp, RefinedPartition, proves it on the
// project meshes).
#include <array>
#include <cstdint>
#include <functional>
#include <vector>

#include "parallel/base_piece.hpp"

namespace ss {

// A fine node as a lattice point of the base mesh: Σ_k weight[k]·x_k / 2^levels over the base
// corners node[0..size) (local base ids, ascending), every weight ≥ 1.
struct LatticePoint {
  std::array<std::int32_t, 4> node{};
  std::array<std::int32_t, 4> weight{};
  int size = 0;
};

// The smallest base entity containing several lattice points of one base tet: the union of their
// corners (ascending). False when it would exceed a tet.
bool lattice_support(const LatticePoint* points, int count, LatticePoint& support);

// Lattice points strictly inside a base entity with `corners` corners (2: edge, 3: face, 4: tet).
std::int64_t interior_points(int corners, std::int64_t m);

// The base entities of a piece by their corners (local ids ascending): edges, faces and tets, each
// with its global id, owner and (faces) whether it lies on the whole base mesh's boundary.
class BaseEntities {
public:
  explicit BaseEntities(const BasePiece& b);
  struct Entry {
    std::array<std::int32_t, 4> nodes;  // unused slots -1
    std::int64_t global;
    std::int32_t owner;
    bool boundary;
    std::uint32_t surfaces;  // BasePiece's edge_surfaces / face_surfaces bits (0 for tets)
  };
  // The entity with the corners of `p` (p.size 2, 3 or 4), or null when the piece has none.
  const Entry* find(const LatticePoint& p) const;

private:
  void add(int corners, std::array<std::int32_t, 4> nodes, std::int64_t global, std::int32_t owner, bool boundary,
           std::uint32_t surfaces);
  std::vector<Entry> by_size_[3];
};

// A piece being refined: the mesh, each node's lattice point, and per tet its global fine id (base
// tet g at level L: g·8^L + its index among g's descendants, in refine_once's child order) and the
// local base tet it descends from (owned when below the piece's owned_tets). After a refinement
// `parent` gives each node's parents in the previous level's piece: (v, v) for a node that was
// there, the edge's ends for a midpoint (the multigrid's transfers, refine_base_hierarchy).
struct RefiningPiece {
  TetMesh mesh;
  std::vector<LatticePoint> point;
  std::vector<std::int64_t> tet_id;
  std::vector<std::int32_t> base;
  std::vector<std::array<std::int32_t, 2>> parent;
};

// Keeps the tets marked in `keep` (order kept, periodic corner shifts along), their nodes (order
// kept, lattice points along) and the file triangles that are faces of kept tets.
void keep_tets(RefiningPiece& r, const std::vector<char>& keep);

// `b` refined `levels` times. With boundary surfaces a fine edge lies on one when the base edge or
// face holding its midpoint (the lattice point's support) does (BasePiece's edge_surfaces,
// face_surfaces): the edges a serial refinement finds on the surface's triangles, whether or not
// the piece holds those triangles; refine_once then projects as the serial refinement does.
// `b` refined `levels` times. After each level a layer tet is dropped unless one of its nodes lies
// on the rank's own base tets (all its base corners are corners of own tets): only such tets have
// descendants that touch a node of an own fine tet. `at_level(r, l)`, when given, sees the piece
// after level l = 0 .. levels (lattice weights in units of 2^-levels; it may take the last one).
RefiningPiece refine_base_levels(const BasePiece& b, int levels, int rank,
                                 const std::function<void(RefiningPiece&, int)>& at_level = {});

// Global id and owner of every node of `r` (a refinement of `b` by `levels`): its base entity's
// block, owner and lattice index (above).
void fine_node_ids(const RefiningPiece& r, const BasePiece& b, const BaseEntities& entities, int levels, int rank,
                   std::vector<std::int64_t>& global, std::vector<std::int32_t>& owner);

}  // namespace ss
