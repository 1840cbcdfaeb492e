#include "physics/heat_case.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <toml++/toml.h>

#include "util/error.hpp"

namespace ss {
namespace {

namespace fs = std::filesystem;

// Reads typed values out of one TOML table and rejects keys it was not asked about.
class TableReader {
public:
  TableReader(const toml::table& table, std::string name, const std::string& file)
      : table_(table), name_(std::move(name)), file_(file) {}

  int line_of(const toml::node& node) const { return int(node.source().begin.line); }
  std::string where(const toml::node& node) const { return file_ + ":" + std::to_string(line_of(node)); }

  template <typename T>
  std::optional<T> get(const std::string& key, const char* type_name) {
    known_.insert(key);
    const toml::node* node = table_.get(key);
    if (!node) return std::nullopt;
    if constexpr (std::is_same_v<T, double>) {
      if (auto v = node->value_exact<double>()) return *v;
      if (auto v = node->value_exact<std::int64_t>()) return double(*v);
    } else if constexpr (std::is_same_v<T, int>) {
      if (auto v = node->value_exact<std::int64_t>()) {
        SS_REQUIRE(*v >= INT32_MIN && *v <= INT32_MAX, where(*node) << ": " << name_ << "." << key << " is out of range");
        return int(*v);
      }
    } else if constexpr (std::is_same_v<T, std::string>) {
      if (auto v = node->value_exact<std::string>()) return *v;
    }
    SS_THROW(where(*node) << ": " << name_ << "." << key << " must be " << type_name);
  }
  double number(const std::string& key, double fallback) { return get<double>(key, "a number").value_or(fallback); }
  int integer(const std::string& key, int fallback) { return get<int>(key, "an integer").value_or(fallback); }
  std::string text(const std::string& key, const std::string& fallback) {
    return get<std::string>(key, "a string").value_or(fallback);
  }
  const toml::node* node(const std::string& key) {
    known_.insert(key);
    return table_.get(key);
  }
  // After reading: any key nobody asked for is a typo or an unsupported option.
  void reject_unknown_keys() const {
    for (const auto& [key, node] : table_) {
      if (!known_.count(std::string(key.str())))
        SS_THROW(where(node) << ": unknown key '" << key.str() << "' in " << name_ << " (known: " << known_list() << ")");
    }
  }

private:
  std::string known_list() const {
    std::string s;
    for (const auto& k : known_) s += (s.empty() ? "" : ", ") + k;
    return s;
  }
  const toml::table& table_;
  std::string name_;
  const std::string& file_;
  std::set<std::string> known_;
};

void require_positive(double v, const std::string& what, const std::string& where) {
  SS_REQUIRE(std::isfinite(v) && v > 0.0, where << ": " << what << " must be positive (got " << v << ")");
}

Material read_material(TableReader& t, const std::string& where) {
  Material m;
  m.conductivity = t.number("conductivity", m.conductivity);
  m.heat_capacity = t.number("heat_capacity", m.heat_capacity);
  m.source = t.number("source", m.source);
  require_positive(m.conductivity, "conductivity", where);
  require_positive(m.heat_capacity, "heat_capacity", where);
  SS_REQUIRE(std::isfinite(m.source), where << ": source must be finite");
  t.reject_unknown_keys();
  return m;
}

const toml::table& as_table(const toml::node& node, const std::string& name, const std::string& where) {
  const toml::table* t = node.as_table();
  SS_REQUIRE(t, where << ": " << name << " must be a table ([" << name << "])");
  return *t;
}

}  // namespace

HeatCase parse_heat_case(const std::string& text, const std::string& path) {
  HeatCase c;
  c.path = path;
  toml::table root;
  try {
    root = toml::parse(text, path);
  } catch (const toml::parse_error& e) {
    SS_THROW(path << ":" << e.source().begin.line << ": " << e.description());
  }
  const fs::path folder = fs::path(path).parent_path();
  const auto relative = [&](const std::string& p) {
    return fs::path(p).is_absolute() ? p : (folder / p).lexically_normal().string();
  };
  const auto at = [&](const toml::node& n) { return path + ":" + std::to_string(n.source().begin.line); };
  TableReader top(root, "the case file", path);

  // [mesh]
  const toml::node* mesh = top.node("mesh");
  SS_REQUIRE(mesh, path << ": missing [mesh] table with file = \"...\"");
  {
    TableReader t(as_table(*mesh, "mesh", at(*mesh)), "[mesh]", path);
    const auto file = t.get<std::string>("file", "a string (the mesh file)");
    SS_REQUIRE(file && !file->empty(), at(*mesh) << ": [mesh] needs file = \"...\"");
    c.mesh_file = relative(*file);
    c.refine = t.integer("refine", 0);
    SS_REQUIRE(c.refine >= 0 && c.refine <= 6, at(*mesh) << ": [mesh] refine must be 0..6 (got " << c.refine << ")");
    t.reject_unknown_keys();
    SS_REQUIRE(fs::is_regular_file(c.mesh_file), at(*t.node("file")) << ": mesh file '" << c.mesh_file << "' does not exist");
  }

  // [material]: plain keys for one material, or sub-tables per volume group — not both.
  if (const toml::node* material = top.node("material")) {
    const toml::table& table = as_table(*material, "material", at(*material));
    bool has_plain = false, has_groups = false;
    for (const auto& [key, node] : table) (node.is_table() ? has_groups : has_plain) = true;
    SS_REQUIRE(!(has_plain && has_groups),
               at(*material) << ": [material] mixes plain keys and [material.<group>] tables; use one or the other");
    if (has_groups) {
      for (const auto& [key, node] : table) {
        TableReader t(*node.as_table(), "[material." + std::string(key.str()) + "]", path);
        c.materials[std::string(key.str())] = read_material(t, at(node));
        c.material_lines[std::string(key.str())] = int(node.source().begin.line);
      }
    } else {
      TableReader t(table, "[material]", path);
      c.material = read_material(t, at(*material));
    }
  }
  if (!c.material && c.materials.empty()) c.material = Material{};

  // [[boundary]]
  if (const toml::node* boundary = top.node("boundary")) {
    const toml::array* list = boundary->as_array();
    SS_REQUIRE(list, at(*boundary) << ": boundaries are written as [[boundary]] tables");
    for (const toml::node& entry : *list) {
      TableReader t(as_table(entry, "boundary", at(entry)), "[[boundary]]", path);
      BoundaryCondition bc;
      bc.line = int(entry.source().begin.line);
      const toml::node* group = t.node("group");
      SS_REQUIRE(group, at(entry) << ": [[boundary]] needs group = \"name\" or a group number");
      if (auto name = group->value_exact<std::string>()) bc.group = *name;
      else if (auto id = group->value_exact<std::int64_t>()) bc.group = std::to_string(*id);
      else SS_THROW(at(*group) << ": [[boundary]] group must be a name or a number");
      const std::string type = t.text("type", "");
      if (type == "dirichlet") bc.type = BoundaryCondition::Type::dirichlet;
      else if (type == "neumann") bc.type = BoundaryCondition::Type::neumann;
      else SS_THROW(at(entry) << ": [[boundary]] type must be \"dirichlet\" or \"neumann\" (got \"" << type << "\")");
      const auto value = t.get<double>("value", "a number");
      SS_REQUIRE(value, at(entry) << ": [[boundary]] for group " << bc.group << " needs value = ...");
      SS_REQUIRE(std::isfinite(*value), at(entry) << ": [[boundary]] value must be finite");
      bc.value = *value;
      t.reject_unknown_keys();
      for (const BoundaryCondition& other : c.boundaries)
        SS_REQUIRE(other.group != bc.group, at(entry) << ": group " << bc.group << " already has a boundary condition (line "
                                                      << other.line << ")");
      c.boundaries.push_back(bc);
    }
  }

  // [solver]
  if (const toml::node* solver = top.node("solver")) {
    TableReader t(as_table(*solver, "solver", at(*solver)), "[solver]", path);
    c.tolerance = t.number("tolerance", c.tolerance);
    SS_REQUIRE(c.tolerance > 0.0 && c.tolerance < 1.0, at(*solver) << ": [solver] tolerance must be in (0, 1)");
    c.max_iterations = t.integer("max_iterations", c.max_iterations);
    SS_REQUIRE(c.max_iterations >= 1, at(*solver) << ": [solver] max_iterations must be >= 1");
    const std::string pre = t.text("preconditioner", "jacobi");
    SS_REQUIRE(pre == "jacobi" || pre == "none", at(*solver) << ": [solver] preconditioner must be \"jacobi\" or \"none\"");
    c.jacobi = pre == "jacobi";
    c.variant = t.text("variant", c.variant);
    SS_REQUIRE(c.variant == "textbook" || c.variant == "single_sync",
               at(*solver) << ": [solver] variant must be \"textbook\" or \"single_sync\"");
    const std::string precision = t.text("precision", "mixed");
    SS_REQUIRE(precision == "mixed" || precision == "float",
               at(*solver) << ": [solver] precision must be \"mixed\" or \"float\"");
    c.mixed = precision == "mixed";
    c.inner_tolerance = t.number("inner_tolerance", c.inner_tolerance);
    SS_REQUIRE(c.inner_tolerance > 0.0 && c.inner_tolerance < 1.0,
               at(*solver) << ": [solver] inner_tolerance must be in (0, 1)");
    t.reject_unknown_keys();
  }

  // [time]
  if (const toml::node* time = top.node("time")) {
    TableReader t(as_table(*time, "time", at(*time)), "[time]", path);
    TimeSettings s;
    const auto dt = t.get<double>("dt", "a number");
    const auto steps = t.get<int>("steps", "an integer");
    SS_REQUIRE(dt && steps, at(*time) << ": [time] needs dt and steps");
    s.dt = *dt;
    s.steps = *steps;
    require_positive(s.dt, "[time] dt", at(*time));
    SS_REQUIRE(s.steps >= 1, at(*time) << ": [time] steps must be >= 1");
    s.theta = t.number("theta", s.theta);
    SS_REQUIRE(s.theta >= 0.5 && s.theta <= 1.0, at(*time) << ": [time] theta must be in [0.5, 1] (unconditionally stable)");
    s.initial = t.number("initial", s.initial);
    t.reject_unknown_keys();
    c.time = s;
  }

  // [output]
  c.output_directory = relative("out");
  if (const toml::node* output = top.node("output")) {
    TableReader t(as_table(*output, "output", at(*output)), "[output]", path);
    c.output_directory = relative(t.text("directory", "out"));
    c.output_every = t.integer("every", c.output_every);
    SS_REQUIRE(c.output_every >= 1, at(*output) << ": [output] every must be >= 1");
    t.reject_unknown_keys();
  }
  top.reject_unknown_keys();
  // A steady problem with only Neumann or insulated boundaries has no unique solution.
  const bool has_dirichlet = std::any_of(c.boundaries.begin(), c.boundaries.end(), [](const BoundaryCondition& b) {
    return b.type == BoundaryCondition::Type::dirichlet;
  });
  SS_REQUIRE(c.time || has_dirichlet, path << ": a steady case needs at least one [[boundary]] with type = \"dirichlet\" "
                                                 "(otherwise the temperature is fixed only up to a constant)");
  return c;
}

HeatCase read_heat_case(const std::string& path) {
  std::ifstream in(path);
  SS_REQUIRE(in, "cannot open case file '" << path << "'");
  std::ostringstream text;
  text << in.rdbuf();
  return parse_heat_case(text.str(), path);
}

}  // namespace ss
