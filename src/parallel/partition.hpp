#pragma once
// Partitioning a tetrahedral mesh for N ranks (thesis §8.1, §8.3), on rank 0.
//
// Tets: METIS k-way on the tet dual graph (METIS_PartMeshDual, tets adjacent through a face).
// Nodes: the owner of a node is the lowest rank whose METIS tets touch it (every node has exactly
// one owner; owner markers for reductions follow from it, thesis §8.2).
// Rank q's piece: its METIS tets ("owned tets", first) plus one ghost layer — every other tet that
// touches a node q owns. So the whole stencil of an owned node is local: row i of K (and of the
// lumped mass and load) for an owned node is exact when assembled from the piece alone. Local nodes:
// owned nodes first (ascending global id), then ghost nodes (nodes of local tets owned elsewhere,
// grouped by owner, ascending global id within a group).
// Halo: ghost nodes receive their value from their owner. For each neighbour rank r, `recv` lists
// q's local indices of the ghosts r owns and `send` lists q's local indices of the owned nodes r
// holds as ghosts, both in ascending global id, so r's send list to q matches q's recv list from r.
// Cells have a halo of their own from the same ghost layer (cell_links): a ghost tet receives its
// value from the rank whose METIS part it is. Both come from one rule, halo_links, for any entity.
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
  MeshPartition part;                   // local mesh (no boundary triangles), maps, owned counts
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

// Builds the rank pieces from a tet partition (see above). `build(q)` may be called for each rank
// in any order; the plan for all ranks is computed once in the constructor.
class PartitionPlan {
public:
  PartitionPlan(const TetMesh& mesh, std::vector<std::int32_t> tet_part, int parts);
  int parts() const { return parts_; }
  const std::vector<std::int32_t>& node_owner() const { return owner_; }
  const std::vector<std::int32_t>& tet_part() const { return tet_part_; }
  // Global ids of rank q's local nodes (owned first) and its number of owned nodes.
  const std::vector<std::int64_t>& node_global(int q) const { return node_global_[size_t(q)]; }
  std::int32_t owned_nodes(int q) const { return owned_nodes_[size_t(q)]; }
  // Rank q's piece (coordinates, tets in local ids, maps, halo links).
  RankPiece build(int q) const;
  // Rank q's halo links for values per tet (local tet order of build(q): owned, then ghosts).
  std::vector<HaloLink> cell_links(int q) const;

private:
  std::vector<std::int64_t> local_tets(int q, std::int32_t& owned) const;

  const TetMesh& mesh_;
  std::vector<std::int32_t> tet_part_;
  int parts_;
  std::vector<std::int32_t> owner_;
  std::vector<std::int32_t> node_tet_offsets_, node_tets_;
  std::vector<std::vector<std::int64_t>> node_global_;
  std::vector<std::int32_t> owned_nodes_;
};

}  // namespace ss
