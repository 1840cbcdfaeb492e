#include "postprocess/flow_probes.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <sstream>

#include <glm/mat3x3.hpp>
#include <glm/common.hpp>
#include <glm/geometric.hpp>
#include <glm/vector_relational.hpp>

#include "util/error.hpp"

namespace ss {

std::string probe_point_text(const glm::dvec3& x) {
  std::ostringstream s;
  s << "(" << x.x << ", " << x.y << ", " << x.z << ")";
  return s.str();
}

ProbeLocation locate_probe_point(const LoadedMesh& mesh, const glm::dvec3& p, const std::vector<std::int32_t>* cells) {
  ProbeLocation best;
  double deepest = -1e-9;  // a point up to 1e-9 of a tet's size outside its faces is in it (round-off)
  const size_t count = cells ? cells->size() : mesh.mesh.tets.size();
  for (size_t k = 0; k < count; ++k) {
    const size_t c = cells ? size_t((*cells)[k]) : k;
    glm::dvec3 x[4];
    corner_positions(mesh.mesh, c, x);
    // Cheap rejection first: a point well outside the tet's bounding box is not in it.
    glm::dvec3 lo = x[0], hi = lo;
    for (int i = 1; i < 4; ++i) lo = glm::min(lo, x[i]), hi = glm::max(hi, x[i]);
    const glm::dvec3 margin = 1e-6 * (hi - lo);
    if (glm::any(glm::lessThan(p, lo - margin)) || glm::any(glm::greaterThan(p, hi + margin))) continue;
    const glm::dvec3 a = x[0];
    const glm::dmat3 edges(x[1] - a, x[2] - a, x[3] - a);
    const double det = glm::determinant(edges);
    if (det == 0) continue;
    const glm::dvec3 l = glm::inverse(edges) * (p - a);
    const std::array<double, 4> w = {1 - l.x - l.y - l.z, l.x, l.y, l.z};
    const double depth = *std::min_element(w.begin(), w.end());
    if (depth > deepest) deepest = depth, best.cell = std::int32_t(c), best.weights = w, best.depth = depth;
  }
  return best;
}

glm::dvec4 sample_probe_point(const LoadedMesh& mesh, const ProbeLocation& at, const FlowFields& fields) {
  const Tet& t = mesh.mesh.tets[size_t(at.cell)];
  glm::dvec3 u(0.0);
  double p = 0;
  for (int i = 0; i < 4; ++i) {
    u += at.weights[size_t(i)] * fields.node_velocity[size_t(t[size_t(i)])];
    p += at.weights[size_t(i)] * fields.node_pressure[size_t(t[size_t(i)])];
  }
  return {u, p};
}

std::vector<std::string> probe_columns(const FlowProbeSpec& s) {
  std::vector<std::string> names;
  for (size_t k = 0; k < s.points.size(); ++k)
    for (const std::string& f : s.fields) {
      const std::string at = "@" + std::to_string(k);
      if (f == "velocity") names.insert(names.end(), {"velocity_x" + at, "velocity_y" + at, "velocity_z" + at});
      else names.push_back(f + at);
    }
  return names;
}

std::vector<double> probe_values(const FlowProbeSpec& s, const std::vector<glm::dvec4>& at_points,
                                 const std::vector<double>& temperatures) {
  SS_REQUIRE(at_points.size() == s.points.size(), "probe '" << s.name << "': " << at_points.size() << " samples for "
                                                            << s.points.size() << " points");
  const bool temperature = std::find(s.fields.begin(), s.fields.end(), "temperature") != s.fields.end();
  SS_REQUIRE(!temperature || temperatures.size() == s.points.size(),
             s.where << ": probe '" << s.name << "' samples the temperature, which this run does not carry (no [heat])");
  std::vector<double> values;
  for (size_t k = 0; k < at_points.size(); ++k)
    for (const std::string& f : s.fields) {
      const glm::dvec4& v = at_points[k];
      if (f == "velocity") values.insert(values.end(), {v.x, v.y, v.z});
      else if (f == "temperature") values.push_back(temperatures[k]);
      else values.push_back(v.w);
    }
  return values;
}

FlowProbes::FlowProbes(const LoadedMesh& mesh, std::vector<FlowProbeSpec> specs) : mesh_(mesh), specs_(std::move(specs)) {
  for (const FlowProbeSpec& spec : specs_) {
    std::vector<ProbeLocation>& found = locations_.emplace_back();
    for (size_t k = 0; k < spec.points.size(); ++k) {
      const ProbeLocation at = locate_probe_point(mesh, spec.points[k]);
      SS_REQUIRE(at.cell >= 0, spec.where << ": probe '" << spec.name << "': point " << k << " "
                                          << probe_point_text(spec.points[k]) << " is outside the mesh");
      found.push_back(at);
    }
  }
}

std::vector<std::string> FlowProbes::columns(size_t probe) const { return probe_columns(specs_[probe]); }

std::vector<double> FlowProbes::sample(size_t probe, const FlowFields& fields) const {
  SS_REQUIRE(fields.node_velocity.size() == mesh_.mesh.nodes.size() &&
                 fields.node_pressure.size() == mesh_.mesh.nodes.size(),
             "probes: node fields of another mesh");
  std::vector<glm::dvec4> at_points;
  std::vector<double> temperatures;
  for (const ProbeLocation& at : locations_[probe]) {
    at_points.push_back(sample_probe_point(mesh_, at, fields));
    if (fields.node_temperature.size() != mesh_.mesh.nodes.size()) continue;
    const Tet& t = mesh_.mesh.tets[size_t(at.cell)];
    double T = 0;
    for (int i = 0; i < 4; ++i) T += at.weights[size_t(i)] * fields.node_temperature[size_t(t[size_t(i)])];
    temperatures.push_back(T);
  }
  return probe_values(specs_[probe], at_points, temperatures);
}

std::vector<std::vector<double>> FlowProbes::sample_all(const FlowFields& fields) const {
  std::vector<std::vector<double>> all;
  for (size_t i = 0; i < specs_.size(); ++i) all.push_back(sample(i, fields));
  return all;
}

}  // namespace ss
