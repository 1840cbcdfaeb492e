#pragma once
// The heat case file (TOML): what a user writes to run `streamsolve heat CASE.toml`.
//
//   [mesh]      file = "crank.msh" (relative to the case file), refine = 0, [[mesh.surface]] and
//               [[mesh.periodic]] entries
//   [material]  conductivity, heat_capacity, source        — or [material.<volume group>] tables
//   [[boundary]] group = "left" | 3, type = "dirichlet" | "neumann", value = ...
//   [solver]    tolerance = 1e-6, max_iterations = 20000, preconditioner = "multigrid" | "jacobi" | "none",
//               variant = "single_sync" | "textbook" | "pipelined", precision = "mixed" | "float",
//               inner_tolerance = 1e-5
//   [time]      dt, steps, theta = 1.0, initial = 0.0      — absent: steady
//   [output]    directory = "out", every = 10
//
// source, value and initial are a number or an expression in x, y, z (src/cases/expression.hpp);
// heat's data do not depend on time, so an expression using t is an error.
//
// Every mistake (unknown key, wrong type, bad value or expression, missing mesh file) is one
// ss::Error naming the case file and line, raised before any work starts (src/cases/case_reading.hpp).
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "mesh/boundary_surface.hpp"
#include "mesh/periodic.hpp"
#include "cases/expression.hpp"

namespace ss {

struct Material {
  double conductivity = 1.0;   // k
  double heat_capacity = 1.0;  // ρ·c
  Expression source = 0.0;     // S(x, y, z), per unit volume; evaluated at cell centroids
  int line = 0;                // where it was written, for messages (0: the default material)
};

struct BoundaryCondition {
  enum class Type { dirichlet, neumann };
  std::string group;           // as written: a name, or a number in decimal
  Type type = Type::dirichlet;
  // Temperature (dirichlet; evaluated at the nodes) or heat flux into the body (neumann; evaluated at
  // each boundary triangle's centroid), in x, y, z.
  Expression value = 0.0;
  int line = 0;                // where it was written, for messages
};

// The θ-scheme, all the time loop needs (plain numbers: the MPI path sends it as bytes).
struct TimeSettings {
  double dt = 0.0;
  int steps = 0;
  double theta = 1.0;          // 1: implicit Euler, 0.5: Crank–Nicolson
};

// [time] of a case file: the scheme and the initial temperature T⁰(x, y, z), evaluated at the nodes.
struct HeatTime : TimeSettings {
  Expression initial = 0.0;
};

struct HeatCase {
  std::string path;                     // the case file
  std::string mesh_file;                // resolved against the case file's folder
  int refine = 0;
  std::vector<BoundarySurface> surfaces;  // [[mesh.surface]]: what refinement projects boundary nodes onto
  std::vector<PeriodicPair> periodic;     // [[mesh.periodic]]: pairs of boundary groups joined
  std::optional<Material> material;     // [material] with plain keys: one material for all
  std::map<std::string, Material> materials;  // [material.<group>]: per volume group (name or number)
  std::map<std::string, int> material_lines;
  std::vector<BoundaryCondition> boundaries;
  double tolerance = 1e-6;
  int max_iterations = 20000;
  bool jacobi = false;                  // preconditioner = "jacobi"
  bool multigrid = true;                // preconditioner = "multigrid" (the default; jacobi is then false)
  std::string variant = "single_sync";  // CG variant (solver/cg.hpp)
  bool mixed = true;                    // precision = "mixed": tolerance on the true residual
  double inner_tolerance = 1e-5;        // each correction's relative reduction (mixed)
  std::optional<HeatTime> time;         // absent: steady
  std::string output_directory = "out"; // resolved against the case file's folder
  int output_every = 10;
};

HeatCase read_heat_case(const std::string& path);
// The same from text (tests); `path` names it in messages and anchors relative paths.
HeatCase parse_heat_case(const std::string& text, const std::string& path);

}  // namespace ss
