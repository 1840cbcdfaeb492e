#include "postprocess/flow_node_values.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include <glm/geometric.hpp>
#include <glm/mat4x4.hpp>
#include <glm/matrix.hpp>

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

void extrapolate_boundary_node_pressure(const LoadedMesh& mesh, const std::vector<double>& cell_pressure,
                                        std::vector<double>& node_pressure) {
  const size_t nodes = mesh.mesh.nodes.size();
  SS_REQUIRE(node_pressure.size() == nodes && cell_pressure.size() == mesh.mesh.tets.size(),
             "node pressure of another mesh");
  std::vector<char> on_boundary(nodes, 0);
  for (std::int32_t f : mesh.topology.boundary_faces)
    for (std::int32_t node : mesh.topology.face_nodes[size_t(f)]) on_boundary[size_t(node)] = 1;
  std::vector<std::vector<std::int32_t>> star(nodes);  // the cells around each boundary node
  for (size_t c = 0; c < mesh.mesh.tets.size(); ++c)
    for (NodeId node : mesh.mesh.tets[c])
      if (on_boundary[size_t(node)]) star[size_t(node)].push_back(std::int32_t(c));

  // A cell of a fit and where that cell sees node n (across a periodic seam too).
  struct Seen {
    std::int32_t cell;
    glm::dvec3 node;
  };
  // a of the fit over `cells` around node n; false when the normal equations
  // Σ V_c q qᵀ [a; g] = Σ V_c q p_c, q = (1, (x_c − x_n)/s), are singular (s: the cells' reach).
  const auto fit = [&](const std::vector<Seen>& cells, double& a) {
    double reach = 0.0;
    for (const Seen& c : cells) reach = std::max(reach, glm::length(mesh.geometry.cell_centroids[size_t(c.cell)] - c.node));
    glm::dmat4 normal(0.0);
    glm::dvec4 rhs(0.0);
    for (const Seen& c : cells) {
      const glm::dvec3 d = (mesh.geometry.cell_centroids[size_t(c.cell)] - c.node) / reach;
      const glm::dvec4 q(1.0, d.x, d.y, d.z);
      const double v = mesh.geometry.cell_volumes[size_t(c.cell)];
      normal += v * glm::outerProduct(q, q);
      rhs += v * cell_pressure[size_t(c.cell)] * q;
    }
    const double scale = normal[0][0];
    if (!(std::fabs(glm::determinant(normal)) > 1e-8 * scale * scale * scale * scale)) return false;
    a = (glm::inverse(normal) * rhs)[0];
    return true;
  };
  for (size_t n = 0; n < nodes; ++n) {
    if (!on_boundary[n]) continue;
    std::vector<Seen> own;
    for (std::int32_t c : star[n]) own.push_back({c, node_position_in_tet(mesh.mesh, size_t(c), NodeId(n))});
    double a = 0.0;
    if (fit(own, a)) {
      node_pressure[n] = a;
      continue;
    }
    // Too few cells in too few directions (a corner): the cells around the star's other nodes too.
    // Cell c around node m of star cell s sees n moved by where it sees m less where s sees m.
    std::vector<Seen> wider;
    for (const Seen& s : own)
      for (NodeId m : mesh.mesh.tets[size_t(s.cell)])
        for (std::int32_t c : star[size_t(m)]) {
          const auto same = [c](const Seen& w) { return w.cell == c; };
          if (std::find_if(wider.begin(), wider.end(), same) != wider.end()) continue;
          const glm::dvec3 shift = node_position_in_tet(mesh.mesh, size_t(c), m) -
                                   node_position_in_tet(mesh.mesh, size_t(s.cell), m);
          wider.push_back({c, s.node + shift});
        }
    if (fit(wider, a)) node_pressure[n] = a;
  }
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
