#pragma once
// Reading case files (TOML, toml++), shared by heat and flow: every mistake becomes one ss::Error
// "<case file>:<line>: <what>" raised before any work starts.
//
//   CaseFile file(text, path);                      // a TOML syntax error names its line
//   TableReader top(file, file.root(), "the case file");
//   const MeshSettings mesh = read_mesh_table(top); // [mesh] file (must exist), refine
//   ... TableReader t(file, as_table(*node, "time", file.at(*node)), "[time]"); t.number("dt", 0) ...
//   t.reject_unknown_keys();                        // a key nobody asked for is an error listing the known ones
//   top.reject_unknown_keys();
#include <functional>
#include <initializer_list>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <glm/vec3.hpp>
#include <toml++/toml.h>

#include "mesh/boundary_surface.hpp"
#include "mesh/periodic.hpp"
#include "cases/expression.hpp"

namespace ss {

// One parsed case file: its TOML tree, its path (for messages) and folder (for relative paths).
class CaseFile {
public:
  CaseFile(const std::string& text, const std::string& path);
  static CaseFile read(const std::string& path);  // "cannot open case file '...'" when unreadable

  const toml::table& root() const { return root_; }
  const std::string& path() const { return path_; }
  static int line_of(const toml::node& node) { return int(node.source().begin.line); }
  std::string at(const toml::node& node) const { return at_line(line_of(node)); }  // "file:line"
  std::string at_line(int line) const { return path_ + ":" + std::to_string(line); }
  // A path written in the case file: absolute as is, relative against the case file's folder (normalised).
  std::string resolve(const std::string& written) const;

private:
  std::string path_;
  toml::table root_;
};

// Reads typed values out of one TOML table (named `name` in messages, e.g. "[time]") and remembers
// which keys were asked for; reject_unknown_keys() then turns any other key into an error.
class TableReader {
public:
  TableReader(const CaseFile& file, const toml::table& table, std::string name)
      : file_(file), table_(table), name_(std::move(name)) {}

  const CaseFile& file() const { return file_; }
  const toml::table& table() const { return table_; }
  const std::string& name() const { return name_; }
  std::string where(const toml::node& node) const { return file_.at(node); }

  // The node of `key` (marked known), or null.
  const toml::node* node(const std::string& key);
  // Typed reads: absent -> nullopt / fallback; wrong type -> "<file:line>: <name>.<key> must be <type_name>".
  // An integer is accepted where a number is asked for.
  std::optional<double> get_number(const std::string& key, const char* type_name = "a number");
  std::optional<int> get_integer(const std::string& key, const char* type_name = "an integer");
  std::optional<std::string> get_text(const std::string& key, const char* type_name = "a string");
  std::optional<bool> get_boolean(const std::string& key, const char* type_name = "true or false");
  double number(const std::string& key, double fallback) { return get_number(key).value_or(fallback); }
  int integer(const std::string& key, int fallback) { return get_integer(key).value_or(fallback); }
  std::string text(const std::string& key, const std::string& fallback) { return get_text(key).value_or(fallback); }
  bool boolean(const std::string& key, bool fallback) { return get_boolean(key).value_or(fallback); }

  // Range checks on a key that was read: "<file:line of key (or table)>: <name> <key> must be ..."
  // (name and key as in "[time] dt"). `value` is what was read (or the default when absent).
  void require_positive(const std::string& key, double value);
  void require_at_least(const std::string& key, double value, double lowest);
  void require_in(const std::string& key, double value, double lowest, double highest, const char* why = nullptr);
  // One of the listed words (message: must be "a" | "b" | "c").
  std::string choice(const std::string& key, const std::string& fallback, std::initializer_list<const char*> words);

  // A number or a string formula in x, y, z, t; a bad formula names the key's line. A constant must be finite.
  std::optional<Expression> get_expression(const std::string& key);
  Expression expression(const std::string& key, const Expression& fallback) {
    return get_expression(key).value_or(fallback);
  }
  // An array of exactly 3 numbers or formulas.
  std::optional<VectorExpression> get_vector_expression(const std::string& key);
  // An array of exactly 3 numbers.
  std::optional<glm::dvec3> get_vector(const std::string& key);

  // The line of `key` when present, else of the table itself (for messages about the table).
  std::string where_key(const std::string& key) const;

  // After reading: any key nobody asked for is a typo or an unsupported option.
  void reject_unknown_keys() const;

private:
  std::string known_list() const;
  const CaseFile& file_;
  const toml::table& table_;
  std::string name_;
  std::set<std::string> known_;
};

// `node` as a table, or "<where>: <name> must be a table ([<name>])".
const toml::table& as_table(const toml::node& node, const std::string& name, const std::string& where);

// The sub-table `key` of `parent`, when present, read by `read` with a reader named "[<name>]" (name
// as "time" or "solver.pressure"), whose unknown keys are rejected afterwards. Returns whether it was there.
bool read_table(TableReader& parent, const std::string& key, const std::string& name,
                const std::function<void(TableReader&)>& read);

// [mesh] file = "..." (required; relative to the case file; must exist), refine = 0..6, and any
// number of [[mesh.surface]] entries: group = "name" (a boundary group of the mesh, checked when the
// mesh is loaded), type = "cylinder" (point, axis, radius) | "sphere" (center, radius) | "plane"
// (point, normal), each vector [x, y, z]. Refinement projects the group's new boundary nodes onto it.
// Up to three [[mesh.periodic]] entries: groups = ["first", "second"], offset = [x, y, z] (optional;
// x(second) = x(first) + offset, by default the difference of the groups' node centroids).
struct MeshSettings {
  std::string file;
  int refine = 0;
  std::vector<BoundarySurface> surfaces;
  std::vector<PeriodicPair> periodic;
};
MeshSettings read_mesh_table(TableReader& top);

// [output] directory = "out" (relative to the case file), every >= 1. `more` reads further keys of
// the table (flow's slice) before unknown keys are rejected.
struct OutputSettings {
  std::string directory;
  int every = 10;
};
OutputSettings read_output_table(TableReader& top, int default_every,
                                 const std::function<void(TableReader&)>& more = {});

// A [[boundary]] (or [[force]]) entry's group = "name" or a number, as written (numbers in decimal); required.
std::string read_group(TableReader& entry);

}  // namespace ss
