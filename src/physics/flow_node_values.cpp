#include "physics/flow_node_values.hpp"

#include <cstdint>

#include <glm/geometric.hpp>

#include "util/error.hpp"

namespace ss {
namespace {

// Calls visit(node, condition index, condition) for each node of each boundary face of `kind`.
template <class Visit>
void for_prescribed_nodes(const LoadedMesh& mesh, const FlowProblem& problem, FlowBoundaryKind kind, Visit&& visit) {
  const Topology& topo = mesh.topology;
  SS_REQUIRE(problem.boundary_condition.size() == topo.boundary_faces.size(),
             "flow problem: " << problem.boundary_condition.size() << " boundary conditions for "
                              << topo.boundary_faces.size() << " boundary faces");
  for (size_t k = 0; k < topo.boundary_faces.size(); ++k) {
    const std::int32_t index = problem.boundary_condition[k];
    const FlowCondition& c = problem.conditions[size_t(index)];
    if (c.kind != kind) continue;
    for (std::int32_t node : topo.face_nodes[size_t(topo.boundary_faces[k])]) visit(size_t(node), index, c);
  }
}

}  // namespace

void apply_prescribed_node_velocity(const LoadedMesh& mesh, const FlowProblem& problem, double t,
                                    std::vector<glm::dvec3>& node_velocity) {
  SS_REQUIRE(node_velocity.size() == mesh.mesh.nodes.size(), "node velocity of another mesh");
  std::vector<std::int32_t> chosen(node_velocity.size(), -1);  // the winning condition per node
  std::vector<double> speed(node_velocity.size(), 0.0);
  for_prescribed_nodes(mesh, problem, FlowBoundaryKind::velocity,
                       [&](size_t n, std::int32_t index, const FlowCondition& c) {
                         if (chosen[n] == index) return;
                         const glm::dvec3 u = c.velocity ? c.velocity(glm::dvec3(mesh.mesh.nodes[n]), t) : glm::dvec3(0.0);
                         const double s = glm::length(u);
                         if (chosen[n] >= 0 && (s > speed[n] || (s == speed[n] && index > chosen[n]))) return;
                         chosen[n] = index, speed[n] = s, node_velocity[n] = u;
                       });
}

void apply_prescribed_node_pressure(const LoadedMesh& mesh, const FlowProblem& problem, double t,
                                    std::vector<double>& node_pressure) {
  SS_REQUIRE(node_pressure.size() == mesh.mesh.nodes.size(), "node pressure of another mesh");
  std::vector<std::int32_t> chosen(node_pressure.size(), -1);
  for_prescribed_nodes(mesh, problem, FlowBoundaryKind::pressure,
                       [&](size_t n, std::int32_t index, const FlowCondition& c) {
                         if (chosen[n] >= 0 && chosen[n] <= index) return;
                         chosen[n] = index;
                         node_pressure[n] = c.pressure ? c.pressure(glm::dvec3(mesh.mesh.nodes[n]), t) : 0.0;
                       });
}

}  // namespace ss
