#pragma once
// A heat problem in numbers: per-cell materials, the nodal load, fixed nodes — everything the solver
// needs, in double on the host, built from a case file and a mesh (or directly, in tests).
//
// Discretization (thesis §6.1, node-based median dual): T at nodes; node i owns its median-dual
// cell, a quarter of each tet around it. With K the conduction operator (src/operators/
// heat_operator.hpp) and M the lumped heat capacity,
//   steady:     K T = b
//   transient:  (M/Δt + θK) Tⁿ⁺¹ = (M/Δt − (1−θ)K) Tⁿ + b          (θ-scheme)
//   b_i  = Σ_{tets c ∋ i} S_c V_c / 4  +  Σ_{Neumann triangles t ∋ i} q_t A_t / 3
//   M_ii = Σ_{tets c ∋ i} (ρc)_c V_c / 4
// Dirichlet nodes are eliminated symmetrically (the operator's apply_system / dirichlet_rhs).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "mesh/load_mesh.hpp"
#include "mesh/mesh_groups.hpp"  // resolve_volume_group, resolve_surface_group
#include "mesh/refine.hpp"
#include "operators/heat_operator.hpp"
#include "cases/heat_case.hpp"
#include "solver/cg.hpp"

namespace ss {

struct HeatProblem {
  std::vector<double> conductivity;      // k per cell
  std::vector<double> heat_capacity;     // ρc per cell
  std::vector<double> load;              // b per node
  std::vector<std::int32_t> dirichlet_nodes;   // ascending, unique
  std::vector<double> dirichlet_values;        // per dirichlet node
  std::optional<TimeSettings> time;      // absent: steady
  std::vector<double> initial;           // T⁰ per node (transient); empty: 0 everywhere
  double tolerance = 1e-6;
  int max_iterations = 20000;
  bool jacobi = true;
  bool multigrid = false;  // the caller supplies the multigrid preconditioner (needs the mesh levels)
  bool mixed = true;               // [solver] precision = "mixed" | "float"
  double inner_tolerance = 1e-5;
  CgVariant variant = CgVariant::single_sync;
};

// Resolves the case's groups against the mesh (names or numbers; an unknown group is an error
// naming the case file line and listing the mesh's groups) and assembles materials and loads.
// A node on two Dirichlet groups takes the value of the one listed first in the case file.
// Expressions are evaluated where the discretization needs them: Dirichlet values and T⁰ at the
// nodes, Neumann fluxes at boundary triangle centroids, sources at cell centroids; a value that is
// not finite there (e.g. "1/x" at x = 0) is an error naming the case line and the point.
// On a rank's piece of a mesh, `whole` lists the whole mesh's groups (a piece may lack some); the
// values of the piece's owned nodes are exact (their every tet and boundary face is local).
HeatProblem build_heat_problem(const HeatCase& heat_case, const LoadedMesh& mesh, const PresentGroups* whole = nullptr);

// The heat problem of level K = one refinement of `coarse` (level K − 1, load_mesh's tables: the
// edges, the boundary faces with their groups; and its geometry), made without level K's mesh:
// build_heat_problem on refine_once(coarse, numbering) gives the same, except that conductivity and
// heat_capacity stay one per coarse cell (each child has its parent's). The loads, fixed nodes and
// initial values are per fine node, from the fine nodes' coordinates (midpoints in double, as
// refine_once) and the children's centroids, volumes, boundary triangles.
// The case's groups are resolved against the coarse mesh (the same groups).
HeatProblem build_refined_heat_problem(const HeatCase& heat_case, const LoadedMesh& coarse,
                                       RefineNumbering numbering = RefineNumbering::interleaved);

// Shared by the two builders: e(p), which must be finite ("<where>: <what> = "<text>" is <v> at
// (x, y, z)" otherwise); the case's materials (the one [material], or each [material.<group>]); a
// problem with the case's solver and time settings only; each cell's material (an error names the
// first cell without one); the fixed nodes (ascending) and their values from per-node flags.
double evaluate_finite(const Expression& e, const glm::dvec3& p, const std::string& where, const char* what);
std::vector<const Material*> unique_materials(const HeatCase& c);
HeatProblem heat_problem_settings(const HeatCase& c);
std::vector<const Material*> cell_materials(const HeatCase& c, const LoadedMesh& m, const PresentGroups* whole);
void fix_dirichlet_nodes(const std::vector<char>& fixed, const std::vector<double>& fixed_value, HeatProblem& p);

// The conduction operator of the problem in double (K with its k per cell) and its lumped heat
// capacity M_ii = Σ_c (ρc)_c V_c / 4 in place of the plain dual volumes.
HeatOperatorData assemble_heat_system(const LoadedMesh& mesh, const HeatProblem& problem,
                                      HeatTables tables = HeatTables::cell_gradient);

// Adds q·A/3 to each vertex of every boundary face of `group` (heat flux q into the body, evaluated
// at the face's centroid; a plain number converts to a constant Expression).
void add_boundary_flux(const LoadedMesh& mesh, std::int32_t group, const Expression& q, std::vector<double>& load);
// Adds S_c·V_c/4 to each node of each cell.
void add_cell_source(const LoadedMesh& mesh, const std::vector<double>& source, std::vector<double>& load);

}  // namespace ss
