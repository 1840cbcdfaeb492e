// The algebraic multigrid of the flow pressure operator P = Gᵀ W G (CPU reference): the host
// matrix equals pressure_apply, the V-cycle is symmetric (also with the constants as null space),
// and CG + V-cycle converges in few iterations that do not grow from cavity refine 0 to 1, with and
// without a pressure outlet; on a refined mesh also with the refinement's families as the first
// coarser levels (MultigridOptions::refinement_families, what the flow solver uses there).
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>
#include <utility>

#include "multigrid/multigrid.hpp"
#include "multigrid/pressure_matrix.hpp"
#include "mesh/mesh_test_util.hpp"
#include "pressure_test_util.hpp"
#include "solver/cg.hpp"
#include "util/error.hpp"

namespace ss::test {
namespace {

double dot(const std::vector<double>& a, const std::vector<double>& b) {
  double s = 0;
  for (size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
  return s;
}

TEST(PressureMultigrid, MatrixEqualsPressureApply) {
  for (const char* file : {"cavity.msh", "duct.msh"}) {
    const PressureCase c = pressure_case(file, 0);
    CpuMeshOperators mesh_ops(*c.mesh);
    CpuFlowOperators ops(mesh_ops, c.data);
    const SparseMatrix p = pressure_matrix(c.tables, c.data);
    ASSERT_EQ(p.rows, c.data.num_cells);
    const std::vector<double> diagonal = p.diagonal();
    for (size_t i = 0; i < diagonal.size(); ++i)
      ASSERT_NEAR(diagonal[i], c.data.pressure_diagonal[i], 1e-14 * c.data.pressure_diagonal[i]) << file << " cell " << i;
    for (std::uint64_t seed = 1; seed <= 3; ++seed) {
      const std::vector<double> x = random_cells(p.rows, seed, false);
      std::vector<double> from_matrix, from_operator;
      p.multiply(x, from_matrix);
      ops.pressure_apply(x, from_operator);
      double scale = 0, diff = 0;
      for (size_t i = 0; i < x.size(); ++i) {
        scale = std::max(scale, std::fabs(from_operator[i]));
        diff = std::max(diff, std::fabs(from_matrix[i] - from_operator[i]));
      }
      EXPECT_LE(diff, 1e-12 * scale) << file << " seed " << seed;
    }
  }
}

// The matrix assembled row by row in parallel equals a per-cell map filled face by face (the
// diagonal summed in face order), bit for bit, for 1 and 2 threads (refine 1: above 50,000 rows).
TEST(PressureMultigrid, MatrixIsEquivalentToRef) {
  for (const auto& [file, refine] : {std::pair<const char*, int>{"duct.msh", 0}, {"cavity.msh", 1}}) {
    const PressureCase c = pressure_case(file, refine);
    const std::int32_t nc = c.data.num_cells;
    std::vector<std::map<std::int32_t, double>> rows(static_cast<size_t>(nc));
    std::vector<double> diagonal(size_t(nc), 0.0);
    for (std::int32_t f = 0; f < c.data.num_faces; ++f) {
      const std::int32_t c0 = c.tables.face_cell0[size_t(f)], c1 = c.tables.face_cell1[size_t(f)];
      const double w = c.data.pressure_weight[size_t(f)];
      diagonal[size_t(c0)] += w;
      if (c1 < 0) continue;
      diagonal[size_t(c1)] += w;
      rows[size_t(c0)][c1] = -w;
      rows[size_t(c1)][c0] = -w;
    }
    SparseMatrix want;
    want.rows = want.cols = nc;
    for (std::int32_t i = 0; i < nc; ++i) {
      rows[size_t(i)][i] = diagonal[size_t(i)];
      for (const auto& [col, value] : rows[size_t(i)]) want.columns.push_back(col), want.values.push_back(value);
      want.offsets.push_back(std::int32_t(want.values.size()));
    }
    for (const int threads : {1, 2}) {
      const SparseMatrix got = with_threads(threads, [&] { return pressure_matrix(c.tables, c.data); });
      SCOPED_TRACE(std::string(file) + " refined " + std::to_string(refine) + ", threads " + std::to_string(threads));
      EXPECT_EQ(got.offsets, want.offsets);
      EXPECT_EQ(got.columns, want.columns);
      EXPECT_EQ(got.values, want.values);
    }
  }
}

// The outlet makes P SPD; walls only leave the constants as its null space: P 1 = 0.
TEST(PressureMultigrid, NullSpaceIsTheConstantsWithoutOutlet) {
  const PressureCase walls = pressure_case("cavity.msh", 0), duct = pressure_case("duct.msh", 0);
  EXPECT_FALSE(walls.data.pressure_fixed);
  EXPECT_TRUE(duct.data.pressure_fixed);
  std::vector<double> y;
  pressure_matrix(walls.tables, walls.data).multiply(std::vector<double>(size_t(walls.data.num_cells), 1.0), y);
  for (double v : y) ASSERT_NEAR(v, 0.0, 1e-12 * walls.data.pressure_diagonal[0]);
}

// (M r1)·r2 = r1·(M r2) for mean-free r1, r2: the pinned coarsest solve keeps the cycle symmetric,
// and r·M r > 0 (positive on the complement of the constants).
void expect_symmetric_and_positive(Multigrid<CpuBackend>& mg, std::int32_t cells) {
  const std::vector<double> r1 = random_cells(cells, 5, true), r2 = random_cells(cells, 6, true);
  std::vector<double> z1(r1.size()), z2(r2.size());
  mg(r1, z1);
  mg(r2, z2);
  EXPECT_NEAR(dot(z1, r2), dot(r1, z2), 1e-10 * std::fabs(dot(z1, r2))) << mg.setup().describe();
  EXPECT_GT(dot(z1, r1), 0.0) << mg.setup().describe();
}

TEST(PressureMultigrid, VcycleIsSymmetricWithConstantNullSpace) {
  const PressureCase c = pressure_case("cavity.msh", 0);
  CpuBackend cpu;
  MultigridOptions o;
  o.coarse_size = 60;
  Multigrid<CpuBackend> mg(cpu, pressure_matrix(c.tables, c.data), true, {}, o);
  ASSERT_GE(mg.num_levels(), 3) << mg.setup().describe();
  expect_symmetric_and_positive(mg, c.data.num_cells);
}

struct PressureCg {
  int iterations = 0, jacobi_iterations = 0;
  double true_residual = 0;
  std::string levels;
};

// CG to 1e-6 on P φ = b (b random, mean-free when singular) with the V-cycle (finest level: the
// matrix-free pressure_apply; with `families`, the refinement's families first) and with Jacobi.
PressureCg pressure_cg(const std::string& file, int refine, bool families = false) {
  const PressureCase c = pressure_case(file, refine);
  CpuBackend cpu;
  CpuMeshOperators mesh_ops(*c.mesh);
  CpuFlowOperators ops(mesh_ops, c.data);
  const bool singular = !c.data.pressure_fixed;
  const auto apply = [&](const std::vector<double>& x, std::vector<double>& y) { ops.pressure_apply(x, y); };
  MultigridOptions mg_options;
  if (families) mg_options.refinement_families = c.mesh->report.refine_levels;
  Multigrid<CpuBackend> mg(cpu, pressure_matrix(c.tables, c.data), singular, apply, mg_options);
  const std::vector<double> b = random_cells(c.data.num_cells, 42, singular);
  CgOptions options;
  options.tolerance = 1e-6;
  options.max_iterations = 2000;
  PressureCg out;
  out.levels = mg.setup().describe();
  std::vector<double> x(b.size(), 0.0);
  const CgResult r = preconditioned_conjugate_gradient(
      cpu, apply, b, x, [&](const std::vector<double>& from, std::vector<double>& to) { mg(from, to); }, options);
  EXPECT_TRUE(r.converged) << file << " refine " << refine << ": " << r.stop_reason;
  out.iterations = r.iterations;
  std::vector<double> px;
  apply(x, px);
  double rr = 0;
  for (size_t i = 0; i < b.size(); ++i) rr += (b[i] - px[i]) * (b[i] - px[i]);
  out.true_residual = std::sqrt(rr / dot(b, b));
  std::vector<double> inverse_diagonal(b.size()), xj(b.size(), 0.0);
  for (size_t i = 0; i < b.size(); ++i) inverse_diagonal[i] = 1.0 / c.data.pressure_diagonal[i];
  out.jacobi_iterations = conjugate_gradient(cpu, apply, b, xj, &inverse_diagonal, options).iterations;
  return out;
}

TEST(PressureMultigrid, CgIterationsBoundedAndNotGrowingWallsOnly) {
  const PressureCg coarse = pressure_cg("cavity.msh", 0), fine = pressure_cg("cavity.msh", 1);
  EXPECT_LE(coarse.true_residual, 1e-5);
  EXPECT_LE(fine.true_residual, 1e-5);
  EXPECT_LE(coarse.iterations, 25) << coarse.levels;
  EXPECT_LE(fine.iterations, 25) << fine.levels;
  EXPECT_LE(fine.iterations, coarse.iterations + 3) << coarse.levels << " | " << fine.levels;
  EXPECT_LT(3 * fine.iterations, fine.jacobi_iterations);
  RecordProperty("iterations", std::to_string(coarse.iterations) + " -> " + std::to_string(fine.iterations) +
                                   " (Jacobi " + std::to_string(coarse.jacobi_iterations) + " -> " +
                                   std::to_string(fine.jacobi_iterations) + ")");
}

TEST(PressureMultigrid, CgConvergesWithOutlet) {
  const PressureCg duct = pressure_cg("duct.msh", 0);
  EXPECT_LE(duct.true_residual, 1e-5);
  EXPECT_LE(duct.iterations, 25) << duct.levels;
  EXPECT_LT(2 * duct.iterations, duct.jacobi_iterations);
}

// R of the families sums the eight children of each coarse cell.
TEST(PressureMultigrid, FamilyRestrictionSumsTheChildren) {
  const SparseMatrix r = family_restriction(24);
  ASSERT_EQ(r.rows, 3);
  std::vector<double> x(24), y;
  for (size_t i = 0; i < x.size(); ++i) x[i] = double(i);
  r.multiply(x, y);
  EXPECT_EQ(y, (std::vector<double>{28, 92, 156}));
  EXPECT_THROW(family_restriction(12), Error);
}

// The refinement's families as the first coarser levels: a refined mesh's cells are numbered by
// families (refine_once: cell c's children 8c .. 8c + 7), which the flow solver uses. The cycle
// stays symmetric with the constant null space, CG converges in few iterations with and without an
// outlet, and the levels are the families' down to the base mesh.
TEST(PressureMultigrid, RefinementFamiliesAsCoarserLevels) {
  const PressureCase c = pressure_case("cavity.msh", 1);
  ASSERT_EQ(c.mesh->report.refine_levels, 1);
  CpuBackend cpu;
  MultigridOptions o;
  o.refinement_families = 1;
  Multigrid<CpuBackend> mg(cpu, pressure_matrix(c.tables, c.data), true, {}, o);
  EXPECT_EQ(mg.setup().levels[1].kind, HostLevel::Kind::families) << mg.setup().describe();
  EXPECT_EQ(mg.setup().levels[1].size, c.data.num_cells / 8);
  expect_symmetric_and_positive(mg, c.data.num_cells);
  for (const char* file : {"cavity.msh", "duct.msh"}) {
    const PressureCg families = pressure_cg(file, 1, true), smoothed = pressure_cg(file, 1);
    EXPECT_LE(families.true_residual, 1e-5) << file;
    EXPECT_LE(families.iterations, 25) << file << ": " << families.levels;
    EXPECT_LT(3 * families.iterations, families.jacobi_iterations) << file;
    RecordProperty(file == std::string("duct.msh") ? "duct_iterations" : "cavity_iterations",
                   std::to_string(families.iterations) + " (smoothed aggregation " + std::to_string(smoothed.iterations) + ")");
  }
}

}  // namespace
}  // namespace ss::test
