#pragma once
// Node values where the boundary prescribes them (postprocess/flow_fields.hpp reconstructs the rest):
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
#include "problems/flow_problem.hpp"

namespace ss {

// Overwrites node_velocity[n] at every node of a velocity face with the prescribed value at time t.
void apply_prescribed_node_velocity(const LoadedMesh& mesh, const FlowProblem& problem, double t,
                                    std::vector<glm::dvec3>& node_velocity);

// The pressure at every boundary node from the cells around it by the linear least-squares fit
//   min_{a, g} Σ_c V_c (a + g·(x_c − x_n) − p_c)²,   node value a
// (second order where the mean of the cells, all on one side of the wall, lags by half a cell's
// pressure gradient: the DFG cylinder's front and back). Interior nodes keep `node_pressure`. A star
// whose fit is singular (a corner's few cells) widens to the cells around its cells' nodes; where
// that is singular too, the node keeps `node_pressure`.
void extrapolate_boundary_node_pressure(const LoadedMesh& mesh, const std::vector<double>& cell_pressure,
                                        std::vector<double>& node_pressure);

// Overwrites node_pressure[n] at every node of a pressure face with the prescribed value at time t.
void apply_prescribed_node_pressure(const LoadedMesh& mesh, const FlowProblem& problem, double t,
                                    std::vector<double>& node_pressure);

}  // namespace ss
