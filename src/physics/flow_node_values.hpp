#pragma once
// Node values where the boundary prescribes them (physics/flow_fields.hpp reconstructs the rest):
// a node of a boundary face with a prescribed velocity (wall, moving wall, inlet) reads that
// velocity, evaluated at the node; a node of an outlet face reads the outlet pressure there.
//
// Where a node touches faces of several velocity conditions, the value of the smallest magnitude
// wins (a wall at rest wins over a moving lid or an inlet at their shared edge, as the no-slip
// condition holds there), equal magnitudes the condition declared first. A node of several outlet
// conditions reads the one declared first. Slip faces prescribe nothing at the node.
#include <vector>

#include <glm/vec3.hpp>

#include "mesh/load_mesh.hpp"
#include "physics/flow_problem.hpp"

namespace ss {

// Overwrites node_velocity[n] at every node of a velocity face with the prescribed value at time t.
void apply_prescribed_node_velocity(const LoadedMesh& mesh, const FlowProblem& problem, double t,
                                    std::vector<glm::dvec3>& node_velocity);

// Overwrites node_pressure[n] at every node of a pressure face with the prescribed value at time t.
void apply_prescribed_node_pressure(const LoadedMesh& mesh, const FlowProblem& problem, double t,
                                    std::vector<double>& node_pressure);

}  // namespace ss
