#pragma once
// Uniform refinement: every tet into 8, every boundary triangle into 4.
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

// One level with the mesh's topology already built (any TopologyTables: it needs the edges and
// cell_edges only). New node nn + e is the midpoint of edge e.
TetMesh refine_once(const TetMesh& mesh, const Topology& topo);

}  // namespace ss
