#pragma once
// The temperature of a flow case in numbers (host side, double): [heat], the thermal conditions of
// the [[boundary]] entries and [buoyancy] on a mesh. The conduction part is the heat command's own
// problem (build_heat_problem of the equivalent heat case: one material k, ρc, S; temperature
// groups fixed, heat_flux groups loaded, the rest adiabatic), so a flow at rest conducts exactly as
// `streamsolve heat` does.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <glm/vec3.hpp>

#include "mesh/load_mesh.hpp"
#include "mesh/mesh_groups.hpp"
#include "operators/sparse_matrix.hpp"
#include "cases/flow_case.hpp"
#include "problems/flow_problem.hpp"
#include "cases/heat_case.hpp"
#include "problems/heat_problem.hpp"

namespace ss {

// A boundary group with a thermal condition: its heat into the fluid is reported.
struct FlowHeatGroup {
  std::int32_t group = 0;
  std::string label;          // the group as written in the case
  bool fixed_temperature = true;  // temperature (else heat_flux)
  Expression heat_flux = 0.0;     // heat_flux: q(x, y, z)
};

struct FlowBuoyancy {
  glm::dvec3 gravity{0.0};
  double expansion = 0, reference_temperature = 0;
};

struct FlowHeatProblem {
  HeatProblem conduction;     // k per cell, b per node (source, heat fluxes), fixed nodes, T⁰ (in `initial`)
  double conductivity = 1.0, heat_capacity = 1.0;
  double theta = 1.0;         // the flow's [scheme] theta
  bool implicit_advection = false;  // steady mode: the advection at the new level (flow_temperature.hpp)
  bool limited_advection = false;   // [heat] advection = "limited" (operators/heat_advection.hpp)
  FlowLinearSolver solver;    // [solver.temperature]
  std::vector<FlowHeatGroup> groups;
  double reference_length = 0, reference_temperature_difference = 0;  // > 0: Nusselt numbers
  std::optional<FlowBuoyancy> buoyancy;
};

// The heat case equivalent to the flow case's temperature (no [time]: the flow's steps drive it).
HeatCase heat_case_of(const FlowCase& flow_case);

// Resolves the thermal groups against the mesh (an unknown group: the heat problem's error, naming
// the case file line). Requires flow_case.heat. On an MPI rank's piece, `whole` lists the whole
// mesh's groups (the piece may lack some; build_heat_problem): the values are exact on its owned nodes.
FlowHeatProblem build_flow_heat_problem(const FlowCase& flow_case, const LoadedMesh& mesh,
                                        const PresentGroups* whole = nullptr);

// The node → cell mean (T_c = ¼ Σ T_n over the cell's nodes) as a sparse matrix (cells × nodes).
SparseMatrix node_to_cell_mean(const LoadedMesh& mesh);

}  // namespace ss
