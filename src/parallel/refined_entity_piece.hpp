#pragma once
// Partition, then refine, into pieces of every entity kind (distributed flow, thesis §8.1 and §8.3):
// each rank refines its base piece (base_piece.hpp) itself and names its fine cells, faces and edges
// the way every other rank does, so no rank ever holds the whole refined mesh. Distributed heat's
// pieces of nodes only are refined_node_piece.hpp's.
//
// The piece has entity_partition.hpp's layout and guarantees: the descendants of the rank's own
// base tets and every fine tet sharing a node with one of them; nodes in ascending global id, tets
// in ascending global id, so build_topology orients every shared face (from its lower cell to its
// higher) and edge (from its lower node to its higher) alike on every rank.
//
// Fine ids (lattice_refinement.hpp's lattice, m = 2^levels): a node by the lattice, a tet by its base
// tet's block (b·8^levels + its index among b's descendants). A fine face or edge lies in one
// smallest base entity E — the union of its nodes' base corners — and takes E's block plus its rank,
// by its nodes' global ids, among the fine entities of its kind inside E:
//   faces: m² per base face, then 2m³ − 2m² per base tet;
//   edges: m per base edge, then 3m(m − 1)/2 per base face, then (m+1)(m+2)(m+3)/6 + m³ − 4m² − 1
//   per base tet (Euler's formula on the refined tet, less its edges on the tet's boundary).
// Owner of any fine entity: E's owner (the lowest part among the base tets around E), which is the
// lowest part among the fine tets around the entity, as entity_partition.hpp's rule says. The owner
// holds a base tet around E whole, so it ranks every entity of the block; the other ranks get the
// id with the halo. Cut faces (local boundary faces that do not lie on the base mesh's boundary)
// have no owner value and global id −1.
#include <mpi.h>

#include "parallel/base_piece.hpp"
#include "parallel/entity_partition.hpp"

namespace ss {

// Fine entity counts of the whole mesh `levels` refinements finer than the base mesh `piece` came from.
struct FineCounts {
  std::int64_t nodes = 0, cells = 0, faces = 0, edges = 0;
};
FineCounts refined_entity_counts(const BasePiece& piece, int levels);

// This rank's fine piece of every entity kind, its halo links paired with the other ranks by key
// (collective over `comm`; halo_pairing.hpp). The mesh keeps the file's triangles on it (refined),
// so the piece's boundary faces carry the file's groups.
EntityPiece refine_entity_piece(const BasePiece& piece, int levels, MPI_Comm comm);

}  // namespace ss
