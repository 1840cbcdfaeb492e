// build_refined_heat_problem (heat_problem.hpp): the heat problem of level K from level K − 1, the
// same sums as build_heat_problem on the refined mesh, walking each coarse cell's eight children and
// each coarse boundary face's four (refine_once's children, refine_cut's cuts) instead of level K's
// tables.
#include <cmath>

#include <glm/geometric.hpp>

#include "problems/heat_problem.hpp"
#include "util/error.hpp"

namespace ss {

using i32 = std::int32_t;

HeatProblem build_refined_heat_problem(const HeatCase& c, const LoadedMesh& m, RefineNumbering numbering) {
  const Topology& topo = m.topology;
  const i32 nn = topo.num_nodes, ne = topo.num_edges;
  SS_REQUIRE(!topo.cell_edges.empty() && topo.face_groups.size() == topo.face_nodes.size(),
             m.mesh.source << ": the refined heat problem needs the coarse level's edge and boundary-face tables");
  SS_REQUIRE(m.mesh.boundary_surfaces.empty(), c.path << ": the GPU-refined level cannot honour [[mesh.surface]]; "
                                                          "use --finest-level host");
  HeatProblem p = heat_problem_settings(c);
  const auto line = [&](int l) { return c.path + ":" + std::to_string(l); };

  // 1. Level K's node coordinates (refine_once's midpoints) in its numbering.
  const std::vector<i32> id = refined_node_ids(topo, numbering);  // of coarse node v, then of edge e's midpoint
  const size_t nodes = size_t(nn) + size_t(ne);
  const std::vector<glm::dvec3> points = refined_node_coordinates(m.mesh, topo, numbering);

  // 2. Materials per coarse cell; sources S at the children's centroids, S V / 4 to each child's nodes
  // (children in refine_once's order: cell 8c + k, as add_cell_source walks them).
  const std::vector<const Material*> material_of = cell_materials(c, m, nullptr);
  p.conductivity.resize(material_of.size());
  p.heat_capacity.resize(material_of.size());
  for (size_t cell = 0; cell < material_of.size(); ++cell) {
    p.conductivity[cell] = material_of[cell]->conductivity;
    p.heat_capacity[cell] = material_of[cell]->heat_capacity;
  }
  std::vector<double> constant_source(material_of.size(), 0.0);  // per coarse cell; NaN: a formula
  for (const Material* material : unique_materials(c)) {
    const double value = material->source.is_constant()
                             ? evaluate_finite(material->source, glm::dvec3(0.0), line(material->line), "source")
                             : std::nan("");
    for (size_t cell = 0; cell < material_of.size(); ++cell)
      if (material_of[cell] == material) constant_source[cell] = value;
  }
  p.load.assign(nodes, 0.0);
  for (i32 cell = 0; cell < topo.num_cells; ++cell) {
    if (constant_source[size_t(cell)] == 0.0) continue;
    const Tet& t = m.mesh.tets[size_t(cell)];
    const glm::dvec3 corners[4] = {m.mesh.nodes[t[0]], m.mesh.nodes[t[1]], m.mesh.nodes[t[2]], m.mesh.nodes[t[3]]};
    const i32 cut = refine_cut(corners);
    i32 slot_ids[10];
    for (int i = 0; i < 4; ++i) slot_ids[i] = id[size_t(t[i])];
    for (int k = 0; k < 6; ++k) slot_ids[4 + k] = id[size_t(nn + topo.cell_edges[size_t(cell)][size_t(k)])];
    for (int k = 0; k < 8; ++k) {
      int slots[4];
      refined_child_slots(cut, k, slots);
      const i32 child[4] = {slot_ids[slots[0]], slot_ids[slots[1]], slot_ids[slots[2]], slot_ids[slots[3]]};
      const glm::dvec3 q[4] = {points[size_t(child[0])], points[size_t(child[1])], points[size_t(child[2])], points[size_t(child[3])]};
      const double volume = glm::dot(q[1] - q[0], glm::cross(q[2] - q[0], q[3] - q[0])) / 6.0;  // compute_geometry's
      const double source = std::isnan(constant_source[size_t(cell)])
                                ? evaluate_finite(material_of[size_t(cell)]->source, (q[0] + q[1] + q[2] + q[3]) / 4.0,
                                                  line(material_of[size_t(cell)]->line), "source")
                                : constant_source[size_t(cell)];
      for (i32 node : child) p.load[size_t(node)] += source * volume / 4.0;
    }
  }

  // 3. Boundary conditions, in case-file order, on the four children of each coarse boundary face of
  // the group (corner, midpoint, midpoint as refine_once splits the file's triangles).
  std::vector<double> fixed_value(nodes, 0.0);
  std::vector<char> fixed(nodes, 0);
  for (const BoundaryCondition& bc : c.boundaries) {
    const std::string where = c.path + ":" + std::to_string(bc.line);
    const i32 group = resolve_surface_group(m, bc.group, where, nullptr);
    for (i32 f : topo.boundary_faces) {
      if (topo.face_groups[size_t(f)] != group) continue;
      for (const auto& triangle : refined_triangle_children(topo, id, topo.face_nodes[size_t(f)])) {
        const glm::dvec3 &a = points[size_t(triangle[0])], &b = points[size_t(triangle[1])], &d = points[size_t(triangle[2])];
        if (bc.type == BoundaryCondition::Type::neumann) {  // q A / 3 to each corner, q at the centroid
          const double area = glm::length(0.5 * glm::cross(b - a, d - a));
          const double share = evaluate_finite(bc.value, (a + b + d) / 3.0, where, "[[boundary]] value") * area / 3.0;
          for (i32 node : triangle) p.load[size_t(node)] += share;
          continue;
        }
        for (i32 node : triangle) {
          if (fixed[size_t(node)]) continue;  // the first listed group wins on shared edges
          fixed[size_t(node)] = 1;
          fixed_value[size_t(node)] = evaluate_finite(bc.value, points[size_t(node)], where, "[[boundary]] value");
        }
      }
    }
  }
  if (c.time) {
    p.initial.resize(nodes);
    for (size_t i = 0; i < nodes; ++i) p.initial[i] = evaluate_finite(c.time->initial, points[i], c.path, "[time] initial");
  }
  fix_dirichlet_nodes(fixed, fixed_value, p);
  return p;
}

}  // namespace ss
