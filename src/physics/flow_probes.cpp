#include "physics/flow_probes.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <sstream>

#include <glm/mat3x3.hpp>
#include <glm/geometric.hpp>

#include "physics/case_reading.hpp"
#include "util/error.hpp"

namespace ss {
namespace {

glm::dvec3 read_point(const TableReader& t, const toml::node& node, const std::string& what) {
  const toml::array* list = node.as_array();
  SS_REQUIRE(list && list->size() == 3, t.where(node) << ": [[probe]] " << what << " must be [x, y, z]");
  glm::dvec3 v{0.0};
  for (size_t k = 0; k < 3; ++k) {
    const toml::node& item = *list->get(k);
    std::optional<double> x = item.value_exact<double>();
    if (!x)
      if (auto i = item.value_exact<std::int64_t>()) x = double(*i);
    SS_REQUIRE(x && std::isfinite(*x), t.where(item) << ": [[probe]] " << what << "[" << k << "] must be a finite number");
    v[int(k)] = *x;
  }
  return v;
}

bool valid_name(const std::string& name) {
  return !name.empty() && std::all_of(name.begin(), name.end(), [](char ch) {
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_' || ch == '-';
  });
}

std::string point_text(const glm::dvec3& x) {
  std::ostringstream s;
  s << "(" << x.x << ", " << x.y << ", " << x.z << ")";
  return s.str();
}

}  // namespace

FlowProbeSpec read_flow_probe(TableReader& t) {
  FlowProbeSpec p;
  p.where = t.where(t.table());
  const std::optional<std::string> name = t.get_text("name");
  SS_REQUIRE(name, p.where << ": [[probe]] needs name = \"...\" (the file probes/<name>.csv)");
  SS_REQUIRE(valid_name(*name), t.where_key("name") << ": [[probe]] name '" << *name
                                                    << "' may hold only letters, digits, '_' and '-'");
  p.name = *name;
  const toml::node* points = t.node("points");
  const toml::node* line = t.node("line");
  SS_REQUIRE((points != nullptr) != (line != nullptr),
             p.where << ": probe '" << p.name << "' needs exactly one of points = [[x, y, z], ...] and line = {...}");
  if (points) {
    const toml::array* list = points->as_array();
    SS_REQUIRE(list && !list->empty(), t.where(*points) << ": probe '" << p.name << "': points must be [[x, y, z], ...]");
    for (size_t k = 0; k < list->size(); ++k)
      p.points.push_back(read_point(t, *list->get(k), "points[" + std::to_string(k) + "]"));
  } else {
    TableReader l(t.file(), as_table(*line, "probe line", t.where(*line)), "[[probe]] line");
    const std::optional<glm::dvec3> from = l.get_vector("from"), to = l.get_vector("to");
    const std::optional<int> samples = l.get_integer("samples");
    SS_REQUIRE(from && to && samples,
               t.where(*line) << ": probe '" << p.name << "': line needs from = [x, y, z], to = [x, y, z], samples = N");
    l.require_at_least("samples", *samples, 2);
    l.reject_unknown_keys();
    for (int k = 0; k < *samples; ++k) p.points.push_back(*from + (*to - *from) * (double(k) / double(*samples - 1)));
  }
  if (const toml::node* fields = t.node("fields")) {
    const toml::array* list = fields->as_array();
    SS_REQUIRE(list && !list->empty(), t.where(*fields) << ": probe '" << p.name
                                                        << "': fields must be a list of \"velocity\" and \"pressure\"");
    for (const toml::node& item : *list) {
      const std::optional<std::string> f = item.value<std::string>();
      SS_REQUIRE(f && (*f == "velocity" || *f == "pressure"),
                 t.where(item) << ": probe '" << p.name << "': a field is \"velocity\" or \"pressure\"");
      SS_REQUIRE(std::find(p.fields.begin(), p.fields.end(), *f) == p.fields.end(),
                 t.where(item) << ": probe '" << p.name << "': field \"" << *f << "\" is listed twice");
      p.fields.push_back(*f);
    }
  } else {
    p.fields = {"velocity", "pressure"};
  }
  return p;
}

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
