#pragma once
// A rank's piece for operators over every entity kind (flow, thesis §8.3): nodes, cells, faces and
// edges each get owners and a halo from one ghost-layer description. refine_entity_piece
// (refined_entity_piece.hpp) makes such pieces; entity_owners is the ownership rule on a whole mesh.
//
// Rank q's piece: its METIS tets plus every tet sharing a node with one of them (the ghost layer),
// nodes and tets in ascending global id, so the piece's own topology (build_topology, no
// renumbering) orients every face and edge it shares with the whole mesh the same way (a face from
// its lower cell to its higher, an edge from its lower node to its higher). Owner of an entity: the
// lowest part among the tets around it (a cell: its part). An entity q owns touches one of q's tets,
// so every tet around it — and around each of its nodes — is local: one application of any mesh
// operator (G, D, C, R, interpolation, integration, convection, the viscous and pressure operators)
// is exact on q's owned entities when its input is right on every local entity, and a halo update
// of the output makes it right on the ghosts again.
// Cut faces — faces of a ghost tet whose other tet is not local — are boundary faces of the piece
// only: no owned entity's operator row reaches them, they receive no halo value (their local
// orientation may differ from the whole mesh's) and their boundary condition is a placeholder.
#include <cstdint>
#include <vector>

#include "mesh/load_mesh.hpp"
#include "parallel/partition.hpp"

namespace ss {

// One entity kind on one rank, in the piece's local order.
struct EntityHalo {
  std::vector<std::int64_t> global;  // global id of each local entity
  std::vector<char> owned;           // 1 where this rank owns the entity
  std::vector<HaloLink> links;       // ghosts receive their owner's value (cut faces none)
  std::int64_t owned_count() const;
};

struct EntityPiece {
  TetMesh mesh;  // local nodes and tets (ascending global id), no triangles
  EntityHalo nodes, cells, faces, edges;  // faces and edges in build_topology(mesh) order
  // Per boundary face of the piece (topology.boundary_faces order): 1 on a cut face.
  std::vector<char> cut;
};

// Owners of every entity kind of the whole mesh (topology with cell_edges and face_cells): the
// lowest part among the tets around it.
struct EntityOwners {
  std::vector<std::int32_t> node, face, edge;
};
EntityOwners entity_owners(const LoadedMesh& mesh, const std::vector<std::int32_t>& tet_part);

// Rank q's tets: its own and every tet sharing a node with one of them, ascending.
std::vector<std::int64_t> piece_tets(const TetMesh& mesh, const std::vector<std::int32_t>& tet_part, int q);

}  // namespace ss
