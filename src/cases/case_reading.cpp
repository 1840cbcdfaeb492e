#include "cases/case_reading.hpp"

#include <climits>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "util/error.hpp"

namespace ss {
namespace {

namespace fs = std::filesystem;

// The shortest way to quote a value of a number read from a table in a message.
std::string number_text(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

}  // namespace

CaseFile::CaseFile(const std::string& text, const std::string& path) : path_(path) {
  try {
    root_ = toml::parse(text, path);
  } catch (const toml::parse_error& e) {
    SS_THROW(path << ":" << e.source().begin.line << ": " << e.description());
  }
}

CaseFile CaseFile::read(const std::string& path) {
  std::ifstream in(path);
  SS_REQUIRE(in, "cannot open case file '" << path << "'");
  std::ostringstream text;
  text << in.rdbuf();
  return CaseFile(text.str(), path);
}

std::string CaseFile::resolve(const std::string& written) const {
  if (fs::path(written).is_absolute()) return written;
  return (fs::path(path_).parent_path() / written).lexically_normal().string();
}

const toml::node* TableReader::node(const std::string& key) {
  known_.insert(key);
  return table_.get(key);
}

std::string TableReader::where_key(const std::string& key) const {
  const toml::node* n = table_.get(key);
  return file_.at(n ? *n : static_cast<const toml::node&>(table_));
}

std::optional<double> TableReader::get_number(const std::string& key, const char* type_name) {
  const toml::node* n = node(key);
  if (!n) return std::nullopt;
  if (auto v = n->value_exact<double>()) return *v;
  if (auto v = n->value_exact<std::int64_t>()) return double(*v);
  SS_THROW(where(*n) << ": " << name_ << " " << key << " must be " << type_name);
}

std::optional<int> TableReader::get_integer(const std::string& key, const char* type_name) {
  const toml::node* n = node(key);
  if (!n) return std::nullopt;
  if (auto v = n->value_exact<std::int64_t>()) {
    SS_REQUIRE(*v >= INT32_MIN && *v <= INT32_MAX, where(*n) << ": " << name_ << " " << key << " is out of range");
    return int(*v);
  }
  SS_THROW(where(*n) << ": " << name_ << " " << key << " must be " << type_name);
}

std::optional<std::string> TableReader::get_text(const std::string& key, const char* type_name) {
  const toml::node* n = node(key);
  if (!n) return std::nullopt;
  if (auto v = n->value_exact<std::string>()) return *v;
  SS_THROW(where(*n) << ": " << name_ << " " << key << " must be " << type_name);
}

std::optional<bool> TableReader::get_boolean(const std::string& key, const char* type_name) {
  const toml::node* n = node(key);
  if (!n) return std::nullopt;
  if (auto v = n->value_exact<bool>()) return *v;
  SS_THROW(where(*n) << ": " << name_ << " " << key << " must be " << type_name);
}

void TableReader::require_positive(const std::string& key, double value) {
  SS_REQUIRE(std::isfinite(value) && value > 0.0,
             where_key(key) << ": " << name_ << " " << key << " must be positive (got " << number_text(value) << ")");
}

void TableReader::require_at_least(const std::string& key, double value, double lowest) {
  SS_REQUIRE(std::isfinite(value) && value >= lowest, where_key(key) << ": " << name_ << " " << key << " must be >= "
                                                                     << number_text(lowest) << " (got "
                                                                     << number_text(value) << ")");
}

void TableReader::require_in(const std::string& key, double value, double lowest, double highest, const char* why) {
  SS_REQUIRE(value >= lowest && value <= highest, where_key(key) << ": " << name_ << " " << key << " must be in ["
                                                                 << number_text(lowest) << ", " << number_text(highest)
                                                                 << "] (got " << number_text(value)
                                                                 << (why ? std::string("; ") + why : "") << ")");
}

std::string TableReader::choice(const std::string& key, const std::string& fallback,
                                std::initializer_list<const char*> words) {
  const std::string value = text(key, fallback);
  for (const char* w : words)
    if (value == w) return value;
  std::string list;
  size_t k = 0;
  for (const char* w : words) {
    list += (k == 0 ? "" : k + 1 == words.size() ? " or " : ", ") + std::string("\"") + w + "\"";
    ++k;
  }
  SS_THROW(where_key(key) << ": " << name_ << " " << key << " must be " << list << " (got \"" << value << "\")");
}

std::optional<Expression> TableReader::get_expression(const std::string& key) {
  const toml::node* n = node(key);
  if (!n) return std::nullopt;
  if (auto text = n->value_exact<std::string>()) return Expression(*text, where(*n) + ": " + name_ + " " + key);
  std::optional<double> v = n->value_exact<double>();
  if (!v)
    if (auto i = n->value_exact<std::int64_t>()) v = double(*i);
  SS_REQUIRE(v, where(*n) << ": " << name_ << " " << key << " must be a number or an expression string");
  SS_REQUIRE(std::isfinite(*v), where(*n) << ": " << name_ << " " << key << " must be finite");
  return Expression(*v);
}

std::optional<VectorExpression> TableReader::get_vector_expression(const std::string& key) {
  const toml::node* n = node(key);
  if (!n) return std::nullopt;
  const toml::array* list = n->as_array();
  SS_REQUIRE(list && list->size() == 3, where(*n) << ": " << name_ << " " << key
                                                  << " must be an array of 3 numbers or expression strings ([x, y, z])"
                                                  << (list ? " (got " + std::to_string(list->size()) + " entries)" : ""));
  VectorExpression e;
  for (size_t k = 0; k < 3; ++k) {
    const toml::node& item = *list->get(k);
    const std::string what = name_ + " " + key + "[" + std::to_string(k) + "]";
    if (auto text = item.value_exact<std::string>()) {
      e[k] = Expression(*text, where(item) + ": " + what);
      continue;
    }
    std::optional<double> v = item.value_exact<double>();
    if (!v)
      if (auto i = item.value_exact<std::int64_t>()) v = double(*i);
    SS_REQUIRE(v, where(item) << ": " << what << " must be a number or an expression string");
    SS_REQUIRE(std::isfinite(*v), where(item) << ": " << what << " must be finite");
    e[k] = Expression(*v);
  }
  return e;
}

std::optional<glm::dvec3> TableReader::get_vector(const std::string& key) {
  const toml::node* n = node(key);
  if (!n) return std::nullopt;
  const toml::array* list = n->as_array();
  SS_REQUIRE(list && list->size() == 3, where(*n) << ": " << name_ << " " << key << " must be an array of 3 numbers ([x, y, z])"
                                                  << (list ? " (got " + std::to_string(list->size()) + " entries)" : ""));
  glm::dvec3 v{0.0};
  for (size_t k = 0; k < 3; ++k) {
    const toml::node& item = *list->get(k);
    std::optional<double> x = item.value_exact<double>();
    if (!x)
      if (auto i = item.value_exact<std::int64_t>()) x = double(*i);
    SS_REQUIRE(x && std::isfinite(*x), where(item) << ": " << name_ << " " << key << "[" << k << "] must be a finite number");
    v[int(k)] = *x;
  }
  return v;
}

void TableReader::reject_unknown_keys() const {
  for (const auto& [key, n] : table_) {
    if (!known_.count(std::string(key.str())))
      SS_THROW(where(n) << ": unknown key '" << key.str() << "' in " << name_ << " (known: " << known_list() << ")");
  }
}

std::string TableReader::known_list() const {
  std::string s;
  for (const auto& k : known_) s += (s.empty() ? "" : ", ") + k;
  return s;
}

const toml::table& as_table(const toml::node& node, const std::string& name, const std::string& where) {
  const toml::table* t = node.as_table();
  SS_REQUIRE(t, where << ": " << name << " must be a table ([" << name << "])");
  return *t;
}

bool read_table(TableReader& parent, const std::string& key, const std::string& name,
                const std::function<void(TableReader&)>& read) {
  const toml::node* n = parent.node(key);
  if (!n) return false;
  TableReader t(parent.file(), as_table(*n, name, parent.where(*n)), "[" + name + "]");
  read(t);
  t.reject_unknown_keys();
  return true;
}

namespace {

// One [[mesh.surface]] entry: group, type and the type's keys (a key of another type is unknown).
BoundarySurface read_surface(const CaseFile& file, const toml::node& entry) {
  TableReader e(file, as_table(entry, "mesh.surface", file.at(entry)), "[[mesh.surface]]");
  const std::string group = read_group(e);
  SS_REQUIRE(e.node("type"), file.at(entry) << ": [[mesh.surface]] needs type = \"cylinder\", \"sphere\" or \"plane\"");
  const std::string type = e.choice("type", "", {"cylinder", "sphere", "plane"});
  const SurfaceShape shape = type == "cylinder" ? SurfaceShape::cylinder
                             : type == "sphere" ? SurfaceShape::sphere
                                                : SurfaceShape::plane;
  const auto vector = [&](const char* key) {
    const std::optional<glm::dvec3> v = e.get_vector(key);
    SS_REQUIRE(v, file.at(entry) << ": [[mesh.surface]] of type \"" << type << "\" needs " << key << " = [x, y, z]");
    return *v;
  };
  const glm::dvec3 point = vector(shape == SurfaceShape::sphere ? "center" : "point");
  glm::dvec3 direction{0.0};
  if (shape != SurfaceShape::sphere) {
    const char* key = shape == SurfaceShape::cylinder ? "axis" : "normal";
    direction = vector(key);
    SS_REQUIRE(direction != glm::dvec3(0.0), e.where_key(key) << ": [[mesh.surface]] " << key << " must be a nonzero vector");
  }
  double radius = 0.0;
  if (shape != SurfaceShape::plane) {
    const std::optional<double> r = e.get_number("radius");
    SS_REQUIRE(r, file.at(entry) << ": [[mesh.surface]] of type \"" << type << "\" needs radius = ... (> 0)");
    radius = *r;
    e.require_positive("radius", radius);
  }
  e.reject_unknown_keys();
  return make_boundary_surface(shape, group, point, direction, radius, file.at(entry));
}

// One [[mesh.periodic]] entry: groups = ["first", "second"] (names or numbers), offset = [x, y, z]
// (optional: the difference of the groups' node centroids).
PeriodicPair read_periodic(const CaseFile& file, const toml::node& entry) {
  TableReader e(file, as_table(entry, "mesh.periodic", file.at(entry)), "[[mesh.periodic]]");
  const toml::node* groups = e.node("groups");
  const toml::array* list = groups ? groups->as_array() : nullptr;
  SS_REQUIRE(list && list->size() == 2,
             (groups ? file.at(*groups) : file.at(entry)) << ": [[mesh.periodic]] needs groups = [\"first\", \"second\"] (two boundary groups)");
  PeriodicPair pair;
  pair.offset_given = false;
  std::string names[2];
  for (size_t k = 0; k < 2; ++k) {
    const toml::node& g = *list->get(k);
    if (auto name = g.value_exact<std::string>()) names[k] = *name;
    else if (auto id = g.value_exact<std::int64_t>()) names[k] = std::to_string(*id);
    else SS_THROW(file.at(*groups) << ": [[mesh.periodic]] groups must be names or numbers");
  }
  pair.first = names[0];
  pair.second = names[1];
  if (const std::optional<glm::dvec3> offset = e.get_vector("offset")) {
    SS_REQUIRE(*offset != glm::dvec3(0.0), e.where_key("offset") << ": [[mesh.periodic]] offset must be a nonzero vector");
    pair.offset = *offset;
    pair.offset_given = true;
  }
  pair.where = file.at(entry);
  e.reject_unknown_keys();
  return pair;
}

}  // namespace

MeshSettings read_mesh_table(TableReader& top) {
  const CaseFile& file = top.file();
  const toml::node* mesh = top.node("mesh");
  SS_REQUIRE(mesh, file.path() << ": missing [mesh] table with file = \"...\"");
  MeshSettings s;
  TableReader t(file, as_table(*mesh, "mesh", file.at(*mesh)), "[mesh]");
  const auto written = t.get_text("file", "a string (the mesh file)");
  SS_REQUIRE(written && !written->empty(), file.at(*mesh) << ": [mesh] needs file = \"...\"");
  s.file = file.resolve(*written);
  s.refine = t.integer("refine", 0);
  SS_REQUIRE(s.refine >= 0 && s.refine <= 6, file.at(*mesh) << ": [mesh] refine must be 0..6 (got " << s.refine << ")");
  if (const toml::node* surfaces = t.node("surface")) {
    const toml::array* list = surfaces->as_array();
    SS_REQUIRE(list, file.at(*surfaces) << ": boundary surfaces are written as [[mesh.surface]] tables");
    for (const toml::node& entry : *list) s.surfaces.push_back(read_surface(file, entry));
    SS_REQUIRE(s.surfaces.size() <= size_t(kMaxBoundarySurfaces),
               file.at(*surfaces) << ": at most " << kMaxBoundarySurfaces << " [[mesh.surface]] entries");
  }
  if (const toml::node* periodic = t.node("periodic")) {
    const toml::array* list = periodic->as_array();
    SS_REQUIRE(list, file.at(*periodic) << ": periodic pairs are written as [[mesh.periodic]] tables");
    for (const toml::node& entry : *list) s.periodic.push_back(read_periodic(file, entry));
    SS_REQUIRE(s.periodic.size() <= size_t(kMaxPeriodicPairs),
               file.at(*periodic) << ": at most " << kMaxPeriodicPairs << " [[mesh.periodic]] pairs");
  }
  t.reject_unknown_keys();
  // The error_code form: a name the system refuses (too long, a loop of links) is an error, not a throw.
  std::error_code ec;
  const bool found = fs::is_regular_file(s.file, ec);
  const bool absent = !ec || ec == std::errc::no_such_file_or_directory || ec == std::errc::not_a_directory;
  SS_REQUIRE(found, file.at(*t.node("file")) << ": mesh file '" << s.file << "' "
                                             << (absent ? "does not exist" : "cannot be looked up: " + ec.message()));
  return s;
}

OutputSettings read_output_table(TableReader& top, int default_every, const std::function<void(TableReader&)>& more) {
  OutputSettings s;
  s.directory = top.file().resolve("out");
  s.every = default_every;
  read_table(top, "output", "output", [&](TableReader& t) {
    s.directory = t.file().resolve(t.text("directory", "out"));
    s.every = t.integer("every", s.every);
    SS_REQUIRE(s.every >= 1, t.where_key("every") << ": [output] every must be >= 1");
    if (more) more(t);
  });
  return s;
}

std::string read_group(TableReader& entry) {
  const toml::node* group = entry.node("group");
  SS_REQUIRE(group, entry.file().at(entry.table()) << ": " << entry.name() << " needs group = \"name\" or a group number");
  if (auto name = group->value_exact<std::string>()) return *name;
  if (auto id = group->value_exact<std::int64_t>()) return std::to_string(*id);
  SS_THROW(entry.where(*group) << ": " << entry.name() << " group must be a name or a number");
}

}  // namespace ss
