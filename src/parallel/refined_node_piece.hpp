#pragma once
// Partition, then refine (thesis §8.1): rank 0 partitions the base mesh (METIS) and sends each rank
// its base tets plus one layer; every rank refines them `levels` times itself, so no rank ever holds
// the whole refined mesh.
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
// corners in the same order (tests/parallel/test_partition.cpp, RefinedPartition, proves it on the project meshes).
//
// Rank q's fine piece has the layout of partition.hpp: the descendants of its base tets (owned tets)
// first, then every other fine tet touching a fine node q owns (ghost tets); owned nodes first, then
// ghosts by owner and global id. So the operator rows of owned nodes are exact on the piece alone.
#include <cstdint>
#include <vector>

#include <mpi.h>

#include "mesh/load_mesh.hpp"
#include "mesh/mesh_hierarchy.hpp"
#include "parallel/message.hpp"
#include "parallel/partition.hpp"

namespace ss {

// What rank 0 sends rank q: its base tets and the global ids and owners of every base entity on them.
struct BasePiece {
  // q's base tets, then every other base tet sharing a node with one of them; nodes in ascending
  // global id; the file's triangles that are faces of these tets, with the base mesh's group names.
  TetMesh mesh;
  std::int32_t owned_tets = 0;
  std::vector<std::int64_t> node_global, tet_global;
  std::vector<std::int32_t> node_owner, tet_owner;
  std::vector<std::int64_t> edge_global, face_global;  // per local tet: 6 (kTetEdgeNodes order), 4 (face k opposite corner k)
  std::vector<std::int32_t> edge_owner, face_owner;    // the same layout
  std::vector<char> face_boundary;                     // per face slot: on the whole base mesh's boundary
  std::int64_t base_nodes = 0, base_edges = 0, base_faces = 0, base_tets = 0;  // the whole base mesh's counts
};

// The piece as a message (message.hpp's transfer, both directions).
void transfer(Packer& p, const BasePiece& piece);
void transfer(Unpacker& u, BasePiece& piece);

// Rank 0's side: the owners of the base entities for a tet partition, and each rank's base piece.
// `base` needs every topology table (TopologyTables::all).
class BasePartition {
public:
  BasePartition(const LoadedMesh& base, std::vector<std::int32_t> tet_part, int parts);
  BasePiece piece(int q) const;

private:
  const LoadedMesh& base_;
  std::vector<std::int32_t> tet_part_;
  int parts_;
  std::vector<std::int32_t> node_owner_, edge_owner_, face_owner_;
  std::vector<std::int32_t> triangle_face_;  // the face of each file triangle
};

// Nodes of the whole mesh after `levels` refinements of the base mesh `piece` came from.
std::int64_t refined_node_count(const BasePiece& piece, int levels);

// Rank `rank`'s fine piece: `piece` refined `levels` times, the ghost layer cut to the tets around
// the nodes it owns (layout above). The halo links are left empty: exchange_node_links.
RankPiece refine_base_piece(const BasePiece& piece, int levels, int rank);

// Every level of the refinement as rank `rank`'s piece, for a multigrid over the pieces:
// levels[l] = refine_base_piece(b, l, rank) for l = 0 .. `levels` (made in one refinement), and
// maps[l]: level l -> l + 1 in local ids, each fine node's parents in the coarser piece, -1 where
// the coarser piece lacks one. The parents of a node the rank owns are always there (its coarse
// edge lies on an own tet), and so are those of every fine node whose parent the rank owns (its
// fine tets touch the owned node). The halo links are left empty: exchange_node_links per level.
struct PieceHierarchy {
  std::vector<RankPiece> levels;
  std::vector<LevelMap> maps;
};
PieceHierarchy refine_base_hierarchy(const BasePiece& b, int levels, int rank);

// The node halo links of this rank's fine piece (HaloLink): every rank asks each owner for the nodes
// it holds as ghosts, by global id (halo_pairing.hpp).
std::vector<HaloLink> exchange_node_links(const RankPiece& piece, MPI_Comm comm);

}  // namespace ss
