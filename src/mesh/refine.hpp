#pragma once
// Uniform refinement: every tet into 8, every boundary triangle into 4.
#include <cstdint>
#include <vector>

#include "mesh/tet_mesh.hpp"
#include "mesh/topology.hpp"

namespace ss {

// One level: a new node at each edge midpoint (ids after the existing nodes, in edge order); each
// tet gives its four corner tets plus four from the inner octahedron, cut along its shortest
// diagonal (best shape of the three choices). Children are positively oriented when the parent is;
// volume and boundary groups are inherited. Applied `levels` times (tets x 8^levels).
TetMesh refine_uniform(const TetMesh& mesh, int levels = 1);

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

// One level with the mesh's topology already built (any TopologyTables: it needs the edges and
// cell_edges only). Children of tet c are tets 8c .. 8c + 7, of triangle t triangles 4t .. 4t + 3.
TetMesh refine_once(const TetMesh& mesh, const Topology& topo, RefineNumbering numbering = RefineNumbering::coarse_first);

}  // namespace ss
