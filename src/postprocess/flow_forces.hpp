#pragma once
// The force a flow exerts on boundary groups (a cylinder, a wall), from a flow state. Per unit
// density: the pressure is kinematic (p/ρ), so multiply by ρ for newtons.
//
//   F = Σ_f A_f p_c n_f  +  ν Σ_f ∫_f n_f × ω dA
//
// over the group's boundary faces f with outward (out of the fluid) unit normal n_f: the pressure
// of the adjacent cell c (the wall-normal pressure gradient is O(ν) at a wall), and the wall shear
// ν ω × n_body = ν n_f × ω from the vorticity ω = curl u of the viscous operator's mixed form
// (operators/curl_curl_viscous.hpp: M_e ω = Cᵀ M_f U + g, edge (Nédélec) vorticity solved to 1e-12
// here): its tangential trace on f is Σ_{e ⊂ f} ω_e (∇_Γλ_high − ∇_Γλ_low)/3 · A_f, the same
// face integrals as the boundary source g. Slip and pressure faces carry no shear (ω × n = 0 and
// u × n = 0 there). Coefficients, with a reference velocity U and area A: c = 2F/(U²A).
#include <cstdint>
#include <vector>

#include <glm/vec3.hpp>

#include "mesh/load_mesh.hpp"
#include "operators/curl_curl_viscous.hpp"
#include "problems/flow_problem.hpp"
#include "physics/flow_state.hpp"

namespace ss {

struct FlowForce {
  glm::dvec3 pressure{0.0}, viscous{0.0};
  glm::dvec3 total() const { return pressure + viscous; }
};

class FlowForceMeter {
public:
  // Assembles the vorticity system once (host, double); `mesh` and `problem` must outlive it.
  FlowForceMeter(const LoadedMesh& mesh, const FlowProblem& problem);
  // The force on each of the problem's [[force]] groups (problem.forces order) in `state`.
  std::vector<FlowForce> forces(const FlowState& state) const;
  // The force on any surface group in `state` (boundary velocities at state.time).
  FlowForce force(const FlowState& state, std::int32_t group) const;
  // The edge vorticity ω of `state` (M_e ω = Cᵀ M_f U + g).
  std::vector<double> vorticity(const FlowState& state) const;

private:
  FlowForce force(const FlowState& state, const std::vector<double>& traction, std::int32_t group) const;
  std::vector<double> traction(const FlowState& state) const;

  const LoadedMesh& mesh_;
  const FlowProblem& problem_;
  std::vector<FlowBoundaryKind> kinds_;
  CurlCurlViscousData viscous_;
  SparseMatrix boundary_trace_;  // boundary_sourceᵀ: ω ↦ ∫_f ω_t dA per boundary face (x, y, z)
};

// 2 F / (U² A).
glm::dvec3 force_coefficients(const FlowForceGroup& g, const glm::dvec3& force);

}  // namespace ss
