#pragma once
// The heat case file (TOML): what a user writes to run `streamsolve heat CASE.toml`.
//
//   [mesh]      file = "crank.msh" (relative to the case file), refine = 0
//   [material]  conductivity, heat_capacity, source        — or [material.<volume group>] tables
//   [[boundary]] group = "left" | 3, type = "dirichlet" | "neumann", value = ...
//   [solver]    tolerance = 1e-6, max_iterations = 20000, preconditioner = "jacobi" | "none",
//               variant = "single_sync" | "textbook", precision = "mixed" | "float",
//               inner_tolerance = 1e-5
//   [time]      dt, steps, theta = 1.0, initial = 0.0      — absent: steady
//   [output]    directory = "out", every = 10
//
// Every mistake (unknown key, wrong type, bad value, missing mesh file) is one ss::Error naming the
// case file and line, raised before any work starts.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ss {

struct Material {
  double conductivity = 1.0;   // k
  double heat_capacity = 1.0;  // ρ·c
  double source = 0.0;         // S, per unit volume
};

struct BoundaryCondition {
  enum class Type { dirichlet, neumann };
  std::string group;           // as written: a name, or a number in decimal
  Type type = Type::dirichlet;
  double value = 0.0;          // temperature (dirichlet) or heat flux into the body (neumann)
  int line = 0;                // where it was written, for messages
};

struct TimeSettings {
  double dt = 0.0;
  int steps = 0;
  double theta = 1.0;          // 1: implicit Euler, 0.5: Crank–Nicolson
  double initial = 0.0;        // initial temperature everywhere
};

struct HeatCase {
  std::string path;                     // the case file
  std::string mesh_file;                // resolved against the case file's folder
  int refine = 0;
  std::optional<Material> material;     // [material] with plain keys: one material for all
  std::map<std::string, Material> materials;  // [material.<group>]: per volume group (name or number)
  std::map<std::string, int> material_lines;
  std::vector<BoundaryCondition> boundaries;
  double tolerance = 1e-6;
  int max_iterations = 20000;
  bool jacobi = true;
  std::string variant = "single_sync";  // CG variant (solver/cg.hpp)
  bool mixed = true;                    // precision = "mixed": tolerance on the true residual
  double inner_tolerance = 1e-5;        // each correction's relative reduction (mixed)
  std::optional<TimeSettings> time;
  std::string output_directory = "out"; // resolved against the case file's folder
  int output_every = 10;
};

HeatCase read_heat_case(const std::string& path);
// The same from text (tests); `path` names it in messages and anchors relative paths.
HeatCase parse_heat_case(const std::string& text, const std::string& path);

}  // namespace ss
