// Multigrid on the CPU reference: the mesh levels and their maps, the Galerkin identity of the
// rediscretised coarse operators (with fixed nodes), a symmetric positive V-cycle, and CG
// iteration bounds on the refined cube and crankshaft.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "multigrid/multigrid.hpp"
#include "multigrid_test_util.hpp"
#include "solver/cg.hpp"

namespace ss::test {
namespace {

TEST(MeshHierarchy, LevelsEqualLoadMeshAndMapsAreMidpoints) {
  const MeshHierarchy h = load_mesh_hierarchy(mesh_path("cube.msh"), LoadOptions{2});
  ASSERT_EQ(h.levels.size(), 3u);
  ASSERT_EQ(h.maps.size(), 2u);
  for (int l = 0; l <= 2; ++l) {
    const LoadedMesh direct = load_mesh(mesh_path("cube.msh"), l);
    const LoadedMesh& level = h.levels[size_t(l)];
    ASSERT_EQ(level.mesh.nodes, direct.mesh.nodes) << "level " << l;
    ASSERT_EQ(level.mesh.tets, direct.mesh.tets) << "level " << l;
    ASSERT_EQ(level.topology.node_neighbors, direct.topology.node_neighbors) << "level " << l;
  }
  for (int l = 0; l < 2; ++l) {
    const LevelMap& m = h.maps[size_t(l)];
    const auto& coarse = h.levels[size_t(l)].mesh.nodes;
    const auto& fine = h.levels[size_t(l) + 1].mesh.nodes;
    ASSERT_EQ(m.coarse_nodes, std::int32_t(coarse.size()));
    ASSERT_EQ(m.fine_nodes, std::int32_t(fine.size()));
    std::vector<int> seen(coarse.size(), 0);
    for (std::int32_t f = 0; f < m.fine_nodes; ++f) {
      const auto [a, b] = m.parents[size_t(f)];
      ASSERT_TRUE(a >= 0 && b >= 0 && a < m.coarse_nodes && b < m.coarse_nodes);
      ASSERT_EQ(fine[size_t(f)], 0.5 * (coarse[size_t(a)] + coarse[size_t(b)])) << "fine node " << f;
      if (a == b) ++seen[size_t(a)];
      else  // a midpoint node's parents are a coarse edge
        ASSERT_GE(h.levels[size_t(l)].topology.find_edge(a, b), 0);
    }
    for (int s : seen) ASSERT_EQ(s, 1);  // every coarse node is exactly one fine node
  }
}

// max |Pᵀ A_f P + I_fixed − A_c| relative to max |A_c|, entry by entry (dense compare over rows).
double galerkin_mismatch(const SparseMatrix& galerkin, const SparseMatrix& coarse, const std::vector<double>& fixed) {
  double scale = 0, diff = 0;
  for (double v : coarse.values) scale = std::max(scale, std::fabs(v));
  std::vector<double> row(size_t(coarse.cols), 0.0);
  for (std::int32_t i = 0; i < coarse.rows; ++i) {
    for (std::int32_t k = coarse.offsets[size_t(i)]; k < coarse.offsets[size_t(i) + 1]; ++k)
      row[size_t(coarse.columns[size_t(k)])] += coarse.values[size_t(k)];
    for (std::int32_t k = galerkin.offsets[size_t(i)]; k < galerkin.offsets[size_t(i) + 1]; ++k)
      row[size_t(galerkin.columns[size_t(k)])] -= galerkin.values[size_t(k)];
    if (!fixed.empty() && fixed[size_t(i)] != 0) row[size_t(i)] -= 1.0;
    for (std::int32_t k = coarse.offsets[size_t(i)]; k < coarse.offsets[size_t(i) + 1]; ++k)
      diff = std::max(diff, std::fabs(row[size_t(coarse.columns[size_t(k)])]));
    for (std::int32_t k = galerkin.offsets[size_t(i)]; k < galerkin.offsets[size_t(i) + 1]; ++k)
      diff = std::max(diff, std::fabs(row[size_t(galerkin.columns[size_t(k)])]));
    for (double& v : row) v = 0;
  }
  return diff / scale;
}

class Galerkin : public ::testing::TestWithParam<std::tuple<const char*, int>> {};

// The P1 stiffness matrix on nested meshes: the coarse one is Pᵀ K P exactly (up to round-off),
// and with the Dirichlet elimination on both levels (fixed nodes: the same boundary groups)
// Pᵀ K̃_f P + I_fixed = K̃_c with P's fixed coarse columns and fixed fine rows dropped.
TEST_P(Galerkin, RediscretisedCoarseOperatorIsGalerkinProduct) {
  const auto [file, refine] = GetParam();
  HierarchyProblem h = make_hierarchy_problem(file, refine);
  for (int l = refine - 1; l >= 0; --l) {
    const HeatOperatorData& coarse = h.geometric.operators[size_t(l)];
    const HeatOperatorData& fine = l + 1 == refine ? h.data : h.geometric.operators[size_t(l) + 1];
    const std::vector<std::int32_t>& fine_fixed = l + 1 == refine ? h.problem.dirichlet_nodes : h.geometric.fixed_nodes[size_t(l) + 1];
    const LevelMap& map = h.geometric.maps[size_t(l)];
    // Plain K (no fixed nodes).
    {
      const HeatDirichletData none_f = eliminate_dirichlet(fine, {}), none_c = eliminate_dirichlet(coarse, {});
      const SparseMatrix p = prolongation_from_map(map, none_c.fixed, none_f.fixed);
      const SparseMatrix g = galerkin_product(p, heat_system_matrix(fine, none_f, 0.0, 1.0));
      EXPECT_LE(galerkin_mismatch(g, heat_system_matrix(coarse, none_c, 0.0, 1.0), {}), 1e-12) << "K, level " << l;
    }
    // K̃ with fixed nodes on both levels.
    const HeatDirichletData ef = eliminate_dirichlet(fine, fine_fixed);
    const HeatDirichletData ec = eliminate_dirichlet(coarse, h.geometric.fixed_nodes[size_t(l)]);
    ASSERT_FALSE(ec.nodes.empty());
    // Fixed coarse nodes are fixed fine nodes (the same points).
    for (std::int32_t f = 0; f < map.fine_nodes; ++f)
      if (map.parents[size_t(f)][0] == map.parents[size_t(f)][1]) {
        ASSERT_EQ(ef.fixed[size_t(f)], ec.fixed[size_t(map.parents[size_t(f)][0])]);
      }
    const SparseMatrix p = prolongation_from_map(map, ec.fixed, ef.fixed);
    const SparseMatrix g = galerkin_product(p, heat_system_matrix(fine, ef, 0.0, 1.0));
    EXPECT_LE(galerkin_mismatch(g, heat_system_matrix(coarse, ec, 0.0, 1.0), ec.fixed), 1e-12) << "K~, level " << l;
  }
}

INSTANTIATE_TEST_SUITE_P(Meshes, Galerkin,
                         ::testing::Values(std::make_tuple("cube.msh", 2), std::make_tuple("crank.msh", 1)));

// The explicit matrix equals the operator's apply (what the aggregation levels start from).
TEST(SparseMatrix, HeatSystemMatrixEqualsOperator) {
  HierarchyProblem h = make_hierarchy_problem("cube.msh", 1);
  const HeatDirichletData e = eliminate_dirichlet(h.data, h.problem.dirichlet_nodes);
  const SparseMatrix m = heat_system_matrix(h.data, e, 0.3, 0.7);
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<double> x(size_t(m.rows)), y1, y2;
  for (double& v : x) v = u(rng);
  m.multiply(x, y1);
  apply_heat_system(h.data, e, 0.3, 0.7, x, y2);
  for (size_t i = 0; i < x.size(); ++i) ASSERT_NEAR(y1[i], y2[i], 1e-12 * (1 + std::fabs(y2[i])));
}

MultigridOptions small_coarse() {
  MultigridOptions o;
  o.coarse_size = 60;  // forces aggregation levels below the base mesh on these small meshes
  return o;
}

// ⟨M⁻¹x, y⟩ = ⟨x, M⁻¹y⟩ and ⟨M⁻¹x, x⟩ > 0: CG may use it.
TEST(MultigridCpu, VcycleIsSymmetricPositive) {
  for (int refine : {0, 1}) {
    HierarchyProblem h = make_hierarchy_problem("cube.msh", refine);
    CpuBackend cpu;
    CpuHeatOperator op(h.data);
    op.set_dirichlet(h.problem.dirichlet_nodes);
    Multigrid<CpuBackend> mg(cpu, op, &h.geometric, 0.0, 1.0, small_coarse());
    ASSERT_GE(mg.num_levels(), 2 + refine) << mg.setup().describe();
    std::mt19937_64 rng(5);
    std::uniform_real_distribution<double> u(-1, 1);
    std::vector<double> x(size_t(op.num_nodes())), y(x.size()), mx(x.size()), my(x.size());
    for (double& v : x) v = u(rng);
    for (double& v : y) v = u(rng);
    mg(x, mx);
    mg(y, my);
    const double xy = cpu.dot(mx, y), yx = cpu.dot(x, my);
    EXPECT_NEAR(xy, yx, 1e-10 * std::sqrt(cpu.norm2(mx) * cpu.norm2(y))) << mg.setup().describe();
    EXPECT_GT(cpu.dot(mx, x), 0.0);
  }
}

// estimate_lambda_max_on (every vector on a backend: the GPU-made level's λmax) on the CPU backend
// against estimate_lambda_max on host vectors: the same start and recurrences, so the same Ritz value
// up to the order of the dot products' sums (1e-12), for the heat system of the cube and crankshaft.
TEST(MultigridCpu, LanczosOnBackendIsEquivalentToRef) {
  for (const char* file : {"cube.msh", "crank.msh"}) {
    HierarchyProblem h = make_hierarchy_problem(file, 1);
    CpuBackend cpu;
    CpuHeatOperator op(h.data);
    op.set_dirichlet(h.problem.dirichlet_nodes);
    const std::vector<double> d = op.system_diagonal(0.0, 1.0);
    std::vector<double> inverse(d.size());
    for (size_t i = 0; i < d.size(); ++i) inverse[i] = 1.0 / d[i];
    const auto apply = [&](const std::vector<double>& x, std::vector<double>& y) { op.apply_system(0.0, 1.0, x, y); };
    const double ref = estimate_lambda_max(apply, inverse, 12);
    const double on_backend = estimate_lambda_max_on<CpuBackend>(cpu, apply, inverse, 12);
    EXPECT_NEAR(on_backend, ref, 1e-12 * ref) << file;
    EXPECT_GT(ref, 1.0) << file;  // D⁻¹A has eigenvalues above 1 (its mean is 1)
  }
}

void expect_same_matrix(const SparseMatrix& a, const SparseMatrix& b, const std::string& what) {
  EXPECT_EQ(a.rows, b.rows) << what;
  EXPECT_EQ(a.cols, b.cols) << what;
  EXPECT_EQ(a.offsets, b.offsets) << what;
  EXPECT_EQ(a.columns, b.columns) << what;
  EXPECT_EQ(a.values, b.values) << what;
}

// The multigrid below a finest level the host does not hold (the level made on the GPU:
// heat_levels_below_gpu_finest from the hierarchy up to level K − 1 only, then
// setup_multigrid_below_finest) against setup_multigrid on the host's whole hierarchy: the same
// coarser operators, fixed nodes and maps (the K − 1 → K map from level K − 1's topology), and the
// same levels, transfers, smoother data and coarsest solve; with a coarse_size above the finest
// level's size, level K − 1 is made all the same (as the coarsest). The cube at refine 1 and 2, the
// crankshaft at refine 1.
TEST(MultigridCpu, BelowFinestLevelIsEquivalentToSetupMultigrid) {
  for (const char* file : {"cube.msh", "crank.msh"})
    for (int refine : {1, 2}) {
      if (std::string(file) == "crank.msh" && refine == 2) continue;
      const std::string name = std::string(file) + " refine " + std::to_string(refine);
      HierarchyProblem h = make_hierarchy_problem(file, refine);
      const MeshHierarchy to_parent = load_mesh_hierarchy(mesh_path(file), LoadOptions{refine - 1});
      const GeometricLevels below = heat_levels_below_gpu_finest(h.heat_case, to_parent, to_parent.finest().topology);
      ASSERT_EQ(below.operators.size(), h.geometric.operators.size()) << name;
      ASSERT_EQ(below.maps.size(), h.geometric.maps.size()) << name;
      for (size_t l = 0; l < below.maps.size(); ++l) {
        EXPECT_EQ(below.maps[l].parents, h.geometric.maps[l].parents) << name << ", map " << l;
        EXPECT_EQ(below.fixed_nodes[l], h.geometric.fixed_nodes[l]) << name << ", level " << l;
        EXPECT_EQ(below.operators[l].neighbors, h.geometric.operators[l].neighbors) << name << ", level " << l;
        EXPECT_EQ(below.operators[l].coefficients, h.geometric.operators[l].coefficients) << name << ", level " << l;
        EXPECT_EQ(below.operators[l].mass, h.geometric.operators[l].mass) << name << ", level " << l;
      }
      const HeatDirichletData e = eliminate_dirichlet(h.data, h.problem.dirichlet_nodes);
      MultigridOptions whole_finest;
      whole_finest.coarse_size = h.data.num_nodes;
      for (const MultigridOptions& options : {MultigridOptions{}, small_coarse(), whole_finest}) {
        const MultigridSetup ref = setup_multigrid(h.data, e, &h.geometric, 0.0, 1.0, options);
        const FinestSmoother fine{e.fixed, ref.levels[0].inverse_diagonal, ref.levels[0].lambda_max};
        const MultigridSetup got = setup_multigrid_below_finest(fine, below, 0.0, 1.0, options);
        if (ref.levels.size() == 1) {  // the finest is the coarsest on the host; here level K − 1 is
          ASSERT_EQ(got.levels.size(), 2u) << name << ": " << got.describe();
          EXPECT_EQ(got.levels[1].kind, HostLevel::Kind::geometric) << name;
          EXPECT_EQ(got.levels[1].size, below.operators.back().num_nodes) << name;
          continue;
        }
        ASSERT_EQ(got.describe(), ref.describe()) << name;
        for (size_t l = 0; l < ref.levels.size(); ++l) {
          const std::string level = name + ", level " + std::to_string(l);
          expect_same_matrix(got.levels[l].prolongation, ref.levels[l].prolongation, level + " P");
          expect_same_matrix(got.levels[l].restriction, ref.levels[l].restriction, level + " R");
          expect_same_matrix(got.levels[l].matrix, ref.levels[l].matrix, level + " A");
          EXPECT_EQ(got.levels[l].inverse_diagonal, ref.levels[l].inverse_diagonal) << level;
          EXPECT_EQ(got.levels[l].lambda_max, ref.levels[l].lambda_max) << level;
        }
        std::vector<double> b(size_t(ref.levels.back().size));
        for (size_t i = 0; i < b.size(); ++i) b[i] = std::sin(double(i));
        EXPECT_EQ(got.solve_coarsest(b), ref.solve_coarsest(b)) << name;
      }
    }
}

// CG + multigrid on the steady two-ends problem: iterations to 1e-6.
int multigrid_cg_iterations(const char* file, int refine, const MultigridOptions& options, std::string* levels = nullptr) {
  HierarchyProblem h = make_hierarchy_problem(file, refine);
  CpuBackend cpu;
  CpuHeatOperator op(h.data);
  op.set_dirichlet(h.problem.dirichlet_nodes);
  std::vector<double> x(size_t(op.num_nodes()), 0.0), b;
  op.write_dirichlet_values(x, h.problem.dirichlet_values);
  op.dirichlet_rhs(h.problem.load, x, 1.0, b);
  Multigrid<CpuBackend> mg(cpu, op, &h.geometric, 0.0, 1.0, options);
  if (levels) *levels = mg.setup().describe();
  CgOptions o;
  o.tolerance = 1e-6;
  o.max_iterations = 200;
  const auto apply = [&](const std::vector<double>& u, std::vector<double>& v) { op.apply_system(0.0, 1.0, u, v); };
  const CgResult r = preconditioned_conjugate_gradient(cpu, apply, b, x, mg, o);
  EXPECT_TRUE(r.converged) << r.stop_reason;
  return r.iterations;
}

TEST(MultigridCpu, IterationsBoundedOnRefinedCubeAndCrank) {
  for (const char* file : {"cube.msh", "crank.msh"}) {
    const int max_refine = std::string(file) == "cube.msh" ? 2 : 1;
    for (const MultigridOptions& options : {MultigridOptions{}, small_coarse()}) {
      int previous = 0;
      for (int refine = 0; refine <= max_refine; ++refine) {
        std::string levels;
        const int it = multigrid_cg_iterations(file, refine, options, &levels);
        RecordProperty(std::string(file) + "_refine" + std::to_string(refine) + "_coarse" +
                           std::to_string(options.coarse_size),
                       it);
        std::printf("%s refine %d, coarse size %d: %d iterations, levels %s\n", file, refine, options.coarse_size, it,
                    levels.c_str());
        EXPECT_LE(it, 40) << file << " refine " << refine << ": " << levels;
        if (previous > 1) {  // (1: the previous level was one direct solve)
          EXPECT_LE(it, previous + 4) << file << " refine " << refine << ": grows with refinement";
        }
        previous = it;
      }
    }
  }
}

}  // namespace
}  // namespace ss::test
