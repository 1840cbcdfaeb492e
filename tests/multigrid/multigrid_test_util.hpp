#pragma once
// Shared by the multigrid tests: a steady heat problem on a mesh hierarchy (k = 1, the first two
// surface groups by id held at T = 0 and T = 1, as `bench cg` does by default).
#include <algorithm>
#include <string>

#include "mesh/mesh_hierarchy.hpp"
#include "multigrid/multigrid_setup.hpp"
#include "cases/heat_case.hpp"
#include "physics/heat_multigrid.hpp"
#include "problems/heat_problem.hpp"

namespace ss::test {

inline std::string mesh_path(const std::string& file) { return std::string(SS_SOURCE_DIR) + "/meshes/" + file; }

inline HeatCase two_ends_case(const LoadedMesh& mesh) {
  HeatCase c;
  c.path = "test";
  c.material = Material{};
  std::vector<std::int32_t> groups;
  for (std::int32_t f : mesh.topology.boundary_faces) groups.push_back(mesh.topology.face_groups[size_t(f)]);
  std::sort(groups.begin(), groups.end());
  groups.erase(std::unique(groups.begin(), groups.end()), groups.end());
  groups.erase(std::remove(groups.begin(), groups.end(), 0), groups.end());
  for (int k = 0; k < 2; ++k) {
    BoundaryCondition bc;
    bc.group = std::to_string(groups.at(size_t(k)));
    bc.type = BoundaryCondition::Type::dirichlet;
    bc.value = double(k);
    c.boundaries.push_back(bc);
  }
  return c;
}

struct HierarchyProblem {
  MeshHierarchy hierarchy;
  HeatCase heat_case;
  HeatProblem problem;           // on the finest level
  HeatOperatorData data;         // finest operator
  GeometricLevels geometric;     // the levels below
};

inline HierarchyProblem make_hierarchy_problem(const std::string& file, int refine) {
  HierarchyProblem h;
  h.hierarchy = load_mesh_hierarchy(mesh_path(file), LoadOptions{refine});
  h.heat_case = two_ends_case(h.hierarchy.finest());
  h.problem = build_heat_problem(h.heat_case, h.hierarchy.finest());
  h.data = light_heat_operator(assemble_heat_system(h.hierarchy.finest(), h.problem));
  h.geometric = heat_geometric_levels(h.heat_case, h.hierarchy);
  return h;
}

}  // namespace ss::test
