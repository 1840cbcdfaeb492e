#pragma once
// The host side of the multigrid preconditioner (built once per system a·M + s·K̃, in double):
// the level list from the finest mesh down, the transfers, the smoother's eigenvalue bounds and
// the factorised coarsest operator. src/multigrid/multigrid.hpp runs the V-cycle on a backend.
//
// Levels, finest first:
//   - the finest mesh: the caller's heat operator (the one CG applies);
//   - coarser geometric levels (the meshes of a uniform refinement, mesh_hierarchy.hpp), each its
//     own rediscretised heat operator with its own fixed nodes (the nodes of the same boundary
//     groups); P = P1 interpolation (edge midpoints), R = Pᵀ, fixed coarse columns and fixed fine
//     rows dropped, so that Pᵀ K̃_fine P + I_fixed = K̃_coarse (tests/multigrid);
//   - below the base mesh (or below an unrefined mesh): smoothed aggregation on the explicit
//     matrix, A_c = Pᵀ A P, P = (I − ω D⁻¹A) P_tent, fixed nodes (identity rows) left out;
//   - the coarsest (at most `coarse_size` unknowns): a Cholesky factorisation (CHOLMOD).
// The algebraic setup (setup_algebraic_multigrid) starts from any SPD matrix instead of the heat
// system: that matrix is the finest level (applied by the caller's operator or as itself), then —
// for a matrix over a refined mesh's cells — the refinement's families (refinement_families), then
// aggregation levels and the coarsest as above; with the constants as null space (the flow
// pressure operator without an outlet) the coarsest is factorised with one unknown pinned.
#include <algorithm>
#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "mesh/mesh_hierarchy.hpp"
#include "multigrid/galerkin.hpp"
#include "operators/eigen_estimate.hpp"
#include "operators/heat_operator.hpp"

namespace ss {

struct MultigridOptions {
  int smoother_degree = 2;            // Chebyshev polynomial degree, the same before and after
  double smoother_upper = 1.1;        // interval [λ/ratio, upper·λ], λ = Lanczos estimate of λmax(D⁻¹A)
  double smoother_ratio = 10.0;       //   (lower end λ·upper/ratio)
  int lanczos_steps = 12;             // CG-Lanczos steps of the estimate
  std::int32_t coarse_size = 2000;    // solve directly at or below this many unknowns
  int max_levels = 30;
  // The coarsest level's solve as its dense inverse applied on the backend (one sparse product,
  // no read-back), instead of the direct solve on the host, when it has at most this many unknowns
  // (0: always on the host). The inverse is made once, from the direct solve of the unit vectors.
  std::int32_t coarsest_inverse_on_backend = 0;
  double strength_threshold = 0.08;   // aggregation: |a_ij| >= θ sqrt(a_ii a_jj)
  // Algebraic setup of a matrix over the cells of a uniformly refined mesh, whose refinement numbers
  // cell c's children 8c .. 8c + 7 (refine_once; the MPI pieces' global ids alike): the first
  // `refinement_families` levels below the finest aggregate the refinement's families — R sums a
  // cell's eight children, A_c = R A Rᵀ, P = α Rᵀ — then smoothed aggregation. Galerkin of piecewise
  // constants is about twice the operator rediscretised on the coarser cells (a coarse face is four
  // fine faces), so the coarse correction comes out short: α = family_over_correction over-corrects it.
  int refinement_families = 0;
  double family_over_correction = 1.6;
  // Over MPI ranks (distributed_pressure_multigrid.hpp): the levels below the finest stop at the
  // first whose whole mesh has at most this many unknowns, which is gathered onto every rank and
  // solved there by this multigrid (its own levels below it). A level over the ranks costs a halo
  // round trip per smoothing step and residual, latency that a small level's work cannot hide; the
  // gather costs one all-gather of the level per V-cycle.
  std::int32_t gather_size = 300'000;
};

// `o` with its coarsest solve on the backend: coarsening goes on down to at most `dense` unknowns,
// whose solve is their dense inverse applied as one sparse product (no read-back inside the cycle,
// where a host solve drains the device each V-cycle; at most dense² entries, made at set-up from as
// many direct solves). A hierarchy that stops above `dense` (max_levels) keeps the host solve.
inline MultigridOptions with_dense_coarsest(MultigridOptions o, std::int32_t dense = 500) {
  o.coarse_size = std::min(o.coarse_size, dense);
  o.coarsest_inverse_on_backend = o.coarse_size;
  return o;
}

// The geometric levels below the finest mesh, coarse first (level K = the finest is the caller's
// operator): light operator tables (neighbour CSR, diagonal, mass) and fixed nodes per level.
struct GeometricLevels {
  std::vector<HeatOperatorData> operators;            // levels 0 .. K−1
  std::vector<std::vector<std::int32_t>> fixed_nodes;  // levels 0 .. K−1
  std::vector<LevelMap> maps;                          // maps[l]: level l -> l + 1 (maps.back() onto the finest)
};

// Drops what the V-cycle does not need (cell tables, node→cells), keeping offsets, neighbours,
// coefficients, diagonal and mass.
HeatOperatorData light_heat_operator(HeatOperatorData data);

// P from `map` (fine × coarse, weights 1 or ½), without fixed coarse columns and fixed fine rows.
SparseMatrix prolongation_from_map(const LevelMap& map, const std::vector<double>& coarse_fixed,
                                   const std::vector<double>& fine_fixed);

// Smoothed aggregation of one level: aggregates of strongly connected unknowns (rows holding only
// their diagonal are left out: P has empty rows there), tentative P = aggregate indicator,
// P = (I − ω D⁻¹ A) P_tent with ω = 4 / (3 λmax(D⁻¹A)).
SparseMatrix smoothed_aggregation(const SparseMatrix& a, double lambda_max, double strength_threshold,
                                  std::int32_t* aggregates = nullptr);

// R of the refinement's families: (fine / 8) × fine, 1 at (C, c) for c = 8C .. 8C + 7.
SparseMatrix family_restriction(std::int32_t fine);

// Cholesky factorisation of a sparse SPD matrix (CHOLMOD), solved once per V-cycle.
class DirectSolver {
public:
  explicit DirectSolver(const SparseMatrix& a);
  ~DirectSolver();
  DirectSolver(const DirectSolver&) = delete;
  DirectSolver& operator=(const DirectSolver&) = delete;
  std::vector<double> solve(const std::vector<double>& b) const;
  std::int32_t size() const { return n_; }
  double factor_nonzeros() const { return factor_nonzeros_; }

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::int32_t n_ = 0;
  double factor_nonzeros_ = 0;
};

struct HostLevel {
  enum class Kind { fine, geometric, families, algebraic };
  Kind kind = Kind::fine;
  std::int32_t size = 0;
  int geometric_level = -1;            // Kind::geometric: index into GeometricLevels
  std::vector<std::int32_t> fixed_nodes;  // Kind::geometric
  SparseMatrix matrix;                 // Kind::families and ::algebraic; Kind::fine of an algebraic setup
  std::vector<double> inverse_diagonal;
  double lambda_max = 0;               // of D⁻¹A (not on the coarsest)
  SparseMatrix prolongation;           // from the next coarser level onto this one (not on the coarsest)
  SparseMatrix restriction;            // its transpose
};

struct MultigridSetup {
  std::vector<HostLevel> levels;       // 0 = finest
  std::shared_ptr<DirectSolver> coarse;  // for levels.back()
  bool constant_null_space = false;    // the operators are singular with the constants as null space
  double seconds = 0;
  // x = A_coarsest⁻¹ b; with a constant null space: the solution with unknown 0 pinned to 0 (b_0
  // ignored), then its mean removed — a symmetric positive semi-definite map, exact for b ⊥ 1.
  std::vector<double> solve_coarsest(std::vector<double> b) const;
  std::string describe() const;        // "7190977 (fine) > 927585 (geometric) > ... > 812 (direct)"
};

// fine: the finest operator's tables and elimination (the caller's operator: data(), dirichlet()).
MultigridSetup setup_multigrid(const HeatOperatorData& fine, const HeatDirichletData& fine_dirichlet,
                               const GeometricLevels* geometric, double a, double s, const MultigridOptions& options);

// The finest level as its smoother sees it, for a finest operator the host does not hold (the
// level made on the GPU from level K − 1, operators/gpu_refined_heat.hpp): 1 at its fixed nodes,
// the system's inverse diagonal (1 at fixed nodes) and λmax(D⁻¹A).
struct FinestSmoother {
  std::vector<double> fixed, inverse_diagonal;
  double lambda_max = 0;
};

// The levels below such a finest level: every level of `geometric` (operators 0 .. K − 1,
// maps.back() onto the finest) while above coarse_size, level K − 1 always, then aggregation and
// the coarsest as setup_multigrid.
MultigridSetup setup_multigrid_below_finest(const FinestSmoother& fine, const GeometricLevels& geometric, double a,
                                            double s, const MultigridOptions& options);

// Algebraic multigrid of any SPD matrix `a` (or, constant_null_space, symmetric positive
// semi-definite with exactly the constants as null space): `a` is the finest level, the
// refinement's families (options.refinement_families) and smoothed aggregation below it, CHOLMOD
// at the bottom (with one unknown pinned when singular).
MultigridSetup setup_algebraic_multigrid(const SparseMatrix& a, bool constant_null_space, const MultigridOptions& options);

// A family of systems A(ρ) = A_0 + ρ A_1 on one algebraic hierarchy (made from any member): with its
// transfers kept, level l's matrix is R_l … R_0 A(ρ) R_0ᵀ … R_lᵀ, the same combination of the two
// parts' Galerkin products, so another ρ recombines the levels instead of aggregating again. The
// V-cycle stays symmetric and its coarse operators Galerkin: another member costs iterations only
// where the transfers made for the first fit it worse.
// The levels' parts of a `setup` made for A_0 (setup_algebraic_multigrid, not yet recombined): part 0
// of each level is its own matrix, part 1 is `a1` on level 0 and R (part 1 above) Rᵀ below, with
// the level above's restriction; the two parts of a level on the same entries (their union, zeros kept).
std::vector<std::array<SparseMatrix, 2>> galerkin_parts(const MultigridSetup& setup, SparseMatrix a1);
// Every level's matrix made A(ρ)'s from `parts` (galerkin_parts of this setup), its inverse
// diagonal and λmax(D⁻¹A) made anew, and the coarsest factorised again.
void recombine_algebraic_multigrid(MultigridSetup& setup, const std::vector<std::array<SparseMatrix, 2>>& parts,
                                   double rho, const MultigridOptions& options);

}  // namespace ss
