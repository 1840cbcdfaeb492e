#pragma once
// Partition, then refine, into pieces of nodes only (distributed heat, thesis §8.1): every rank
// refines its base piece (base_piece.hpp) `levels` times itself and numbers its fine nodes by the
// lattice (lattice_refinement.hpp), so no rank ever holds the whole refined mesh. Distributed flow's
// pieces of every entity kind are refined_entity_piece.hpp's.
//
// Rank q's fine piece has the layout of partition.hpp: the descendants of its base tets (owned tets)
// first, then every other fine tet touching a fine node q owns (ghost tets); owned nodes first, then
// ghosts by owner and global id. So the operator rows of owned nodes are exact on the piece alone.
#include <cstdint>
#include <vector>

#include <mpi.h>

#include "mesh/mesh_hierarchy.hpp"
#include "parallel/base_piece.hpp"
#include "parallel/partition.hpp"

namespace ss {

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
