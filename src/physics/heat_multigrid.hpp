#pragma once
// The geometric levels of a heat problem for the multigrid preconditioner: every mesh of the
// hierarchy below the finest with the case's materials and boundary groups applied to it (so
// each level's fixed nodes are its nodes on the same Dirichlet groups).
#include "mesh/mesh_hierarchy.hpp"
#include "multigrid/multigrid_setup.hpp"
#include "cases/heat_case.hpp"

namespace ss {

GeometricLevels heat_geometric_levels(const HeatCase& heat_case, const MeshHierarchy& hierarchy);

// The levels below a finest level K made on the GPU from hierarchy.finest() (level K − 1): every
// level of `hierarchy`, and the map K − 1 → K of the refinement of level K − 1 in `numbering` with
// `refined_topology`, the tables the GPU refines (its edges number level K's midpoint nodes; any
// TopologyTables of level K − 1's mesh).
GeometricLevels heat_levels_below_gpu_finest(const HeatCase& heat_case, const MeshHierarchy& hierarchy,
                                             const Topology& refined_topology,
                                             RefineNumbering numbering = RefineNumbering::interleaved);

}  // namespace ss
