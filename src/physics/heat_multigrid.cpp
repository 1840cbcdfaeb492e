#include "physics/heat_multigrid.hpp"

#include "problems/heat_problem.hpp"

namespace ss {
namespace {

// Levels 0 .. count − 1 of the hierarchy as light operators with their fixed nodes.
GeometricLevels heat_levels(const HeatCase& heat_case, const MeshHierarchy& hierarchy, size_t count) {
  GeometricLevels g;
  for (size_t l = 0; l < count; ++l) {
    const HeatProblem p = build_heat_problem(heat_case, hierarchy.levels[l]);
    g.operators.push_back(light_heat_operator(assemble_heat_system(hierarchy.levels[l], p, HeatTables::operator_only)));
    g.fixed_nodes.push_back(p.dirichlet_nodes);
  }
  return g;
}

}  // namespace

GeometricLevels heat_geometric_levels(const HeatCase& heat_case, const MeshHierarchy& hierarchy) {
  GeometricLevels g = heat_levels(heat_case, hierarchy, hierarchy.levels.size() - 1);
  g.maps = hierarchy.maps;
  return g;
}

GeometricLevels heat_levels_below_gpu_finest(const HeatCase& heat_case, const MeshHierarchy& hierarchy,
                                             const Topology& refined_topology, RefineNumbering numbering) {
  GeometricLevels g = heat_levels(heat_case, hierarchy, hierarchy.levels.size());
  g.maps = hierarchy.maps;
  g.maps.push_back(refinement_map(refined_topology, numbering));
  return g;
}

}  // namespace ss
