#include "physics/flow_probes.hpp"

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
namespace {

std::string point_text(const glm::dvec3& x) {
  std::ostringstream s;
  s << "(" << x.x << ", " << x.y << ", " << x.z << ")";
  return s.str();
}

}  // namespace

FlowProbes::FlowProbes(const LoadedMesh& mesh, std::vector<FlowProbeSpec> specs) : mesh_(mesh), specs_(std::move(specs)) {
  const std::vector<glm::dvec3>& x = mesh.mesh.nodes;
  for (const FlowProbeSpec& spec : specs_) {
    std::vector<Location>& found = locations_.emplace_back();
    for (size_t k = 0; k < spec.points.size(); ++k) {
      const glm::dvec3 p = spec.points[k];
      Location best;
      double deepest = -1e-9;  // a point up to 1e-9 of a tet's size outside its faces is in it (round-off)
      for (size_t c = 0; c < mesh.mesh.tets.size(); ++c) {
        const Tet& t = mesh.mesh.tets[c];
        // Cheap rejection first: a point well outside the tet's bounding box is not in it.
        glm::dvec3 lo = x[size_t(t[0])], hi = lo;
        for (int i = 1; i < 4; ++i) lo = glm::min(lo, x[size_t(t[size_t(i)])]), hi = glm::max(hi, x[size_t(t[size_t(i)])]);
        const glm::dvec3 margin = 1e-6 * (hi - lo);
        if (glm::any(glm::lessThan(p, lo - margin)) || glm::any(glm::greaterThan(p, hi + margin))) continue;
        const glm::dvec3 a = x[size_t(t[0])];
        const glm::dmat3 edges(x[size_t(t[1])] - a, x[size_t(t[2])] - a, x[size_t(t[3])] - a);
        const double det = glm::determinant(edges);
        if (det == 0) continue;
        const glm::dvec3 l = glm::inverse(edges) * (p - a);
        const std::array<double, 4> w = {1 - l.x - l.y - l.z, l.x, l.y, l.z};
        const double depth = *std::min_element(w.begin(), w.end());
        if (depth > deepest) deepest = depth, best.cell = std::int32_t(c), best.weights = w;
      }
      SS_REQUIRE(best.cell >= 0, spec.where << ": probe '" << spec.name << "': point " << k << " " << point_text(p)
                                            << " is outside the mesh");
      found.push_back(best);
    }
  }
}

std::vector<std::string> FlowProbes::columns(size_t probe) const {
  std::vector<std::string> names;
  const FlowProbeSpec& s = specs_[probe];
  for (size_t k = 0; k < s.points.size(); ++k)
    for (const std::string& f : s.fields) {
      const std::string at = "@" + std::to_string(k);
      if (f == "velocity") names.insert(names.end(), {"velocity_x" + at, "velocity_y" + at, "velocity_z" + at});
      else names.push_back("pressure" + at);
    }
  return names;
}

std::vector<double> FlowProbes::sample(size_t probe, const FlowFields& fields) const {
  SS_REQUIRE(fields.node_velocity.size() == mesh_.mesh.nodes.size() &&
                 fields.node_pressure.size() == mesh_.mesh.nodes.size(),
             "probes: node fields of another mesh");
  std::vector<double> values;
  const FlowProbeSpec& s = specs_[probe];
  for (const Location& at : locations_[probe]) {
    const Tet& t = mesh_.mesh.tets[size_t(at.cell)];
    glm::dvec3 u(0.0);
    double p = 0;
    for (int i = 0; i < 4; ++i) {
      u += at.weights[size_t(i)] * fields.node_velocity[size_t(t[size_t(i)])];
      p += at.weights[size_t(i)] * fields.node_pressure[size_t(t[size_t(i)])];
    }
    for (const std::string& f : s.fields) {
      if (f == "velocity") values.insert(values.end(), {u.x, u.y, u.z});
      else values.push_back(p);
    }
  }
  return values;
}

}  // namespace ss
