#pragma once
// Uniform refinement: every tet into 8, every boundary triangle into 4.
#include <array>
#include <cstdint>
#include <vector>

#include <glm/vec3.hpp>

#include "mesh/tet_mesh.hpp"
#include "mesh/topology.hpp"

namespace ss {

// One level: a new node at each edge midpoint (ids after the existing nodes, in edge order); each
// tet gives its four corner tets plus four from the inner octahedron, cut along its shortest
// diagonal (best shape of the three choices). Children are positively oriented when the parent is;
// volume and boundary groups are inherited. Applied `levels` times (tets x 8^levels).
TetMesh refine_uniform(const TetMesh& mesh, int levels = 1);

// Octahedron diagonals whose squared lengths are within this relative margin of the shortest count
// as tied; the first of them (01-23, 02-13, 03-12) is cut.
inline constexpr double kDiagonalTie = 1e-9;

// How refine_once cuts one tet, the only part of it that depends on coordinates: bits 0-1 the
// octahedron diagonal (0: 01-23, 1: 02-13, 2: 03-12), bit 2 + k set when child k has its nodes
// 2 and 3 swapped (negative volume otherwise). The GPU refinement (operators/gpu_refinement.hpp)
// takes one per coarse cell, so both make the same children.
std::int32_t refine_cut(const glm::dvec3 corners[4]);
// The corners of child k (0..7) of a tet cut as `cut` says, as slots: 0..3 the tet's corners, 4..9
// the midpoints of its local edges 01, 02, 03, 12, 13, 23.
void refined_child_slots(std::int32_t cut, int k, int slots[4]);

// Throws ss::Error, before any work, when `levels` refinements would give more than kMaxTets tets.
void require_refinable(const TetMesh& mesh, int levels);

// How refine_once numbers the fine nodes.
//   coarse_first: the coarse nodes keep their ids; node nn + e is the midpoint of edge e.
//   interleaved:  coarse node v, then the midpoints of the edges whose low node is v (ascending high
//                 node), then node v + 1, ...: fine ids follow the coarse order, so a mesh numbered
//                 for locality (RCM) refines into one numbered for locality without renumbering
//                 (neighbours of a fine node lie within ~(1 + edges per node) x the coarse bandwidth).
enum class RefineNumbering { coarse_first, interleaved };

// Fine id of each coarse-first id (coarse node v, then nn + e for edge e) under `numbering`.
std::vector<std::int32_t> refined_node_ids(const Topology& topo, RefineNumbering numbering);

// Per edge of `topo`, the mesh's boundary surfaces it lies on: bit k set when the edge is an edge of
// a boundary triangle of mesh.boundary_surfaces[k]'s group. Empty when the mesh declares none.
std::vector<std::uint32_t> surface_edge_masks(const TetMesh& mesh, const Topology& topo);

// The fine nodes' coordinates (coarse nodes, then midpoints 0.5 (a + b) in double), in `numbering`'s
// order: refine_once's nodes without its cells. The midpoint of an edge with surface bits set
// (`edge_surfaces`, surface_edge_masks' layout; empty: none) is then projected onto each of those
// surfaces in turn, in declaration order (project_onto).
std::vector<glm::dvec3> refined_node_coordinates(const TetMesh& mesh, const Topology& topo, RefineNumbering numbering);
std::vector<glm::dvec3> refined_node_coordinates(const TetMesh& mesh, const Topology& topo, RefineNumbering numbering,
                                                 const std::vector<std::uint32_t>& edge_surfaces);

// The four children of triangle (n0, n1, n2) as refine_once splits it, in fine ids (`id` from
// refined_node_ids): (n0, m01, m20), (m01, n1, m12), (m20, m12, n2), (m01, m12, m20), each oriented
// as the parent. Needs the topology's edge lookup.
std::array<std::array<std::int32_t, 3>, 4> refined_triangle_children(const Topology& topo, const std::vector<std::int32_t>& id,
                                                                    const std::array<std::int32_t, 3>& triangle);

// One level with the mesh's topology already built (any TopologyTables: it needs the edges and
// cell_edges only). Children of tet c are tets 8c .. 8c + 7, of triangle t triangles 4t .. 4t + 3.
// With boundary surfaces (mesh.boundary_surfaces), the midpoints of the edges on their groups are
// projected (refined_node_coordinates) and every child is checked afterwards: one whose volume is not
// positive throws ss::Error naming the coarse tet and the surface's group. The cuts (refine_cut)
// stay those of the straight midpoints.
TetMesh refine_once(const TetMesh& mesh, const Topology& topo, RefineNumbering numbering = RefineNumbering::coarse_first);
// The same with the edges' surface bits given (surface_edge_masks' layout): a piece of a partition
// knows them from the whole mesh (parallel/lattice_refinement.hpp), not from its own triangles.
TetMesh refine_once(const TetMesh& mesh, const Topology& topo, RefineNumbering numbering,
                    const std::vector<std::uint32_t>& edge_surfaces);

}  // namespace ss
