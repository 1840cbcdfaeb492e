#pragma once
// Periodic boundaries: a pair of boundary groups whose nodes match under a translation (every node
// of the second group lies at a node of the first plus the pair's offset). make_periodic merges each
// node of the second group into its partner, so the mesh becomes a mesh of a torus: the pair's
// triangles are gone, their faces are interior faces between the tets on both sides, and every
// topological table (faces, edges, the node graph, refinement's midpoints, partitions, halos) follows
// without further work. Only positions need care: a tet corner that stood on a second group keeps
// its place as its node's position plus the offset (TetMesh::corner_shifts, corner_position()).
#include <cstdint>
#include <string>
#include <vector>

#include <glm/vec3.hpp>

#include "mesh/tet_mesh.hpp"

namespace ss {

struct PeriodicPair {
  std::string first, second;  // the boundary groups as written (a name or a number)
  glm::dvec3 offset{0.0};     // x(second) = x(first) + offset
  bool offset_given = true;   // false: the offset is the difference of the groups' node centroids
  std::string where;          // where it was declared ("case.toml:12"), for messages
};

inline constexpr int kMaxPeriodicPairs = 3;

// Merges the pairs' nodes as above (pairs applied together: a node on two second groups, as on an
// edge of a box periodic in two directions, ends on the node both chains reach). Throws one line
// naming both groups when a group is unknown, the groups hold different numbers of nodes, a node or
// a triangle of the second has no partner in the first at the offset (within 1e-6 of the groups'
// shortest edge), or the joined mesh would hold one node twice in a tet or two edges between the
// same nodes (fewer than three cells across a period).
// Call before validate_and_orient_tets; the mesh must not be periodic yet.
void make_periodic(TetMesh& mesh, const std::vector<PeriodicPair>& pairs);

// The edge from node a to node b of tet t as a vector (the corners' positions, so an edge across a
// periodic seam has its true length).
glm::dvec3 tet_edge_vector(const TetMesh& mesh, std::size_t t, int a, int b);

// A copy of a periodic mesh with the merged nodes split again wherever tets see them at different
// places (for outputs: VTU files and pictures): `unfolded.nodes` holds one point per distinct
// (node, shift) that a corner uses, `point_node[p]` the node each point shows. The input when the
// mesh is not periodic (point_node empty).
struct UnfoldedMesh {
  TetMesh mesh;
  std::vector<NodeId> point_node;
};
UnfoldedMesh unfold_periodic(const TetMesh& mesh);

// Values per node as values per point of an unfolded mesh.
template <class T>
std::vector<T> on_unfolded_points(const std::vector<T>& per_node, const std::vector<NodeId>& point_node) {
  std::vector<T> out(point_node.size());
  for (std::size_t p = 0; p < point_node.size(); ++p) out[p] = per_node[std::size_t(point_node[p])];
  return out;
}

}  // namespace ss
