#pragma once
// Locality renumbering: nodes in reverse Cuthill–McKee order of the node graph (two nodes adjacent
// when they share a tet edge), so a node's neighbours have nearby ids (small matrix bandwidth,
// better cache and texture locality for gathers); then tets and boundary triangles ordered by their
// smallest new node id, so consecutive cells touch nearby nodes. Everything that refers to nodes or
// tets is permuted consistently: coordinates, tets, groups, boundary triangles and the file tags
// (so error messages still name the file's numbers). Groups, counts and volumes are unchanged.
#include <cstdint>
#include <vector>

#include "mesh/tet_mesh.hpp"

namespace ss {

// Bandwidth = max |i - j| over node-graph edges (i, j); profile = sum over nodes i of
// i - min(neighbour j <= i) (the envelope size of a symmetric matrix with that sparsity).
struct GraphBandwidth {
  std::int64_t bandwidth = 0;
  std::int64_t profile = 0;
};

struct RenumberReport {
  GraphBandwidth before, after;
  std::int32_t components = 0;  // connected components of the node graph
  double seconds = 0;
};

// The node graph's bandwidth and profile for the mesh's current numbering.
GraphBandwidth node_graph_bandwidth(const TetMesh& mesh);
// The same from a node CSR already built (Topology::node_offsets / node_neighbors).
GraphBandwidth node_graph_bandwidth(const std::vector<std::int32_t>& offsets, const std::vector<std::int32_t>& neighbors);

// Permutes the mesh in place as described above. Tets must have valid, distinct node ids
// (validate_and_orient_tets first). Deterministic: the same mesh always gives the same order.
RenumberReport renumber_for_locality(TetMesh& mesh);

// The reverse Cuthill–McKee permutation alone: new_id[old node] for the node graph of `mesh`.
std::vector<NodeId> reverse_cuthill_mckee(const TetMesh& mesh, std::int32_t* components = nullptr);

}  // namespace ss
