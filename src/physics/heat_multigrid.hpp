#pragma once
// The geometric levels of a heat problem for the multigrid preconditioner: every mesh of the
// hierarchy below the finest with the case's materials and boundary groups applied to it (so
// each level's fixed nodes are its nodes on the same Dirichlet groups).
#include "mesh/mesh_hierarchy.hpp"
#include "multigrid/multigrid_setup.hpp"
#include "physics/heat_case.hpp"

namespace ss {

GeometricLevels heat_geometric_levels(const HeatCase& heat_case, const MeshHierarchy& hierarchy);

}  // namespace ss
