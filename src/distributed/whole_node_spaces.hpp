#pragma once
// The auxiliary-space preconditioner's node spaces over MPI ranks (multigrid/auxiliary_space.hpp):
// every rank sends its owned entities' parts — the curl's rows of its owned faces, the gauge
// gradient's and Π's rows of its owned edges, the weights of its owned faces and nodes — to every
// rank, each builds the whole mesh's node spaces from them (whole_node_spaces, numbered by global
// id), and keeps the rows of G and Π of its own edges. The node-space V-cycles then run whole on
// every rank, on the sums of the ranks' shares (DistributedBackend::sum_over_ranks): the serial
// preconditioner, at the price of one round trip of the node vectors per application.
#include "multigrid/auxiliary_space_setup.hpp"
#include "parallel/entity_partition.hpp"

namespace ss {

// `parts` on the piece (its faces, edges and nodes in the halos' local order; right on owned
// entities). The result's laplacian, vector_space and viscous_vector_space are the whole mesh's;
// gradient and interpolation have the piece's edges as rows (its owned edges' rows of the whole
// matrices, ghost rows empty); gradient_nodes selects each active node's weight from the piece's
// nodes where this rank owns the node (so the ranks' selections sum to the whole W). Collective.
WholeNodeSpaces piece_node_spaces(const NodeSpaceParts& parts, const EntityHalo& faces, const EntityHalo& edges,
                                  const EntityHalo& nodes);

}  // namespace ss
