#include "problems/flow_problem.hpp"

#include <glm/geometric.hpp>

#include "util/error.hpp"

namespace ss {

std::vector<FlowBoundaryKind> FlowProblem::boundary_kinds() const {
  std::vector<FlowBoundaryKind> kinds(boundary_condition.size());
  for (size_t k = 0; k < kinds.size(); ++k) kinds[k] = conditions[size_t(boundary_condition[k])].kind;
  return kinds;
}

FlowOperatorData flow_operator_data(const MeshOperatorTables& tables, const FlowProblem& problem, double min_length) {
  FlowOperatorData data = build_flow_operator_data(tables, problem.boundary_kinds());
  if (problem.steady.enabled && problem.steady.local_time_steps) use_local_pseudo_time_steps(data, tables, min_length);
  return data;
}

bool FlowProblem::time_dependent() const {
  for (const FlowCondition& c : conditions)
    if (c.time_dependent) return true;
  return false;
}

StreamfunctionPreconditioner FlowProblem::resolved_streamfunction_preconditioner() const {
  using P = StreamfunctionPreconditioner;
  const char* why_not = !streamfunction_gauge ? "it needs gauge = \"grad_div\"" : nullptr;
  if (streamfunction_preconditioner == P::ams)
    SS_REQUIRE(!why_not, "[solver.streamfunction] preconditioner = \"ams\" does not apply here: " << why_not);
  if (streamfunction_preconditioner != P::automatic) return streamfunction_preconditioner;
  return why_not ? P::jacobi : P::ams;
}

MomentumSystem FlowProblem::resolved_momentum_system() const {
  const char* why_not = method == FlowMethod::exact           ? "the exact method solves for the streamfunction"
                        : viscous != ViscousScheme::curl_curl ? "it needs viscous = \"curl_curl\""
                        : implicit_convection ? "implicit convection makes the momentum system nonsymmetric"
                                              : nullptr;
  if (momentum_system == MomentumSystem::vorticity)
    SS_REQUIRE(!why_not, "[solver.momentum] system = \"vorticity\" does not apply here: " << why_not);
  if (momentum_system != MomentumSystem::automatic) return momentum_system;
  return why_not ? MomentumSystem::flux : MomentumSystem::vorticity;
}

namespace {

// ∫_f u·n dA with the three edge midpoints (weights A/3): exact for quadratic u.
double face_flux(const LoadedMesh& mesh, std::size_t f, const VelocityFunction& u, double t) {
  const auto& nodes = mesh.topology.face_nodes[f];
  const size_t c = size_t(mesh.topology.face_cells[f][0]);  // the face where its first cell sees it (periodic meshes)
  const glm::dvec3 p0 = node_position_in_tet(mesh.mesh, c, nodes[0]), p1 = node_position_in_tet(mesh.mesh, c, nodes[1]),
                   p2 = node_position_in_tet(mesh.mesh, c, nodes[2]);
  const glm::dvec3 mean = (u(0.5 * (p0 + p1), t) + u(0.5 * (p1 + p2), t) + u(0.5 * (p2 + p0), t)) / 3.0;
  return mesh.geometry.face_areas[f] * glm::dot(mean, mesh.geometry.face_normals[f]);
}

}  // namespace

std::vector<double> face_fluxes(const LoadedMesh& mesh, const VelocityFunction& u, double t) {
  std::vector<double> flux(size_t(mesh.topology.num_faces), 0.0);
  if (!u) return flux;
  for (size_t f = 0; f < flux.size(); ++f) flux[f] = face_flux(mesh, f, u, t);
  return flux;
}

FlowBoundaryValues evaluate_boundary(const FlowProblem& problem, const LoadedMesh& mesh, double t) {
  const auto& boundary = mesh.topology.boundary_faces;
  SS_REQUIRE(problem.boundary_condition.size() == boundary.size(),
             "flow problem: " << problem.boundary_condition.size() << " boundary conditions for " << boundary.size()
                              << " boundary faces");
  const size_t nb = boundary.size();
  FlowBoundaryValues v;
  v.bx.assign(nb, 0.0), v.by.assign(nb, 0.0), v.bz.assign(nb, 0.0), v.pressure.assign(nb, 0.0);
  v.flux.assign(size_t(mesh.topology.num_faces), 0.0);
  for (size_t k = 0; k < nb; ++k) {
    const FlowCondition& c = problem.conditions[size_t(problem.boundary_condition[k])];
    const size_t f = size_t(boundary[k]);
    const glm::dvec3 xf = mesh.geometry.face_centroids[f];
    if (c.kind == FlowBoundaryKind::velocity && c.velocity) {
      const glm::dvec3 u = c.velocity(xf, t);
      v.bx[k] = u.x, v.by[k] = u.y, v.bz[k] = u.z;
      v.flux[f] = face_flux(mesh, f, c.velocity, t);
    } else if (c.kind == FlowBoundaryKind::pressure && c.pressure) {
      v.pressure[k] = c.pressure(xf, t);
    }
  }
  return v;
}

}  // namespace ss
