#pragma once
// The exact method's boundary over MPI ranks (physics/streamfunction_boundary.hpp). The boundary
// values of the edge streamfunction come from a tree of the whole boundary surface, and its
// harmonic basis from the whole surface's topology, so rank 0 builds both on its whole refined
// mesh (WholeStreamfunction) and each rank takes what falls on its piece's edges by global id:
// the fixed edges (the free-edge mask), the harmonic basis fields (non-zero on fixed edges only)
// and, whenever the prescribed fluxes change, the lift: the owned boundary faces' fluxes go to
// rank 0, which solves the tree and sends back the fixed edges' values. Only boundary-sized
// arrays travel. The preconditioner's node spaces are the whole mesh's on every rank
// (whole_node_spaces.hpp).
#include <cstdint>
#include <vector>

#include "mesh/load_mesh.hpp"
#include "parallel/entity_partition.hpp"
#include "physics/streamfunction_boundary.hpp"

namespace ss {

// Rank 0's boundary of the whole refined mesh and the global ids of that mesh's faces and edges.
struct WholeStreamfunction {
  StreamfunctionBoundary boundary;
  std::vector<std::int64_t> face_global, edge_global;
};

// This rank's StreamfunctionSetup on its piece (`local`: the piece's mesh, its faces and edges in
// `piece`'s order; `whole`: rank 0's, null on the others). Collective, and so is its lift; the
// completions use the piece's edge and node halos.
StreamfunctionSetup piece_streamfunction_setup(const WholeStreamfunction* whole, const EntityPiece& piece,
                                               const LoadedMesh& local);

}  // namespace ss
