// Block Jacobi (operators/block_jacobi.hpp): blocks grown along the strongest couplings, each
// block's inverse exact, and on the implicit momentum system of a real mesh — convection-dominated,
// the flow either way — a preconditioner whose BiCGStab reaches a direct solve's answer in fewer
// iterations than the point Jacobi.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <vector>

#include "cpu/cpu_backend.hpp"
#include "mesh/box_mesh.hpp"
#include "mesh/load_mesh.hpp"
#include "operators/block_jacobi.hpp"
#include "operators/flow_operators.hpp"
#include "operators/implicit_momentum_matrix.hpp"
#include "problems/flow_problem.hpp"
#include "solver/bicgstab.hpp"
#include "support/dense_matrix.hpp"
#include "support/flow_boundary_kinds.hpp"
#include "support/test_data.hpp"
#include "util/error.hpp"

namespace ss::test {
namespace {

SparseMatrix dense_to_sparse(const std::vector<std::vector<double>>& d) {
  std::vector<Triplet> t;
  for (size_t i = 0; i < d.size(); ++i)
    for (size_t j = 0; j < d.size(); ++j)
      if (d[i][j] != 0.0) t.push_back({std::int32_t(i), std::int32_t(j), d[i][j]});
  return from_triplets(std::int32_t(d.size()), std::int32_t(d.size()), t);
}

// A chain 0–1–…–7 whose couplings alternate strong (10) and weak (0.1): blocks of 2 pair each row
// with its strong neighbour, whichever row starts the block.
TEST(BlockJacobi, BlocksFollowTheStrongestCouplings) {
  std::vector<std::vector<double>> d(8, std::vector<double>(8, 0.0));
  for (int i = 0; i < 8; ++i) d[size_t(i)][size_t(i)] = 20.0;
  for (int i = 0; i + 1 < 8; ++i) {
    const double c = i % 2 == 0 ? -10.0 : -0.1;
    d[size_t(i)][size_t(i + 1)] = c, d[size_t(i + 1)][size_t(i)] = 0.5 * c;  // nonsymmetric
  }
  const std::vector<std::int32_t> b = strong_coupling_blocks(dense_to_sparse(d), 2);
  EXPECT_EQ(b, (std::vector<std::int32_t>{0, 0, 1, 1, 2, 2, 3, 3}));
  // Size 3: a block takes its strong pair, then the weakly coupled next row.
  const std::vector<std::int32_t> b3 = strong_coupling_blocks(dense_to_sparse(d), 3);
  EXPECT_EQ(b3, (std::vector<std::int32_t>{0, 0, 0, 1, 1, 1, 2, 2}));
  // Rows without couplings stay alone.
  EXPECT_EQ(strong_coupling_blocks(dense_to_sparse({{1, 0}, {0, 2}}), 16), (std::vector<std::int32_t>{0, 1}));
}

// blockdiag(A_bb)⁻¹ A is the identity on each block's rows and columns; one block for all rows
// gives the exact inverse of a nonsymmetric matrix that needs pivoting (a zero diagonal entry).
TEST(BlockJacobi, InvertsEachBlockExactly) {
  const std::vector<std::vector<double>> d = {{0, 2, 1, 0}, {3, 1, 0, 0}, {1, 0, 4, 2}, {0, 0, -1, 3}};
  const SparseMatrix a = dense_to_sparse(d);
  for (const std::vector<std::int32_t>& blocks : {std::vector<std::int32_t>{0, 0, 0, 0}, std::vector<std::int32_t>{1, 1, 0, 0}}) {
    const SparseMatrix inv = block_jacobi_inverse(a, blocks);
    for (size_t j = 0; j < 4; ++j) {  // column j of M⁻¹ A
      std::vector<double> e(4, 0.0), ae, column;
      e[j] = 1.0;
      a.multiply(e, ae);
      for (size_t i = 0; i < 4; ++i)
        if (blocks[i] != blocks[j]) ae[i] = 0.0;  // A's couplings across blocks are not inverted
      inv.multiply(ae, column);
      for (size_t i = 0; i < 4; ++i)
        if (blocks[i] == blocks[j]) {
          EXPECT_NEAR(column[i], i == j ? 1.0 : 0.0, 1e-14) << i << ", " << j;
        }
    }
  }
}

TEST(BlockJacobi, SingularBlockIsAnErrorNamingItsRow) {
  const SparseMatrix a = dense_to_sparse({{1, 0, 0}, {0, 1, 2}, {0, 2, 4}});
  try {
    block_jacobi_inverse(a, {0, 1, 1});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("block of row 1 is singular"), std::string::npos) << e.what();
  }
}

// The direct solve the preconditioned iterations are checked against.
std::vector<double> direct_solve(const SparseMatrix& a, const std::vector<double>& b) {
  DenseMatrix dense(size_t(a.rows));
  for (std::int32_t i = 0; i < a.rows; ++i)
    for (std::int32_t e = a.offsets[size_t(i)]; e < a.offsets[size_t(i) + 1]; ++e)
      dense.at(size_t(i), size_t(a.columns[size_t(e)])) = a.values[size_t(e)];
  return dense.solve(b);
}

// Steady mode's implicit momentum system (with its grad–div term) on a small box (walls and slip
// faces) at Δt = 1 (CFL ≈ 10), central convection by a vortex of speed ≈ 3 turning one way and then
// the other (cell Reynolds number ≈ 200): BiCGStab with block Jacobi reaches the direct solution,
// in fewer iterations than with Jacobi.
TEST(BlockJacobi, PreconditionsTheImplicitMomentumSystemInBothFlowDirections) {
  const LoadedMesh m = prepare_mesh(make_box_mesh(6, 3, 3, glm::dvec3(2.0, 1.0, 1.0)));
  CpuMeshOperators mesh_ops(m);
  const FlowOperatorData data = build_flow_operator_data(mesh_ops.tables(), mixed_boundary_kinds(m, false));
  ImplicitMomentumMatrix assembled(mesh_ops.tables(), data);
  const size_t nf = size_t(data.num_faces);
  // a vortex tangential to every wall: u = (∂ψ/∂y, −∂ψ/∂x, 0), ψ = sin(πx/2) sin(πy)
  const std::vector<double> vortex = face_fluxes(
      m,
      [](const glm::dvec3& x, double) {
        const double pi = 3.141592653589793;
        return glm::dvec3(pi * std::sin(pi * x.x / 2) * std::cos(pi * x.y), -pi / 2 * std::cos(pi * x.x / 2) * std::sin(pi * x.y), 0.0);
      },
      0.0);
  // Γ_c / V_c, Γ_c the mean of m H / Σ 1/V over the cell's faces: the grad–div term's (physics/grad_div_term.hpp)
  std::vector<double> grad_div_weight(size_t(data.num_cells), 0.0);
  for (size_t f = 0; f < nf; ++f)
    for (const std::int32_t c : m.topology.face_cells[f])
      if (c >= 0) grad_div_weight[size_t(c)] += 0.25 * data.free_mask[f] * data.face_mass[f] / data.inverse_volume_sum[f];
  for (size_t c = 0; c < grad_div_weight.size(); ++c) grad_div_weight[c] *= data.inverse_volume[c];
  CpuBackend cpu;
  for (double direction : {1.0, -1.0}) {
    std::vector<double> U(nf);
    for (size_t f = 0; f < nf; ++f) U[f] = direction * data.free_mask[f] * vortex[f];
    assembled.assemble(Convection::central, U, 1.0, 5e-3);
    const SparseMatrix& a = assembled.add_grad_div(1.0, grad_div_weight);
    const std::vector<double> b = mixed_values(std::int64_t(nf), 3, 0, 0);
    const std::vector<double> exact = direct_solve(a, b);
    const SparseMatrix inverse = block_jacobi_inverse(a, strong_coupling_blocks(a, 16));
    const auto apply = [&](const std::vector<double>& x, std::vector<double>& y) { a.multiply(x, y); };
    CgOptions options;
    options.tolerance = 1e-9, options.max_iterations = 2000;
    std::vector<double> x_block(nf, 0.0), x_point(nf, 0.0), inverse_diagonal(nf);
    const CgResult block = preconditioned_bicgstab(
        cpu, apply, b, x_block, [&](const std::vector<double>& r, std::vector<double>& z) { inverse.multiply(r, z); }, options);
    const std::vector<double> diagonal = a.diagonal();
    for (size_t f = 0; f < nf; ++f) inverse_diagonal[f] = 1.0 / diagonal[f];
    const CgResult point = bicgstab(cpu, apply, b, x_point, &inverse_diagonal, options);
    ASSERT_TRUE(block.converged) << block.stop_reason;
    ASSERT_TRUE(point.converged) << point.stop_reason;
    double error = 0, largest = 0;
    for (size_t f = 0; f < nf; ++f) error = std::max(error, std::fabs(x_block[f] - exact[f])), largest = std::max(largest, std::fabs(exact[f]));
    std::printf("direction %+.0f: block Jacobi %d iterations, Jacobi %d; |x − x_direct| %.1e of max\n", direction,
                block.iterations, point.iterations, error / largest);
    EXPECT_LE(error, 1e-7 * largest);
    EXPECT_LT(2 * block.iterations, point.iterations);  // measured 148 and 150 against 460 and 518
  }
}

}  // namespace
}  // namespace ss::test
