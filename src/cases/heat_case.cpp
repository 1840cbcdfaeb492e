#include "cases/heat_case.hpp"

#include <algorithm>

#include "cases/case_reading.hpp"
#include "util/error.hpp"

namespace ss {
namespace {

// Heat's data do not change in time: a formula in t is a mistake, named at its line.
void require_steady_in_time(const Expression& e, TableReader& t, const std::string& key) {
  SS_REQUIRE(!e.uses_time(), t.where_key(key) << ": " << t.name() << " " << key << " = \"" << e.text()
                                              << "\" uses t; heat's source, boundary values and initial temperature "
                                                 "are expressions in x, y, z only");
}

Material read_material(TableReader& t) {
  Material m;
  m.line = CaseFile::line_of(t.table());
  m.conductivity = t.number("conductivity", m.conductivity);
  m.heat_capacity = t.number("heat_capacity", m.heat_capacity);
  m.source = t.expression("source", m.source);
  t.require_positive("conductivity", m.conductivity);
  t.require_positive("heat_capacity", m.heat_capacity);
  require_steady_in_time(m.source, t, "source");
  t.reject_unknown_keys();
  return m;
}

HeatCase heat_case_from(const CaseFile& file) {
  const std::string& path = file.path();
  HeatCase c;
  c.path = path;
  TableReader top(file, file.root(), "the case file");

  const MeshSettings mesh = read_mesh_table(top);
  c.mesh_file = mesh.file;
  c.refine = mesh.refine;
  c.surfaces = mesh.surfaces;
  c.periodic = mesh.periodic;

  // [material]: plain keys for one material, or sub-tables per volume group — not both.
  if (const toml::node* material = top.node("material")) {
    const toml::table& table = as_table(*material, "material", file.at(*material));
    bool has_plain = false, has_groups = false;
    for (const auto& [key, node] : table) (node.is_table() ? has_groups : has_plain) = true;
    SS_REQUIRE(!(has_plain && has_groups),
               file.at(*material) << ": [material] mixes plain keys and [material.<group>] tables; use one or the other");
    if (has_groups) {
      for (const auto& [key, node] : table) {
        TableReader t(file, *node.as_table(), "[material." + std::string(key.str()) + "]");
        c.materials[std::string(key.str())] = read_material(t);
        c.material_lines[std::string(key.str())] = CaseFile::line_of(node);
      }
    } else {
      TableReader t(file, table, "[material]");
      c.material = read_material(t);
    }
  }
  if (!c.material && c.materials.empty()) c.material = Material{};

  // [[boundary]]
  if (const toml::node* boundary = top.node("boundary")) {
    const toml::array* list = boundary->as_array();
    SS_REQUIRE(list, file.at(*boundary) << ": boundaries are written as [[boundary]] tables");
    for (const toml::node& entry : *list) {
      TableReader t(file, as_table(entry, "boundary", file.at(entry)), "[[boundary]]");
      BoundaryCondition bc;
      bc.line = CaseFile::line_of(entry);
      bc.group = read_group(t);
      bc.type = t.choice("type", "", {"dirichlet", "neumann"}) == "dirichlet" ? BoundaryCondition::Type::dirichlet
                                                                             : BoundaryCondition::Type::neumann;
      const std::optional<Expression> value = t.get_expression("value");
      SS_REQUIRE(value, file.at(entry) << ": [[boundary]] for group " << bc.group << " needs value = ...");
      require_steady_in_time(*value, t, "value");
      bc.value = *value;
      t.reject_unknown_keys();
      for (const BoundaryCondition& other : c.boundaries)
        SS_REQUIRE(other.group != bc.group, file.at(entry) << ": group " << bc.group
                                                           << " already has a boundary condition (line " << other.line
                                                           << ")");
      c.boundaries.push_back(bc);
    }
  }

  read_table(top, "solver", "solver", [&](TableReader& t) {
    c.tolerance = t.number("tolerance", c.tolerance);
    SS_REQUIRE(c.tolerance > 0.0 && c.tolerance < 1.0, t.where_key("tolerance") << ": [solver] tolerance must be in (0, 1)");
    c.max_iterations = t.integer("max_iterations", c.max_iterations);
    t.require_at_least("max_iterations", c.max_iterations, 1);
    const std::string preconditioner = t.choice("preconditioner", "multigrid", {"jacobi", "multigrid", "none"});
    c.jacobi = preconditioner == "jacobi";
    c.multigrid = preconditioner == "multigrid";
    c.variant = t.choice("variant", c.variant, {"textbook", "single_sync", "pipelined"});
    c.mixed = t.choice("precision", "mixed", {"mixed", "float"}) == "mixed";
    c.inner_tolerance = t.number("inner_tolerance", c.inner_tolerance);
    SS_REQUIRE(c.inner_tolerance > 0.0 && c.inner_tolerance < 1.0,
               t.where_key("inner_tolerance") << ": [solver] inner_tolerance must be in (0, 1)");
  });

  read_table(top, "time", "time", [&](TableReader& t) {
    HeatTime s;
    const auto dt = t.get_number("dt");
    const auto steps = t.get_integer("steps");
    SS_REQUIRE(dt && steps, file.at(t.table()) << ": [time] needs dt and steps");
    s.dt = *dt;
    s.steps = *steps;
    t.require_positive("dt", s.dt);
    t.require_at_least("steps", s.steps, 1);
    s.theta = t.number("theta", s.theta);
    t.require_in("theta", s.theta, 0.5, 1.0, "unconditionally stable");
    s.initial = t.expression("initial", s.initial);
    require_steady_in_time(s.initial, t, "initial");
    c.time = s;
  });

  const OutputSettings output = read_output_table(top, c.output_every);
  c.output_directory = output.directory;
  c.output_every = output.every;
  top.reject_unknown_keys();

  // A steady problem with only Neumann or insulated boundaries has no unique solution.
  const bool has_dirichlet = std::any_of(c.boundaries.begin(), c.boundaries.end(), [](const BoundaryCondition& b) {
    return b.type == BoundaryCondition::Type::dirichlet;
  });
  SS_REQUIRE(c.time || has_dirichlet, path << ": a steady case needs at least one [[boundary]] with type = \"dirichlet\" "
                                                 "(otherwise the temperature is fixed only up to a constant)");
  return c;
}

}  // namespace

HeatCase parse_heat_case(const std::string& text, const std::string& path) {
  return heat_case_from(CaseFile(text, path));
}

HeatCase read_heat_case(const std::string& path) { return heat_case_from(CaseFile::read(path)); }

}  // namespace ss
