#pragma once
// Partition, then refine (thesis §8.1), the base side both physics share: rank 0 partitions the base
// mesh (METIS) and sends each rank its base tets plus one layer, with the global ids and owners of
// every base entity on them (BasePiece); every rank then refines its piece itself, so no rank ever
// holds the whole refined mesh: into a piece of nodes (refined_node_piece.hpp, distributed heat) or
// of every entity kind (refined_entity_piece.hpp, distributed flow). How the fine entities are
// numbered without the fine mesh is lattice_refinement.hpp's.
#include <cstdint>
#include <vector>

#include "mesh/load_mesh.hpp"
#include "parallel/message.hpp"

namespace ss {

// What rank 0 sends rank q: its base tets and the global ids and owners of every base entity on them.
struct BasePiece {
  // q's base tets, then every other base tet sharing a node with one of them; nodes in ascending
  // global id; the file's triangles that are faces of these tets, with the base mesh's group names;
  // on a periodic mesh each tet's corner shifts and the offsets (tet_mesh.hpp).
  TetMesh mesh;
  std::int32_t owned_tets = 0;
  std::vector<std::int64_t> node_global, tet_global;
  std::vector<std::int32_t> node_owner, tet_owner;
  std::vector<std::int64_t> edge_global, face_global;  // per local tet: 6 (kTetEdgeNodes order), 4 (face k opposite corner k)
  std::vector<std::int32_t> edge_owner, face_owner;    // the same layout
  std::vector<char> face_boundary;                     // per face slot: on the whole base mesh's boundary
  // With boundary surfaces (mesh.boundary_surfaces, [[mesh.surface]]), per edge and face slot: bit k
  // set when the entity lies on a file triangle of surface k's group in the whole base mesh (a piece
  // may lack the triangle); empty without surfaces. Refinement projects the nodes inside them.
  std::vector<std::uint32_t> edge_surfaces, face_surfaces;
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
  std::vector<std::uint32_t> edge_surfaces_, face_surfaces_;  // per base edge, face (surface_edge_masks' bits)
};

// Nodes of the whole mesh after `levels` refinements of the base mesh `piece` came from.
std::int64_t refined_node_count(const BasePiece& piece, int levels);

}  // namespace ss
