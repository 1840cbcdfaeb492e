#pragma once
// Partitioning a tetrahedral mesh for N ranks (thesis §8.1, §8.3), on rank 0, and the halo plans
// both physics share.
//
// Tets: METIS k-way on the tet dual graph (METIS_PartMeshDual, tets adjacent through a face).
// Entities (nodes, cells, faces, edges): the owner is the lowest part among the tets around it
// (every entity has exactly one owner; owner markers for reductions follow, thesis §8.2).
// A rank's piece: its owned tets first, then one ghost layer (refined_node_piece.hpp for heat,
// entity_partition.hpp for flow, refined_entity_piece.hpp for flow refined on the ranks).
// Halo: a ghost receives its value from its owner. For each neighbour rank r, `recv` lists q's local
// indices of the ghosts r owns and `send` lists q's local indices of the owned entities r holds as
// ghosts, in matching order, so r's send list to q pairs with q's recv list from r entry by entry.
#include <cstdint>
#include <vector>

#include "mesh/tet_mesh.hpp"

namespace ss {

struct HaloLink {
  int rank = 0;                     // the neighbour
  std::vector<std::int32_t> send;   // local indices of owned nodes the neighbour needs
  std::vector<std::int32_t> recv;   // local indices of ghost nodes the neighbour owns
};

struct RankPiece {
  MeshPartition part;                   // local mesh, maps, owned counts
  std::vector<std::int32_t> node_owner; // per local node: its owner rank
  std::vector<HaloLink> links;          // neighbours, ascending rank
};

// Halo links of rank q for one entity kind (nodes, cells, faces, edges): local[r] lists rank r's
// local entities by global id (any order), receives[r][i] says whether r takes entity i's value
// from its owner (its ghosts; an owned entity never), and owner[g] is the rank owning global entity
// g. q receives each of its receiving ghosts from its owner, in q's local order; q sends rank r the
// entities q owns that r receives, in r's local order, so q's send list to r matches r's receive
// list from q entry by entry. Links are in ascending rank, none to q itself.
std::vector<HaloLink> halo_links(int q, const std::vector<std::vector<std::int64_t>>& local,
                                 const std::vector<std::vector<char>>& receives, const std::vector<std::int32_t>& owner);
// The same when each rank's owned entities come first (owned[r] of them) and every ghost receives.
std::vector<HaloLink> halo_links(int q, const std::vector<std::vector<std::int64_t>>& local,
                                 const std::vector<std::int32_t>& owned, const std::vector<std::int32_t>& owner);

// METIS k-way partition of the tets: one part (0..parts-1) per tet. parts = 1: all zeros.
// Throws ss::Error when METIS fails or leaves a part empty.
std::vector<std::int32_t> partition_tets(const TetMesh& mesh, int parts);

// Partition, then refine: METIS splits a coarse level of the mesh, the finer levels inherit it.
// The coarse level: the base mesh (`base_tets` tets) refined until it has kCoarseTetsPerPart tets
// per part, or `levels` times (the levels left to refine after it are `levels` minus this).
inline constexpr std::int64_t kCoarseTetsPerPart = 64;
int coarse_partition_levels(std::int64_t base_tets, int parts, int levels);
// The part of each tet of the mesh `levels` uniform refinements finer than the one `coarse_part`
// partitions: its ancestor's (refine_once numbers the children of tet c 8c .. 8c + 7).
std::vector<std::int32_t> inherit_partition(const std::vector<std::int32_t>& coarse_part, int levels);

}  // namespace ss
