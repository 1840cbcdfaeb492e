#pragma once
// Helpers for flow tests: problems built in code (group name -> condition) and solver runs on
// either backend.
#include <map>
#include <string>

#include "mesh/load_mesh.hpp"
#include "physics/flow_problem.hpp"
#include "physics/flow_solver.hpp"
#include "project_mesh.hpp"
#include "util/error.hpp"

namespace ss::test {

// Assigns conditions[name] to every boundary face of the surface group called `name`.
inline void assign_by_group(FlowProblem& p, const LoadedMesh& m, const std::map<std::string, FlowCondition>& by_name) {
  std::map<std::int32_t, std::int32_t> index_of_group;
  for (const auto& [name, condition] : by_name) {
    std::int32_t id = -1;
    for (const auto& [gid, gname] : m.mesh.surface_group_names)
      if (gname == name) id = gid;
    SS_REQUIRE(id >= 0, "test mesh has no group " << name);
    index_of_group[id] = std::int32_t(p.conditions.size());
    p.conditions.push_back(condition);
    if (p.conditions.back().label.empty()) p.conditions.back().label = name;
  }
  for (std::int32_t f : m.topology.boundary_faces) {
    auto it = index_of_group.find(m.topology.face_groups[size_t(f)]);
    SS_REQUIRE(it != index_of_group.end(), "test problem leaves a boundary face without a condition");
    p.boundary_condition.push_back(it->second);
  }
}

inline FlowCondition wall(VelocityFunction u = nullptr) {
  FlowCondition c;
  c.kind = FlowBoundaryKind::velocity;
  c.velocity = std::move(u);
  return c;
}
inline FlowCondition pressure_outlet(double p) {
  FlowCondition c;
  c.kind = FlowBoundaryKind::pressure;
  c.pressure = [p](const glm::dvec3&, double) { return p; };
  return c;
}

}  // namespace ss::test
