#include "postprocess/flow_fields.hpp"

#include <algorithm>
#include <cmath>

#include <glm/geometric.hpp>

#include "mesh/vtu.hpp"
#include "postprocess/flow_node_values.hpp"
#include "util/error.hpp"

namespace ss {
namespace {

template <class Value>
std::vector<Value> node_average(const LoadedMesh& mesh, const std::vector<Value>& cell_values) {
  std::vector<Value> sum(mesh.mesh.nodes.size(), Value(0.0));
  std::vector<double> weight(mesh.mesh.nodes.size(), 0.0);
  for (size_t c = 0; c < mesh.mesh.tets.size(); ++c) {
    const double v = mesh.geometry.cell_volumes[c];
    for (NodeId node : mesh.mesh.tets[c]) {
      sum[size_t(node)] += v * cell_values[c];
      weight[size_t(node)] += v;
    }
  }
  for (size_t i = 0; i < sum.size(); ++i)
    if (weight[i] > 0) sum[i] /= weight[i];
  return sum;
}

std::vector<glm::dvec3> cell_vorticity(const LoadedMesh& mesh, const FlowProblem& problem, double t,
                                       const std::vector<glm::dvec3>& u) {
  const Topology& topo = mesh.topology;
  const Geometry& geo = mesh.geometry;
  // Velocity on each face.
  std::vector<glm::dvec3> face_velocity(size_t(topo.num_faces));
  for (size_t f = 0; f < face_velocity.size(); ++f) {
    const auto& cells = topo.face_cells[f];
    face_velocity[f] = cells[1] >= 0 ? 0.5 * (u[size_t(cells[0])] + u[size_t(cells[1])]) : u[size_t(cells[0])];
  }
  const FlowBoundaryValues b = evaluate_boundary(problem, mesh, t);
  for (size_t k = 0; k < topo.boundary_faces.size(); ++k) {
    const FlowCondition& c = problem.conditions[size_t(problem.boundary_condition[k])];
    if (c.kind == FlowBoundaryKind::velocity) face_velocity[size_t(topo.boundary_faces[k])] = {b.bx[k], b.by[k], b.bz[k]};
  }
  std::vector<glm::dvec3> omega(size_t(topo.num_cells), glm::dvec3(0.0));
  for (size_t c = 0; c < omega.size(); ++c) {
    for (int i = 0; i < 4; ++i) {
      const size_t f = size_t(topo.cell_faces[c][size_t(i)]);
      const double outward = topo.face_cells[f][0] == std::int32_t(c) ? 1.0 : -1.0;
      omega[c] += outward * geo.face_areas[f] * glm::cross(geo.face_normals[f], face_velocity[f]);
    }
    omega[c] /= geo.cell_volumes[c];
  }
  return omega;
}

// Applies a halo update of per-entity scalars to each component of per-entity vectors.
void update_ghosts(const std::function<void(std::vector<double>&)>& update, std::vector<glm::dvec3>& v) {
  std::vector<double> component(v.size());
  for (int d = 0; d < 3; ++d) {
    for (size_t i = 0; i < v.size(); ++i) component[i] = v[i][d];
    update(component);
    for (size_t i = 0; i < v.size(); ++i) v[i][d] = component[i];
  }
}

}  // namespace

FlowFields compute_flow_fields(CpuMeshOperators& ops, const LoadedMesh& mesh, const FlowProblem& problem,
                               const FlowState& state, const FlowFieldGhosts* ghosts) {
  const size_t cells = size_t(mesh.topology.num_cells);
  SS_REQUIRE(state.flux.size() == size_t(mesh.topology.num_faces) && state.pressure.size() == cells,
             "flow state has " << state.flux.size() << " faces and " << state.pressure.size() << " cells; the mesh has "
                               << mesh.topology.num_faces << " and " << cells);
  FlowFields out;
  std::vector<double> ux, uy, uz, div;
  ops.interpolate(state.flux, ux, uy, uz);
  ops.divergence(state.flux, div);
  out.cell_velocity.resize(cells);
  out.divergence.resize(cells);
  for (size_t c = 0; c < cells; ++c) {
    out.cell_velocity[c] = {ux[c], uy[c], uz[c]};
    out.divergence[c] = div[c] / mesh.geometry.cell_volumes[c];
  }
  out.pressure = state.pressure;
  if (ghosts) update_ghosts(ghosts->cells, out.cell_velocity);  // the state's pressure is right there
  out.node_velocity = node_average(mesh, out.cell_velocity);
  out.node_pressure = node_average(mesh, out.pressure);
  extrapolate_boundary_node_pressure(mesh, out.pressure, out.node_pressure);
  apply_prescribed_node_velocity(mesh, problem, state.time, out.node_velocity);
  apply_prescribed_node_pressure(mesh, problem, state.time, out.node_pressure);
  if (ghosts) update_ghosts(ghosts->nodes, out.node_velocity), ghosts->nodes(out.node_pressure);
  out.vorticity = cell_vorticity(mesh, problem, state.time, out.cell_velocity);
  if (!state.temperature.empty()) {  // a [heat] run: T at the nodes, and its cell mean
    SS_REQUIRE(state.temperature.size() == mesh.mesh.nodes.size(),
               "flow state has " << state.temperature.size() << " temperatures; the mesh has " << mesh.mesh.nodes.size()
                                 << " nodes");
    out.node_temperature = state.temperature;
    out.temperature.resize(cells);
    for (size_t c = 0; c < cells; ++c) {
      double sum = 0.0;
      for (NodeId n : mesh.mesh.tets[c]) sum += state.temperature[size_t(n)];
      out.temperature[c] = 0.25 * sum;
    }
  }
  return out;
}

void write_flow_vtu(const std::string& path, const TetMesh& mesh, FlowFields fields, int rank) {
  const size_t cells = fields.cell_velocity.size();
  std::vector<VtuArray> cell_data = {VtuArray::vectors("velocity", std::move(fields.cell_velocity)),
                                     VtuArray::scalars("pressure", std::move(fields.pressure)),
                                     VtuArray::scalars("divergence", std::move(fields.divergence)),
                                     VtuArray::vectors("vorticity", std::move(fields.vorticity))};
  if (rank >= 0) cell_data.push_back(VtuArray::integers("rank", std::vector<std::int32_t>(cells, rank)));
  if (!fields.temperature.empty()) cell_data.push_back(VtuArray::scalars("temperature", std::move(fields.temperature)));
  std::vector<VtuArray> point_data = {VtuArray::vectors("velocity", std::move(fields.node_velocity))};
  if (!fields.node_pressure.empty()) point_data.push_back(VtuArray::scalars("pressure", std::move(fields.node_pressure)));
  if (!fields.node_temperature.empty())
    point_data.push_back(VtuArray::scalars("temperature", std::move(fields.node_temperature)));
  write_vtu(path, mesh, point_data, cell_data);
}

void write_flow_pvtu(const std::string& path, const std::vector<std::string>& pieces) {
  write_pvtu(path, pieces, {VtuArray::vectors("velocity", {}), VtuArray::scalars("pressure", {})},
             {VtuArray::vectors("velocity", {}), VtuArray::scalars("pressure", {}), VtuArray::scalars("divergence", {}),
              VtuArray::vectors("vorticity", {}), VtuArray::integers("rank", {})});
}

FlowFields select_cells(const FlowFields& fields, const std::vector<std::int32_t>& cells) {
  FlowFields out;
  out.node_velocity = fields.node_velocity;
  out.node_pressure = fields.node_pressure;
  out.node_temperature = fields.node_temperature;
  for (std::int32_t c : cells) {
    if (!fields.temperature.empty()) out.temperature.push_back(fields.temperature[size_t(c)]);
    out.cell_velocity.push_back(fields.cell_velocity[size_t(c)]);
    out.vorticity.push_back(fields.vorticity[size_t(c)]);
    out.pressure.push_back(fields.pressure[size_t(c)]);
    out.divergence.push_back(fields.divergence[size_t(c)]);
  }
  return out;
}

std::vector<double> magnitudes(const std::vector<glm::dvec3>& v) {
  std::vector<double> m(v.size());
  for (size_t i = 0; i < v.size(); ++i) m[i] = glm::length(v[i]);
  return m;
}

FlowDifference compare_flow_fields(const FlowFields& a, const FlowFields& b) {
  SS_REQUIRE(a.cell_velocity.size() == b.cell_velocity.size() && a.pressure.size() == b.pressure.size(),
             "compared flow runs have different meshes");
  FlowDifference d;
  double max_du = 0, max_dp = 0;
  for (size_t c = 0; c < a.cell_velocity.size(); ++c) {
    d.max_speed = std::max(d.max_speed, glm::length(a.cell_velocity[c]));
    max_du = std::max(max_du, glm::length(a.cell_velocity[c] - b.cell_velocity[c]));
  }
  if (!a.pressure.empty()) {
    const auto [lo, hi] = std::minmax_element(a.pressure.begin(), a.pressure.end());
    d.pressure_range = *hi - *lo;
  }
  for (size_t c = 0; c < a.pressure.size(); ++c) max_dp = std::max(max_dp, std::fabs(a.pressure[c] - b.pressure[c]));
  d.max_velocity_diff = d.max_speed > 0 ? max_du / d.max_speed : max_du;
  d.max_pressure_diff = d.pressure_range > 0 ? max_dp / d.pressure_range : max_dp;
  return d;
}

FlowExactSums velocity_error_sums(const LoadedMesh& mesh, const FlowFields& fields, const VelocityFunction& exact,
                                  double t, const std::vector<std::int32_t>& cells) {
  SS_REQUIRE(fields.cell_velocity.size() == size_t(mesh.topology.num_cells), "velocity_error: fields of another mesh");
  FlowExactSums s;
  for (std::int32_t c : cells) {
    const glm::dvec3 u = exact(mesh.geometry.cell_centroids[size_t(c)], t);
    const double e = glm::length(fields.cell_velocity[size_t(c)] - u), volume = mesh.geometry.cell_volumes[size_t(c)];
    s.error2 += volume * e * e, s.norm2 += volume * glm::dot(u, u);
    s.max_error = std::max(s.max_error, e), s.max_speed = std::max(s.max_speed, glm::length(u));
  }
  return s;
}

FlowExactError velocity_error(const FlowExactSums& s, double t) {
  FlowExactError r;
  r.time = t;
  r.l2 = s.norm2 > 0 ? std::sqrt(s.error2 / s.norm2) : std::sqrt(s.error2);
  r.max = s.max_speed > 0 ? s.max_error / s.max_speed : s.max_error;
  return r;
}

FlowExactError velocity_error(const LoadedMesh& mesh, const FlowFields& fields, const VelocityFunction& exact,
                              double t) {
  std::vector<std::int32_t> all(fields.cell_velocity.size());
  for (size_t c = 0; c < all.size(); ++c) all[c] = std::int32_t(c);
  return velocity_error(velocity_error_sums(mesh, fields, exact, t, all), t);
}

}  // namespace ss
