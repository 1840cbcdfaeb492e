#include "physics/heat_problem.hpp"

#include <algorithm>
#include <charconv>
#include <map>
#include <sstream>

#include "util/error.hpp"

namespace ss {
namespace {

std::string list_groups(const std::map<std::int32_t, std::string>& names, const std::vector<std::int32_t>& ids) {
  std::ostringstream s;
  bool first = true;
  for (std::int32_t id : ids) {
    auto it = names.find(id);
    s << (first ? "" : ", ") << (it != names.end() && !it->second.empty() ? it->second + " (" + std::to_string(id) + ")"
                                                                           : std::to_string(id));
    first = false;
  }
  return s.str();
}

std::int32_t resolve_group(const std::map<std::int32_t, std::string>& names, const std::vector<std::int32_t>& present,
                           const std::string& spec, const std::string& where, const char* kind) {
  for (const auto& [id, name] : names)
    if (name == spec && std::count(present.begin(), present.end(), id)) return id;
  std::int32_t id = 0;
  const auto [end, error] = std::from_chars(spec.data(), spec.data() + spec.size(), id);
  if (error == std::errc() && end == spec.data() + spec.size() && std::count(present.begin(), present.end(), id))
    return id;
  SS_THROW(where << ": unknown " << kind << " group '" << spec << "'; the mesh has " << list_groups(names, present));
}

std::vector<std::int32_t> present_surface_groups(const LoadedMesh& m) {
  std::vector<std::int32_t> ids;
  for (std::int32_t f : m.topology.boundary_faces) ids.push_back(m.topology.face_groups[f]);
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  return ids;
}

std::vector<std::int32_t> present_volume_groups(const TetMesh& m) {
  std::vector<std::int32_t> ids = m.tet_groups;
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  return ids;
}

}  // namespace

std::int32_t resolve_volume_group(const TetMesh& mesh, const std::string& spec, const std::string& where) {
  return resolve_group(mesh.volume_group_names, present_volume_groups(mesh), spec, where, "volume");
}

void add_boundary_flux(const LoadedMesh& mesh, std::int32_t group, double q, std::vector<double>& load) {
  const Topology& topo = mesh.topology;
  for (std::int32_t f : topo.boundary_faces) {
    if (topo.face_groups[f] != group) continue;
    const double share = q * mesh.geometry.face_areas[f] / 3.0;
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

HeatOperatorData assemble_heat_system(const LoadedMesh& mesh, const HeatProblem& problem) {
  HeatOperatorData data = assemble_heat_operator(mesh, problem.conductivity);
  std::fill(data.mass.begin(), data.mass.end(), 0.0);
  for (size_t c = 0; c < mesh.mesh.tets.size(); ++c)
    for (NodeId node : mesh.mesh.tets[c])
      data.mass[size_t(node)] += problem.heat_capacity[c] * mesh.geometry.cell_volumes[c] / 4.0;
  return data;
}

HeatProblem build_heat_problem(const HeatCase& c, const LoadedMesh& m) {
  const size_t cells = m.mesh.tets.size(), nodes = m.mesh.nodes.size();
  HeatProblem p;
  p.time = c.time;
  p.tolerance = c.tolerance;
  p.max_iterations = c.max_iterations;
  p.jacobi = c.jacobi;
  p.mixed = c.mixed;
  p.inner_tolerance = c.inner_tolerance;
  p.variant = parse_cg_variant(c.variant);

  // Materials: one for all, or per volume group (every group present must be given one).
  std::vector<double> source(cells, 0.0);
  p.conductivity.assign(cells, 1.0);
  p.heat_capacity.assign(cells, 1.0);
  if (c.material) {
    std::fill(p.conductivity.begin(), p.conductivity.end(), c.material->conductivity);
    std::fill(p.heat_capacity.begin(), p.heat_capacity.end(), c.material->heat_capacity);
    std::fill(source.begin(), source.end(), c.material->source);
  } else {
    std::map<std::int32_t, Material> by_id;
    for (const auto& [spec, material] : c.materials) {
      const std::string where = c.path + ":" + std::to_string(c.material_lines.at(spec));
      by_id[resolve_volume_group(m.mesh, spec, where)] = material;
    }
    for (size_t cell = 0; cell < cells; ++cell) {
      const std::int32_t g = m.mesh.tet_groups.empty() ? 0 : m.mesh.tet_groups[cell];
      auto it = by_id.find(g);
      SS_REQUIRE(it != by_id.end(), c.path << ": no [material.<group>] for " << volume_group_label(m.mesh, g)
                                           << " (it has tets, e.g. " << tet_label(m.mesh, std::int64_t(cell)) << ")");
      p.conductivity[cell] = it->second.conductivity;
      p.heat_capacity[cell] = it->second.heat_capacity;
      source[cell] = it->second.source;
    }
  }
  p.load.assign(nodes, 0.0);
  add_cell_source(m, source, p.load);

  // Boundary conditions, in case-file order.
  const std::vector<std::int32_t> present = present_surface_groups(m);
  std::vector<double> fixed_value(nodes, 0.0);
  std::vector<char> fixed(nodes, 0);
  for (const BoundaryCondition& bc : c.boundaries) {
    const std::string where = c.path + ":" + std::to_string(bc.line);
    const std::int32_t group = resolve_group(m.mesh.surface_group_names, present, bc.group, where, "boundary");
    if (bc.type == BoundaryCondition::Type::neumann) {
      add_boundary_flux(m, group, bc.value, p.load);
      continue;
    }
    for (std::int32_t f : m.topology.boundary_faces) {
      if (m.topology.face_groups[f] != group) continue;
      for (std::int32_t node : m.topology.face_nodes[f]) {
        if (fixed[size_t(node)]) continue;  // the first listed group wins on shared edges
        fixed[size_t(node)] = 1;
        fixed_value[size_t(node)] = bc.value;
      }
    }
  }
  for (size_t i = 0; i < nodes; ++i) {
    if (!fixed[i]) continue;
    p.dirichlet_nodes.push_back(std::int32_t(i));
    p.dirichlet_values.push_back(fixed_value[i]);
  }
  return p;
}

}  // namespace ss
