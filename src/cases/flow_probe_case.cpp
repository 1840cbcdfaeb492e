#include "cases/flow_probe_case.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

#include "cases/case_reading.hpp"
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
                                                        << "': fields must be a list of \"velocity\", \"pressure\" and \"temperature\"");
    for (const toml::node& item : *list) {
      const std::optional<std::string> f = item.value<std::string>();
      SS_REQUIRE(f && (*f == "velocity" || *f == "pressure" || *f == "temperature"),
                 t.where(item) << ": probe '" << p.name
                               << "': a field is \"velocity\", \"pressure\" or \"temperature\" (a [heat] case)");
      SS_REQUIRE(std::find(p.fields.begin(), p.fields.end(), *f) == p.fields.end(),
                 t.where(item) << ": probe '" << p.name << "': field \"" << *f << "\" is listed twice");
      p.fields.push_back(*f);
    }
  } else {
    p.fields = {"velocity", "pressure"};
  }
  return p;
}

}  // namespace ss
