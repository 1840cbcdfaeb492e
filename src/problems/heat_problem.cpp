#include "problems/heat_problem.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "mesh/mesh_groups.hpp"
#include "util/error.hpp"

namespace ss {

double evaluate_finite(const Expression& e, const glm::dvec3& p, const std::string& where, const char* what) {
  const double v = e(p);
  SS_REQUIRE(std::isfinite(v), where << ": " << what << " = \"" << e.text() << "\" is " << v << " at (" << p.x << ", "
                                     << p.y << ", " << p.z << ")");
  return v;
}

std::vector<const Material*> unique_materials(const HeatCase& c) {
  if (c.material) return {&*c.material};
  std::vector<const Material*> list;
  for (const auto& [spec, material] : c.materials) list.push_back(&material);
  return list;
}

HeatProblem heat_problem_settings(const HeatCase& c) {
  HeatProblem p;
  if (c.time) p.time = static_cast<const TimeSettings&>(*c.time);
  p.tolerance = c.tolerance;
  p.max_iterations = c.max_iterations;
  p.jacobi = c.jacobi;
  p.multigrid = c.multigrid;
  p.mixed = c.mixed;
  p.inner_tolerance = c.inner_tolerance;
  p.variant = parse_cg_variant(c.variant);
  return p;
}

std::vector<const Material*> cell_materials(const HeatCase& c, const LoadedMesh& m, const PresentGroups* whole) {
  const size_t cells = m.mesh.tets.size();
  const auto line = [&](int l) { return c.path + ":" + std::to_string(l); };
  std::map<std::int32_t, const Material*> by_id;
  if (!c.material) {
    for (const auto& [spec, material] : c.materials)
      by_id[resolve_volume_group(m.mesh, spec, line(c.material_lines.at(spec)), whole)] = &material;
  }
  // A parallel pass that remembers the first cell without one (reported below, outside the region).
  std::vector<const Material*> material_of(cells, c.material ? &*c.material : nullptr);
  std::int64_t missing = std::int64_t(cells);
  if (!c.material) {
#pragma omp parallel for schedule(static) reduction(min : missing)
    for (std::int64_t cell = 0; cell < std::int64_t(cells); ++cell) {
      const std::int32_t g = m.mesh.tet_groups.empty() ? 0 : m.mesh.tet_groups[size_t(cell)];
      const auto it = by_id.find(g);
      if (it == by_id.end()) missing = std::min(missing, cell);
      else material_of[size_t(cell)] = it->second;
    }
  }
  if (missing < std::int64_t(cells)) {
    const std::int32_t g = m.mesh.tet_groups.empty() ? 0 : m.mesh.tet_groups[size_t(missing)];
    SS_THROW(c.path << ": no [material.<group>] for " << volume_group_label(m.mesh, g) << " (it has tets, e.g. "
                    << tet_label(m.mesh, missing) << ")");
  }
  return material_of;
}

void fix_dirichlet_nodes(const std::vector<char>& fixed, const std::vector<double>& fixed_value, HeatProblem& p) {
  for (size_t i = 0; i < fixed.size(); ++i) {
    if (!fixed[i]) continue;
    p.dirichlet_nodes.push_back(std::int32_t(i));
    p.dirichlet_values.push_back(fixed_value[i]);
  }
}

void add_boundary_flux(const LoadedMesh& mesh, std::int32_t group, const Expression& q, std::vector<double>& load) {
  const Topology& topo = mesh.topology;
  for (std::int32_t f : topo.boundary_faces) {
    if (topo.face_groups[f] != group) continue;
    const double share = q(mesh.geometry.face_centroids[f]) * mesh.geometry.face_areas[f] / 3.0;
    for (std::int32_t node : topo.face_nodes[f]) load[size_t(node)] += share;
  }
}

void add_cell_source(const LoadedMesh& mesh, const std::vector<double>& source, std::vector<double>& load) {
  for (size_t c = 0; c < mesh.mesh.tets.size(); ++c) {
    if (source[c] == 0.0) continue;
    const double share = source[c] * mesh.geometry.cell_volumes[c] / 4.0;
    for (NodeId node : mesh.mesh.tets[c]) load[size_t(node)] += share;
  }
}

HeatOperatorData assemble_heat_system(const LoadedMesh& mesh, const HeatProblem& problem, HeatTables tables) {
  HeatOperatorData data = assemble_heat_operator(mesh, problem.conductivity, tables);
  const std::vector<double>& rho_c = problem.heat_capacity;
  if (!rho_c.empty() && std::all_of(rho_c.begin(), rho_c.end(), [&](double v) { return v == rho_c[0]; })) {
    // One ρc: M = ρc · (median-dual volumes), already summed by the geometry.
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < std::int64_t(data.mass.size()); ++i) data.mass[size_t(i)] *= rho_c[0];
    return data;
  }
  std::fill(data.mass.begin(), data.mass.end(), 0.0);
  for (size_t c = 0; c < mesh.mesh.tets.size(); ++c)
    for (NodeId node : mesh.mesh.tets[c])
      data.mass[size_t(node)] += rho_c[c] * mesh.geometry.cell_volumes[c] / 4.0;
  return data;
}

HeatProblem build_heat_problem(const HeatCase& c, const LoadedMesh& m, const PresentGroups* whole) {
  const size_t cells = m.mesh.tets.size(), nodes = m.mesh.nodes.size();
  HeatProblem p = heat_problem_settings(c);
  const auto line = [&](int l) { return c.path + ":" + std::to_string(l); };

  // Materials: one for all, or per volume group (every group present must be given one); the source
  // S(x, y, z) at each cell's centroid.
  std::vector<double> source(cells, 0.0);
  p.conductivity.assign(cells, 1.0);
  p.heat_capacity.assign(cells, 1.0);
  std::vector<const Material*> material_of = cell_materials(c, m, whole);
#pragma omp parallel for schedule(static)
  for (std::int64_t cell = 0; cell < std::int64_t(cells); ++cell) {
    p.conductivity[size_t(cell)] = material_of[size_t(cell)]->conductivity;
    p.heat_capacity[size_t(cell)] = material_of[size_t(cell)]->heat_capacity;
  }
  // Sources: a constant is checked once; a formula (muParser, one evaluator: serial) at every centroid.
  for (const Material* material : unique_materials(c)) {
    if (material->source.is_constant()) {
      const double value = evaluate_finite(material->source, glm::dvec3(0.0), line(material->line), "source");
      if (value == 0.0) continue;
#pragma omp parallel for schedule(static)
      for (std::int64_t cell = 0; cell < std::int64_t(cells); ++cell)
        if (material_of[size_t(cell)] == material) source[size_t(cell)] = value;
      continue;
    }
    const std::string where = line(material->line);
    for (size_t cell = 0; cell < cells; ++cell)
      if (material_of[cell] == material)
        source[cell] = evaluate_finite(material->source, m.geometry.cell_centroids[cell], where, "source");
  }
  material_of = {};
  p.load.assign(nodes, 0.0);
  add_cell_source(m, source, p.load);

  // Boundary conditions, in case-file order.
  std::vector<double> fixed_value(nodes, 0.0);
  std::vector<char> fixed(nodes, 0);
  for (const BoundaryCondition& bc : c.boundaries) {
    const std::string where = c.path + ":" + std::to_string(bc.line);
    const std::int32_t group = resolve_surface_group(m, bc.group, where, whole);
    if (bc.type == BoundaryCondition::Type::neumann) {
      for (std::int32_t f : m.topology.boundary_faces)
        if (m.topology.face_groups[f] == group)
          evaluate_finite(bc.value, m.geometry.face_centroids[f], where, "[[boundary]] value");
      add_boundary_flux(m, group, bc.value, p.load);
      continue;
    }
    for (std::int32_t f : m.topology.boundary_faces) {
      if (m.topology.face_groups[f] != group) continue;
      for (std::int32_t node : m.topology.face_nodes[f]) {
        if (fixed[size_t(node)]) continue;  // the first listed group wins on shared edges
        fixed[size_t(node)] = 1;
        fixed_value[size_t(node)] = evaluate_finite(bc.value, m.mesh.nodes[size_t(node)], where, "[[boundary]] value");
      }
    }
  }
  if (c.time) {
    p.initial.resize(nodes);
    for (size_t i = 0; i < nodes; ++i)
      p.initial[i] = evaluate_finite(c.time->initial, m.mesh.nodes[i], c.path, "[time] initial");
  }
  fix_dirichlet_nodes(fixed, fixed_value, p);
  return p;
}

}  // namespace ss
