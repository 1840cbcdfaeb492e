#pragma once
// What a flow state looks like to a user (host side, double): the fields the flow command writes
// to VTU and draws, computed from face fluxes and cell pressures with the CPU reference operators.
//
//   cell velocity   u_c = (I U)_c, the reconstruction of eq. 7.5
//   node velocity   volume-weighted mean of u_c over the tets around the node; at a node of a
//                   velocity face (wall, moving wall, inlet) the prescribed velocity there
//   node pressure   volume-weighted mean of the cell pressures around the node; at a node of an
//                   outlet face the prescribed pressure there (postprocess/flow_node_values.hpp: which
//                   condition wins where several meet)
//   divergence      (D U)_c / V_c
//   vorticity       ω_c = (1/V_c) Σ_f A_f n_f,out × u_f (Gauss), u_f = ½(u_c + u_nb) inside, the wall
//                   or inlet velocity on velocity faces, u_c on outlet and slip faces
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <glm/vec3.hpp>

#include "mesh/load_mesh.hpp"
#include "mesh/vtu.hpp"
#include "operators/mesh_operators.hpp"
#include "problems/flow_problem.hpp"
#include "physics/flow_state.hpp"

namespace ss {

struct FlowFields {
  std::vector<glm::dvec3> cell_velocity, node_velocity, vorticity;
  std::vector<double> pressure, divergence;  // per cell
  std::vector<double> node_pressure;
  std::vector<double> temperature, node_temperature;  // a [heat] run: T per cell (mean of its nodes) and per node
};

// A rank's piece under MPI: makes one value per local cell (`cells`) or node (`nodes`) right on the
// ghost entries, from their owners (a halo update).
struct FlowFieldGhosts {
  std::function<void(std::vector<double>&)> cells, nodes;
};

// `ops` are CPU operators on `mesh`; the boundary velocities are the problem's at state.time.
// With `ghosts` (a rank's piece, whose state is right on every entity but the cut faces), the cell
// velocity is made right on the ghost cells before the vorticity and the node averages use it, and
// the node fields on the ghost nodes after them: every field is then right on the owned cells and
// on every node of an owned cell (the ghost layer holds every tet around an owned node).
FlowFields compute_flow_fields(CpuMeshOperators& ops, const LoadedMesh& mesh, const FlowProblem& problem,
                               const FlowState& state, const FlowFieldGhosts* ghosts = nullptr);

// Writes `path` (atomically): cell data velocity, pressure, divergence, vorticity; point data
// velocity and (where the fields have it) pressure; temperature (cell and point) in a [heat] run. A rank's piece under MPI (`rank` >= 0) has the Int32 cell array `rank` too.
void write_flow_vtu(const std::string& path, const TetMesh& mesh, FlowFields fields, int rank = -1);
// The .pvtu over pieces write_flow_vtu wrote with `rank` (their file names as listed).
void write_flow_pvtu(const std::string& path, const std::vector<std::string>& pieces);

// The fields of the cells `cells` (in that order) and every node.
FlowFields select_cells(const FlowFields& fields, const std::vector<std::int32_t>& cells);

// |v| of each vector.
std::vector<double> magnitudes(const std::vector<glm::dvec3>& v);

// Two runs of one problem side by side: max cell |u_a − u_b| over max |u_a|, and max |p_a − p_b|
// over the range of p_a (absolute values where the scale is 0).
struct FlowDifference {
  double max_velocity_diff = 0, max_pressure_diff = 0;
  double max_speed = 0, pressure_range = 0;
};
FlowDifference compare_flow_fields(const FlowFields& a, const FlowFields& b);

// The cell velocity against a known solution u at time t, sampled at the cell centroids x_c:
//   l2  = sqrt(Σ_c V_c |u_c − u(x_c)|²) / sqrt(Σ_c V_c |u(x_c)|²)
//   max = max_c |u_c − u(x_c)| / max_c |u(x_c)|
struct FlowExactError {
  double time = 0, l2 = 0, max = 0;
};
FlowExactError velocity_error(const LoadedMesh& mesh, const FlowFields& fields, const VelocityFunction& exact,
                              double t);

// The sums and maxima velocity_error is made of, over the cells `cells` only (an MPI rank's owned
// cells; the ranks add the sums and take the maxima), and the error they give.
struct FlowExactSums {
  double error2 = 0, norm2 = 0, max_error = 0, max_speed = 0;  // Σ V|e|², Σ V|u|², max |e|, max |u|
};
FlowExactSums velocity_error_sums(const LoadedMesh& mesh, const FlowFields& fields, const VelocityFunction& exact,
                                  double t, const std::vector<std::int32_t>& cells);
FlowExactError velocity_error(const FlowExactSums& sums, double t);

// What flow.json says of the final fields: the max cell speed, the cell pressure range and, with a
// known solution, the velocity error.
struct FlowFieldSummary {
  double max_speed = 0, pressure_range = 0;
  std::optional<FlowExactError> exact;
};

}  // namespace ss
