// The finest level's heat tables on the GPU from level K - 1 (operators/gpu_refined_heat.hpp)
// against the CPU twin, assemble_heat_operator on the host's refined mesh (*IsEquivalentToRef):
//  - the fine edges: the same set of node pairs, each once;
//  - K_ab within 1e-6 of the larger diagonal of its two rows (float face normals from fp64 point
//    differences, summed over up to ~10 children), the lumped heat capacity within 1e-6 of each
//    node's, K_ii within 1e-6 of Σ_j |K_ij|;
//  - the node graph: every row the host's (neighbour, edge) pairs, and K·T by heat_apply.glsl on the
//    GPU's tables within 1e-5 of K_ii max |T| of the host's in double;
//  - a steady and a transient heat solve on these tables (GpuRefinedHeatSystem) against the CPU
//    reference on the host's level, and a steady one with multigrid (refined_level_multigrid.hpp);
// on every project mesh (refine 0 -> 1, interleaved as load_mesh numbers it), a refined mesh, a
// structured box (exact ties between the octahedron's diagonals), awkward sizes (1, 2 and 13
// tets) in both numberings, with a conductivity and a heat capacity that differ from cell to cell
// (the twin: assemble_heat_system); both packings and both launch paths.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "support/gl_fixture.hpp"
#include "gpu_paths.hpp"
#include "mesh/box_mesh.hpp"
#include "mesh/load_mesh.hpp"
#include "mesh/mesh_hierarchy.hpp"
#include "multigrid/refined_level_multigrid.hpp"
#include "operators/gpu_refined_heat.hpp"
#include "operators/heat_operator.hpp"
#include "cases/heat_case.hpp"
#include "physics/heat_multigrid.hpp"
#include "problems/heat_problem.hpp"
#include "physics/heat_solver.hpp"
#include "support/project_mesh.hpp"
#include "util/error.hpp"

namespace ss::test {
namespace {

constexpr double kTolerance = 1e-6;
// K·T: a float sum of ~14 terms K_ij (T_j - T_i), each rounded: a few float roundings of K_ii max |T|.
constexpr double kApplyTolerance = 1e-5;

// A material value per coarse cell, first + step · (c mod 7), and its children's copy (children of
// coarse cell c are fine cells 8c .. 8c + 7).
std::vector<double> coarse_values(std::int32_t cells, double first, double step) {
  std::vector<double> v(static_cast<size_t>(cells));
  for (std::int32_t c = 0; c < cells; ++c) v[size_t(c)] = first + step * double(c % 7);
  return v;
}
std::vector<double> children_values(const std::vector<double>& coarse) {
  std::vector<double> v(coarse.size() * 8);
  for (size_t c = 0; c < v.size(); ++c) v[c] = coarse[c / 8];
  return v;
}

class GpuRefinedHeat : public GlTest, public ::testing::WithParamInterface<GpuPath> {
protected:
  GpuBackend gpu() { return make_gpu(GetParam().packing, GetParam().launch); }
  // One backend per test: its kernels compile once (a few seconds each on llvmpipe).
  GpuBackend& backend() {
    if (!backend_) {
      LayoutOptions layout;
      layout.packing = GetParam().packing;
      GpuOptions options;
      options.launch = GetParam().launch;
      backend_.emplace(shared_gl_context(), layout, options);
    }
    return *backend_;
  }
  void expect_equivalent(const LoadedMesh& coarse, const LoadedMesh& fine, RefineNumbering numbering, const std::string& what) {
    const std::vector<double> k = coarse_values(coarse.topology.num_cells, 0.5, 0.4);
    const std::vector<double> rho_c = coarse_values(coarse.topology.num_cells, 2.0, -0.25);
    HeatProblem problem;  // the children's materials, as build_heat_problem gives them
    problem.conductivity = children_values(k);
    problem.heat_capacity = children_values(rho_c);
    const HeatOperatorData reference = assemble_heat_system(fine, problem, HeatTables::operator_only);
    const RefinedHeatDifferences d =
        compare_with_reference(backend(), gpu_refine_heat_tables(backend(), coarse, k, rho_c, numbering), fine, reference);
    ASSERT_TRUE(d.sizes_match) << what;
    EXPECT_EQ(d.wrong_edges, 0) << what;
    EXPECT_LE(d.coefficients, kTolerance) << what;
    EXPECT_LE(d.mass, kTolerance) << what;
    EXPECT_EQ(d.wrong_rows, 0) << what;
    EXPECT_LE(d.diagonal, kTolerance) << what;
    EXPECT_LE(d.apply, kApplyTolerance) << what;
    std::printf("[ gpu heat tables ] %s: %d fine edges, coefficients %.2e, mass %.2e, diagonal %.2e, K·T %.2e\n",
                what.c_str(), fine.topology.num_edges, d.coefficients, d.mass, d.diagonal, d.apply);
  }
  // Renumbered as load_mesh does (interleaved), and in the file's order (coarse_first).
  void expect_equivalent_in_both_numberings(const TetMesh& mesh) {
    for (bool renumber : {true, false}) {
      LoadOptions coarse_options, fine_options;
      coarse_options.renumber = fine_options.renumber = renumber;
      fine_options.refine = 1;
      expect_equivalent(prepare_mesh(mesh, coarse_options), prepare_mesh(mesh, fine_options),
                        renumber ? RefineNumbering::interleaved : RefineNumbering::coarse_first,
                        mesh.source + (renumber ? "" : ", coarse_first"));
    }
  }

private:
  std::optional<GpuBackend> backend_;
};

TEST_P(GpuRefinedHeat, ProjectMeshesIsEquivalentToRef) {
  for (const char* file : {"cube.msh", "duct.msh", "cavity.msh", "crank.msh", "dfg_cylinder.msh"})
    expect_equivalent(project_mesh(file, 0), project_mesh(file, 1), RefineNumbering::interleaved, file);
}

TEST_P(GpuRefinedHeat, RefinedMeshIsEquivalentToRef) {
  expect_equivalent(project_mesh("duct.msh", 1), project_mesh("duct.msh", 2), RefineNumbering::interleaved,
                    "duct refine 1 -> 2");
}

TEST_P(GpuRefinedHeat, StructuredBoxWithTiedDiagonalsIsEquivalentToRef) {
  TetMesh box = make_box_mesh(3, 4, 5, glm::dvec3(1.0, 0.7, 1.3));
  box.source = "box 3x4x5";
  expect_equivalent_in_both_numberings(box);
}

// Awkward sizes: 1 tet (10 fine nodes, 25 fine edges), 2 tets, 13 tets (a prime): a fan of tets
// (0, 1, k + 2, k + 3) around the edge (0, 1), its ring at random radii and heights (the fan spans
// less than a full turn, so no two tets overlap).
TEST_P(GpuRefinedHeat, AwkwardSizesAreEquivalentToRef) {
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> radius(0.5, 2.0), height(0.2, 0.8), wobble(-0.05, 0.05);
  for (int tets : {1, 2, 13}) {
    TetMesh mesh;
    mesh.source = "random fan of " + std::to_string(tets) + " tets";
    mesh.nodes = {{wobble(rng), wobble(rng), 0.0}, {wobble(rng), wobble(rng), 1.0}};
    for (int i = 0; i <= tets; ++i) {
      const double angle = 5.5 * i / (tets + 1), r = radius(rng);
      mesh.nodes.push_back({r * std::cos(angle), r * std::sin(angle), height(rng)});
    }
    for (int k = 0; k < tets; ++k) mesh.tets.push_back({0, 1, k + 2, k + 3});
    mesh.tet_groups.assign(mesh.tets.size(), 1);
    expect_equivalent_in_both_numberings(mesh);
  }
}

// A heat solve on the GPU-made level (GpuRefinedHeatSystem in solve_heat_system) against the CPU
// reference on the host's level (build_heat_problem, assemble_heat_system, CpuHeatOperator in
// double): the crankshaft held at 20 and 100 on its journals (steady), and the unit cube from 0 with
// its left wall at 1 (θ = 1/2, ρc = 2, 5 steps), each refined once, Jacobi CG to 1e-8. Within 1e-6
// of the range of T: the float K differs from the double one by ~1e-7.
TEST_P(GpuRefinedHeat, HeatSolvesMatchTheHostLevel) {
  for (const char* name : {"meshes/crank_heat.toml", "tests/distributed/cube_transient.toml"}) {
    const HeatCase c = read_heat_case(std::string(SS_SOURCE_DIR) + "/" + name);
    const std::string file = std::filesystem::path(c.mesh_file).filename().string();
    const LoadedMesh& coarse = project_mesh(file, 0);
    const LoadedMesh& fine = project_mesh(file, 1);
    HeatProblem problem = build_heat_problem(c, fine);
    problem.multigrid = false;
    problem.jacobi = true;
    problem.tolerance = 1e-8;
    // 1. The CPU reference on the host's level.
    CpuBackend cpu;
    CpuHeatOperator op(std::make_shared<const HeatOperatorData>(assemble_heat_system(fine, problem, HeatTables::operator_only)),
                       problem.dirichlet_nodes);
    HeatSolveReport cpu_report;
    const std::vector<double> reference = solve_heat(cpu, op, problem, cpu_report);
    // 2. The GPU-made level: the materials per coarse cell (each child has its parent's).
    std::vector<double> k(size_t(coarse.topology.num_cells)), rho_c(k.size());
    for (size_t cell = 0; cell < k.size(); ++cell) {
      k[cell] = problem.conductivity[8 * cell];
      rho_c[cell] = problem.heat_capacity[8 * cell];
    }
    const GpuRefinedHeatTables tables = gpu_refine_heat_tables(backend(), coarse, k, rho_c);
    GpuRefinedHeatSystem system(backend(), tables, problem.dirichlet_nodes, problem.dirichlet_values);
    const std::vector<double> start = problem.time ? problem.initial : std::vector<double>(reference.size(), 0.0);
    GpuBackend::PreciseVector T = backend().upload_precise(start.empty() ? std::vector<double>(reference.size(), 0.0) : start);
    HeatSolveReport report;
    solve_heat_system(backend(), system, problem.load, T, heat_solve_settings(problem), report);
    ASSERT_TRUE(report.converged) << name << ": " << report.stop_reason;
    const std::vector<double> result = backend().download_precise(T);
    const auto [lo, hi] = std::minmax_element(reference.begin(), reference.end());
    double worst = 0;
    for (size_t i = 0; i < result.size(); ++i) worst = std::max(worst, std::fabs(result[i] - reference[i]));
    EXPECT_LE(worst / (*hi - *lo), 1e-6) << name;
    std::printf("[ gpu heat tables ] %s refined once, solved on the GPU-made level: %d CG iterations (CPU %d), "
                "max |T - T_cpu| = %.2e of the range\n", name, report.iterations, cpu_report.iterations, worst / (*hi - *lo));
  }
}

// Multigrid on the GPU-made level (multigrid/refined_level_multigrid.hpp) against the CPU twin,
// Multigrid<CpuBackend> on the host's level and its hierarchy: the crankshaft held at 20 and 100 on
// its journals, level 1 made from level 0 (2,647 nodes: a V-cycle of the GPU-made level over the
// base mesh's). The finest level's smoother data — its fixed nodes, the
// inverse diagonal within 1e-5 (float K_ii: a sum of ~14 rounded float K_ij of both signs; 1.9e-6 on
// llvmpipe), λmax(D⁻¹A) within 1e-4 (float products in the
// Lanczos steps) — and the steady solve to 1e-8: the CPU's CG iterations ±1, T within 1e-6 of its
// range.
TEST_P(GpuRefinedHeat, MultigridOnTheGpuMadeLevelMatchesTheHostLevel) {
  const HeatCase c = read_heat_case(std::string(SS_SOURCE_DIR) + "/meshes/crank_heat.toml");
  ASSERT_TRUE(c.multigrid);
  const MeshHierarchy whole = load_mesh_hierarchy(c.mesh_file, LoadOptions{1});
  const MeshHierarchy to_parent = load_mesh_hierarchy(c.mesh_file, LoadOptions{0});
  HeatProblem problem = build_heat_problem(c, whole.finest());
  problem.tolerance = 1e-8;
  // 1. The CPU reference on the host's level.
  CpuBackend cpu;
  const HeatOperatorData data = assemble_heat_system(whole.finest(), problem, HeatTables::operator_only);
  CpuHeatOperator op(data);
  const GeometricLevels host_levels = heat_geometric_levels(c, whole);
  HeatSolveReport cpu_report;
  const std::vector<double> reference =
      solve_heat(cpu, op, problem, cpu_report, {}, multigrid_factory(cpu, op, &host_levels));
  ASSERT_TRUE(cpu_report.converged) << cpu_report.stop_reason;
  // 2. The GPU-made level and the level below it from level 0's hierarchy.
  const LoadedMesh& coarse = to_parent.finest();
  std::vector<double> k(size_t(coarse.topology.num_cells));
  for (size_t cell = 0; cell < k.size(); ++cell) k[cell] = problem.conductivity[8 * cell];
  const GpuRefinedHeatTables tables = gpu_refine_heat_tables(backend(), coarse, k);
  GpuRefinedHeatSystem system(backend(), tables, problem.dirichlet_nodes, problem.dirichlet_values);
  const GeometricLevels below = heat_levels_below_gpu_finest(c, to_parent, coarse.topology);
  // 3. The finest level's smoother data.
  const HeatDirichletData e = eliminate_dirichlet(data, problem.dirichlet_nodes);
  const MultigridSetup host = setup_multigrid(data, e, &host_levels, 0.0, 1.0, {});
  const FinestSmoother fine = gpu_finest_smoother(backend(), system, 0.0, 1.0, {});
  EXPECT_EQ(fine.fixed, e.fixed);
  ASSERT_EQ(fine.inverse_diagonal.size(), host.levels[0].inverse_diagonal.size());
  double diagonal = 0;
  for (size_t i = 0; i < fine.inverse_diagonal.size(); ++i)
    diagonal = std::max(diagonal, std::fabs(fine.inverse_diagonal[i] / host.levels[0].inverse_diagonal[i] - 1.0));
  EXPECT_LE(diagonal, 1e-5);
  const double lambda = std::fabs(fine.lambda_max / host.levels[0].lambda_max - 1.0);
  EXPECT_LE(lambda, 1e-4) << fine.lambda_max << " vs " << host.levels[0].lambda_max;
  // 4. The solve.
  MultigridStats stats;
  system.preconditioner = refined_level_multigrid_factory(backend(), system, below, {}, &stats);
  GpuBackend::PreciseVector T = backend().upload_precise(std::vector<double>(reference.size(), 0.0));
  HeatSolveReport report;
  solve_heat_system(backend(), system, problem.load, T, heat_solve_settings(problem), report);
  ASSERT_TRUE(report.converged) << report.stop_reason;
  EXPECT_EQ(stats.levels, host.describe());
  EXPECT_LE(std::abs(report.iterations - cpu_report.iterations), 1);
  const std::vector<double> result = backend().download_precise(T);
  const auto [lo, hi] = std::minmax_element(reference.begin(), reference.end());
  double worst = 0;
  for (size_t i = 0; i < result.size(); ++i) worst = std::max(worst, std::fabs(result[i] - reference[i]));
  EXPECT_LE(worst / (*hi - *lo), 1e-6);
  std::printf("[ gpu heat tables ] crankshaft level 1 made on the GPU, multigrid %s: inverse diagonal %.1e, "
              "lambda_max %.1e; %d CG iterations (CPU %d), max |T - T_cpu| = %.2e of the range\n",
              stats.levels.c_str(), diagonal, lambda, report.iterations, cpu_report.iterations, worst / (*hi - *lo));
}

// One-line errors naming the mesh: a coarse level without its face tables, a conductivity or a heat
// capacity per fine cell instead of per coarse cell, a zero conductivity or heat capacity.
TEST_P(GpuRefinedHeat, RefusesMissingFaceTablesAndWrongValueCounts) {
  LoadOptions lean;
  lean.tables = TopologyTables::boundary;
  const LoadedMesh cube = load_mesh(std::string(SS_SOURCE_DIR) + "/meshes/cube.msh", lean);
  const LoadedMesh& full = project_mesh("cube.msh", 0);
  const size_t cells = size_t(full.topology.num_cells);
  const std::vector<double> ones(cells, 1.0), too_many(8 * cells, 1.0);
  const auto expect_error = [&](const LoadedMesh& mesh, const std::vector<double>& k, const std::vector<double>& rho_c,
                                const char* what) {
    try {
      gpu_refine_heat_tables(backend(), mesh, k, rho_c);
      ADD_FAILURE() << "no error for " << what;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("cube.msh"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
  };
  expect_error(cube, ones, {}, "face tables");
  expect_error(full, too_many, {}, "conductivities");
  expect_error(full, ones, too_many, "heat capacities");
  std::vector<double> one_zero = ones;
  one_zero[cells / 2] = 0.0;
  expect_error(full, one_zero, {}, "must be > 0");
  expect_error(full, ones, one_zero, "must be > 0");
}

INSTANTIATE_TEST_SUITE_P(Paths, GpuRefinedHeat, kGpuPaths, gpu_path_name);

}  // namespace
}  // namespace ss::test
