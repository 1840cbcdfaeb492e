#pragma once
// Connectivity of a tetrahedral mesh (thesis ch. 5.1): unique faces and edges and the tables that
// link cells, faces, edges and nodes. Every table is a flat int32 array (fixed-width rows or CSR) so
// the GPU backend can upload it as an integer texture unchanged.
//
// Requires positively oriented tets (det(v1-v0, v2-v0, v3-v0) > 0); load_mesh() reorients first.
#include <array>
#include <cstdint>
#include <vector>

#include "mesh/tet_mesh.hpp"

namespace ss {

// Local face k of a tet is opposite its local node k; these node orders give outward normals
// (n = (p1 - p0) x (p2 - p0)) for a positively oriented tet.
inline constexpr int kTetFaceNodes[4][3] = {{1, 2, 3}, {0, 3, 2}, {0, 1, 3}, {0, 2, 1}};
// Local edges of a tet, from its first to its second local node.
inline constexpr int kTetEdgeNodes[6][2] = {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}};

// Which tables build_topology makes: only what the physics needs (a full set costs ~200 bytes per
// tet, the node graph with boundary faces ~60).
enum class TopologyTables {
  edges,     // edges, cell_edges and the node CSR (what refinement needs); no faces, no face checks
  boundary,  // + the face rows of the boundary and of every triangle the file lists (interior ones
             //   included), with face_cells and face_groups: node-based heat, mesh-info, convert.
             //   No cell_faces, face_edges, edge_faces. Faces are still checked (> 2 tets, overlap).
  all,       // every table (flow, the mesh operators)
};

// The most tets the tables handle: the 6 edge occurrences of every tet are counted and indexed with
// 32-bit signed ids (cell_edges has 6 entries per tet); a (tet, local face, orientation) code takes
// 32 unsigned bits. 357,913,941 tets: crankshaft refined 6 times (334M) fits.
inline constexpr std::int64_t kMaxTets = ((std::int64_t(1) << 31) - 1) / 6;

struct Topology {
  TopologyTables tables = TopologyTables::all;
  std::int32_t num_nodes = 0;
  std::int32_t num_cells = 0;
  std::int32_t num_faces = 0;  // face rows in the tables below (all faces only with TopologyTables::all)
  std::int32_t num_edges = 0;
  std::int64_t mesh_faces = 0;     // faces of the mesh, interior and boundary (0 with TopologyTables::edges)
  std::int64_t mesh_boundary_faces = 0;

  // Faces. Node order is chosen so n = (p1 - p0) x (p2 - p0) points from face_cells[f][0] to
  // face_cells[f][1], i.e. outward on the boundary where face_cells[f][1] == -1.
  std::vector<std::array<std::int32_t, 3>> face_nodes;
  std::vector<std::array<std::int32_t, 2>> face_cells;
  // Physical group of each face: the group of the file's triangle on it; boundary faces the file
  // does not list (or lists with group 0) get `unassigned_group`; other interior faces 0.
  std::vector<std::int32_t> face_groups;
  // Edges of face f: (p0,p1), (p1,p2), (p2,p0); sign +1 when the edge's low->high direction runs
  // along that cycle, -1 otherwise.
  std::vector<std::array<std::int32_t, 3>> face_edges;
  std::vector<std::array<std::int32_t, 3>> face_edge_signs;
  std::vector<std::int32_t> boundary_faces;  // ids of faces with face_cells[f][1] == -1, ascending

  // Edges, oriented from the lower node id to the higher.
  std::vector<std::array<std::int32_t, 2>> edge_nodes;
  std::vector<std::int32_t> edge_face_offsets;  // CSR, num_edges + 1 entries
  std::vector<std::int32_t> edge_faces;         // faces around each edge, ascending

  // Cells. cell_faces[c][k] is the face opposite local node k; sign +1 if its normal points out of c.
  std::vector<std::array<std::int32_t, 4>> cell_faces;
  std::vector<std::array<std::int32_t, 4>> cell_face_signs;
  std::vector<std::array<std::int32_t, 6>> cell_edges;  // in kTetEdgeNodes order

  // Nodes: CSR over neighbours, ascending; node_edges[k] is the edge joining the node to
  // node_neighbors[k].
  std::vector<std::int32_t> node_offsets;  // num_nodes + 1 entries
  std::vector<std::int32_t> node_neighbors;
  std::vector<std::int32_t> node_edges;

  // Lookup helpers: faces whose smallest node is n are ids [face_offsets_by_min_node[n], ...[n+1]);
  // edges whose low node is n are ids [edge_offsets_by_low_node[n], ...[n+1]), sorted by high node.
  std::vector<std::int32_t> face_offsets_by_min_node;
  std::vector<std::int32_t> edge_offsets_by_low_node;

  std::int32_t unassigned_group = 0;  // fresh id for unlisted boundary faces; 0 if none needed
  std::int32_t unassigned_faces = 0;  // how many boundary faces got it

  // Edge id joining a and b (any order), or -1.
  std::int32_t find_edge(std::int32_t a, std::int32_t b) const;
  // Face id with nodes {a, b, c} (any order), or -1.
  std::int32_t find_face(std::int32_t a, std::int32_t b, std::int32_t c) const;
};

// Builds the tables in O(n) (counting sort on the smallest node, then tiny per-node sorts), in
// parallel (OpenMP) with the same result for any number of threads.
// Throws ss::Error naming the entity by the file's tags (TetMesh::node_tags/tet_tags) for: a node id out of range or repeated in a tet, a face shared by more than two tets, two tets on the same
// side of a face (overlap), a file triangle that is no face of any tet.
Topology build_topology(const TetMesh& mesh, TopologyTables tables = TopologyTables::all);

// One more than the largest surface group id in use (names or triangles), used for the
// `unassigned` boundary group; the smallest free positive id when the largest is 2^31 - 1.
// Volume group ids are a separate name space and do not count.
std::int32_t fresh_group_id(const TetMesh& mesh);

}  // namespace ss
