#include "problems/flow_heat_problem.hpp"

#include "mesh/mesh_groups.hpp"
#include "util/error.hpp"

namespace ss {

HeatCase heat_case_of(const FlowCase& c) {
  SS_REQUIRE(c.heat, c.path << ": the case has no [heat] table");
  HeatCase h;
  h.path = c.path;
  h.mesh_file = c.mesh_file;
  h.refine = c.refine;
  h.surfaces = c.surfaces;
  Material m;
  m.conductivity = c.heat->conductivity;
  m.heat_capacity = c.heat->heat_capacity;
  m.source = c.heat->source;
  m.line = c.heat->line;
  h.material = m;
  for (const FlowBoundary& b : c.boundaries) {
    if (!b.temperature && !b.heat_flux) continue;
    BoundaryCondition bc;
    bc.group = b.group;
    bc.type = b.temperature ? BoundaryCondition::Type::dirichlet : BoundaryCondition::Type::neumann;
    bc.value = b.temperature ? *b.temperature : *b.heat_flux;
    bc.line = b.line;
    h.boundaries.push_back(bc);
  }
  h.jacobi = c.temperature.preconditioner == "jacobi";
  h.multigrid = false;
  h.tolerance = c.temperature.tolerance;
  h.max_iterations = c.temperature.max_iterations;
  h.output_directory = c.output_directory;
  return h;
}

FlowHeatProblem build_flow_heat_problem(const FlowCase& c, const LoadedMesh& mesh, const PresentGroups* whole) {
  const HeatCase h = heat_case_of(c);
  // The limited advection extrapolates along edges by node positions, which a periodic seam breaks.
  SS_REQUIRE(!(is_periodic(mesh.mesh) && c.heat->advection == "limited"),
             c.where("heat.advection") << ": [heat] advection = \"limited\" does not run on periodic meshes "
                                          "([[mesh.periodic]]) yet; use \"upwind\"");
  FlowHeatProblem p;
  p.conduction = build_heat_problem(h, mesh, whole);
  p.conduction.initial.resize(mesh.mesh.nodes.size());
  for (size_t i = 0; i < mesh.mesh.nodes.size(); ++i)
    p.conduction.initial[i] = evaluate_finite(c.heat->initial, mesh.mesh.nodes[i], c.where("heat.initial"), "[heat] initial");
  // The fixed values win over T⁰ from the start.
  for (size_t k = 0; k < p.conduction.dirichlet_nodes.size(); ++k)
    p.conduction.initial[size_t(p.conduction.dirichlet_nodes[k])] = p.conduction.dirichlet_values[k];
  p.conductivity = c.heat->conductivity;
  p.heat_capacity = c.heat->heat_capacity;
  // The temperature step stays the bounded θ-scheme: with the flow's Crank–Nicolson, implicit Euler
  // conduction (θ = ½ would let T leave its bounds at large Δt/h²).
  p.theta = c.crank_nicolson ? 1.0 : c.theta;
  p.implicit_advection = c.steady.enabled;
  p.limited_advection = c.heat->advection == "limited";
  p.solver.tolerance = c.temperature.tolerance;
  p.solver.max_iterations = c.temperature.max_iterations;
  p.solver.jacobi = c.temperature.preconditioner == "jacobi";
  p.solver.variant = parse_cg_variant(c.temperature.variant);
  for (const BoundaryCondition& bc : h.boundaries) {
    FlowHeatGroup g;
    g.group = resolve_surface_group(mesh, bc.group, c.path + ":" + std::to_string(bc.line), whole);
    g.label = bc.group;
    g.fixed_temperature = bc.type == BoundaryCondition::Type::dirichlet;
    if (!g.fixed_temperature) g.heat_flux = bc.value;
    p.groups.push_back(g);
  }
  p.reference_length = c.heat->reference_length;
  p.reference_temperature_difference = c.heat->reference_temperature_difference;
  if (c.buoyancy) p.buoyancy = FlowBuoyancy{c.buoyancy->gravity, c.buoyancy->expansion, c.buoyancy->reference_temperature};
  return p;
}

SparseMatrix node_to_cell_mean(const LoadedMesh& mesh) {
  std::vector<Triplet> entries;
  entries.reserve(mesh.mesh.tets.size() * 4);
  for (size_t c = 0; c < mesh.mesh.tets.size(); ++c)
    for (NodeId n : mesh.mesh.tets[c]) entries.push_back({std::int32_t(c), std::int32_t(n), 0.25});
  return from_triplets(std::int32_t(mesh.mesh.tets.size()), std::int32_t(mesh.mesh.nodes.size()), std::move(entries));
}

}  // namespace ss
