#include "physics/heat_multigrid.hpp"

#include "physics/heat_problem.hpp"

namespace ss {

GeometricLevels heat_geometric_levels(const HeatCase& heat_case, const MeshHierarchy& hierarchy) {
  GeometricLevels g;
  for (size_t l = 0; l + 1 < hierarchy.levels.size(); ++l) {
    const HeatProblem p = build_heat_problem(heat_case, hierarchy.levels[l]);
    g.operators.push_back(light_heat_operator(assemble_heat_system(hierarchy.levels[l], p)));
    g.fixed_nodes.push_back(p.dirichlet_nodes);
  }
  g.maps = hierarchy.maps;
  return g;
}

}  // namespace ss
