#include "postprocess/flow_forces.hpp"

#include <cmath>

#include <glm/geometric.hpp>

#include "cpu/cpu_backend.hpp"
#include "solver/cg.hpp"
#include "util/error.hpp"

namespace ss {

FlowForceMeter::FlowForceMeter(const LoadedMesh& mesh, const FlowProblem& problem)
    : mesh_(mesh), problem_(problem), kinds_(problem.boundary_kinds()),
      viscous_(build_curl_curl_viscous(mesh, kinds_)), boundary_trace_(transpose(viscous_.boundary_source)) {}

std::vector<double> FlowForceMeter::vorticity(const FlowState& state) const {
  const FlowBoundaryValues b = evaluate_boundary(problem_, mesh_, state.time);
  std::vector<double> rhs;
  viscous_.vorticity_source.multiply(state.flux, rhs);
  const std::vector<double> g = tangential_boundary_source(viscous_, mesh_, kinds_, b.bx, b.by, b.bz);
  // Edges held at ω = 0 (slip faces: inverse diagonal 0) are the identity rows of the system.
  const std::vector<double>& inverse_diagonal = viscous_.edge_inverse_diagonal;
  for (size_t e = 0; e < rhs.size(); ++e) rhs[e] = inverse_diagonal[e] > 0 ? rhs[e] + g[e] : 0.0;
  CpuBackend cpu;
  std::vector<double> omega(rhs.size(), 0.0), masked(rhs.size());
  const auto apply = [&](const std::vector<double>& x, std::vector<double>& y) {
    for (size_t e = 0; e < x.size(); ++e) masked[e] = inverse_diagonal[e] > 0 ? x[e] : 0.0;
    viscous_.edge_mass.multiply(masked, y);
    for (size_t e = 0; e < x.size(); ++e)
      if (inverse_diagonal[e] == 0) y[e] = x[e];
  };
  const auto jacobi = [&](const std::vector<double>& r, std::vector<double>& z) {
    for (size_t e = 0; e < r.size(); ++e) z[e] = inverse_diagonal[e] > 0 ? r[e] * inverse_diagonal[e] : r[e];
  };
  CgOptions options;
  options.tolerance = 1e-12;
  options.max_iterations = 2000;
  const CgResult result = preconditioned_conjugate_gradient(cpu, apply, rhs, omega, jacobi, options);
  SS_REQUIRE(result.converged, "forces: the vorticity solve stopped: " << result.stop_reason << " (relative residual "
                                                                       << result.relative_residual << ")");
  return omega;
}

std::vector<double> FlowForceMeter::traction(const FlowState& state) const {
  SS_REQUIRE(state.flux.size() == size_t(mesh_.topology.num_faces) &&
                 state.pressure.size() == size_t(mesh_.topology.num_cells),
             "forces: a flow state of another mesh");
  std::vector<double> traction;
  boundary_trace_.multiply(vorticity(state), traction);
  return traction;
}

std::vector<FlowForce> FlowForceMeter::forces(const FlowState& state) const {
  std::vector<FlowForce> out;
  if (problem_.forces.empty()) return out;
  const std::vector<double> t = traction(state);
  for (const FlowForceGroup& g : problem_.forces) out.push_back(force(state, t, g.group));
  return out;
}

FlowForce FlowForceMeter::force(const FlowState& state, std::int32_t group) const {
  return force(state, traction(state), group);
}

FlowForce FlowForceMeter::force(const FlowState& state, const std::vector<double>& traction, std::int32_t group) const {
  const Topology& topo = mesh_.topology;
  const Geometry& geo = mesh_.geometry;
  FlowForce force;
  for (size_t k = 0; k < topo.boundary_faces.size(); ++k) {
    const size_t f = size_t(topo.boundary_faces[k]);
    if (topo.face_groups[f] != group) continue;
    const glm::dvec3 n = geo.face_normals[f];  // outward: face_cells[f][0] is the fluid side
    force.pressure += geo.face_areas[f] * state.pressure[size_t(topo.face_cells[f][0])] * n;
    const glm::dvec3 omega_integral(traction[3 * k], traction[3 * k + 1], traction[3 * k + 2]);
    force.viscous += problem_.viscosity * glm::cross(n, omega_integral);
  }
  return force;
}

glm::dvec3 force_coefficients(const FlowForceGroup& g, const glm::dvec3& force) {
  SS_REQUIRE(g.has_coefficients(), "force coefficients of group '" << g.label << "' need a reference velocity and area");
  return 2.0 * force / (g.reference_velocity * g.reference_velocity * g.reference_area);
}

}  // namespace ss
