// The implicit momentum operator assembled (operators/implicit_momentum_matrix.hpp) is the
// matrix-free one with the two-point viscous term, (H/Δt + C − νθ K) x on free faces and x on
// prescribed ones, to rounding: for central and upwind convection, with walls, slip faces and a
// pressure outlet (zero-gradient faces), reassembled for new fluxes and Δt.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "mesh/load_mesh.hpp"
#include "operators/flow_operators.hpp"
#include "operators/implicit_momentum_matrix.hpp"
#include "support/flow_boundary_kinds.hpp"
#include "support/project_mesh.hpp"
#include "support/test_data.hpp"

namespace ss::test {
namespace {

// (H/Δt − νθ K) x + m C(m x), C x = −T N(U; I x) with zero boundary velocities (the implicit
// momentum solve's operator, physics/momentum_flux_solve.hpp).
std::vector<double> matrix_free(CpuMeshOperators& mesh_ops, CpuFlowOperators& ops, const FlowOperatorData& data,
                                Convection convection, const std::vector<double>& U, double inv_dt, double nu_theta,
                                const std::vector<double>& x) {
  std::vector<double> y, masked(x.size()), ux, uy, uz, fx, fy, fz, convected;
  ops.momentum_apply(inv_dt, nu_theta, x, y);
  for (size_t f = 0; f < x.size(); ++f) masked[f] = data.free_mask[f] * x[f];
  const std::vector<double> zero(size_t(data.num_boundary_faces), 0.0);
  mesh_ops.interpolate(masked, ux, uy, uz);
  ops.cell_terms(convection, 0.0, 0.0, U, ux, uy, uz, zero, zero, zero, fx, fy, fz);
  mesh_ops.integrate(fx, fy, fz, convected);
  for (size_t f = 0; f < x.size(); ++f) y[f] -= data.free_mask[f] * convected[f];
  return y;
}

void expect_assembled_equals_matrix_free(const char* file, bool with_outlet) {
  const LoadedMesh& m = project_mesh(file);
  CpuMeshOperators mesh_ops(m);
  const FlowOperatorData data = build_flow_operator_data(mesh_ops.tables(), mixed_boundary_kinds(m, with_outlet));
  CpuFlowOperators ops(mesh_ops, data);
  ImplicitMomentumMatrix assembled(mesh_ops.tables(), data);
  const size_t nf = size_t(data.num_faces);
  const std::vector<double> x = mixed_values(std::int64_t(nf), 7);
  std::uint64_t seed = 11;
  for (Convection convection : {Convection::central, Convection::upwind, Convection::none})
    for (double inv_dt : {100.0, 0.01}) {
      const std::vector<double> U = mixed_values(std::int64_t(nf), seed++);
      const double nu_theta = 0.003;
      std::vector<double> y;
      assembled.assemble(convection, U, inv_dt, nu_theta).multiply(x, y);
      const std::vector<double> expected = matrix_free(mesh_ops, ops, data, convection, U, inv_dt, nu_theta, x);
      double largest = 0, error = 0;
      for (size_t f = 0; f < nf; ++f)
        largest = std::max(largest, std::fabs(expected[f])), error = std::max(error, std::fabs(y[f] - expected[f]));
      EXPECT_LE(error, 1e-12 * largest) << file << " convection " << int(convection) << " 1/dt " << inv_dt;
      EXPECT_GT(largest, 0.0);
    }
}

TEST(ImplicitMomentumMatrix, EqualsTheMatrixFreeOperatorWithWalls) { expect_assembled_equals_matrix_free("cavity.msh", false); }
TEST(ImplicitMomentumMatrix, EqualsTheMatrixFreeOperatorWithAnOutlet) { expect_assembled_equals_matrix_free("duct.msh", true); }

// The grad–div term added to the assembly is scale · m_f (Dᵀ w D m x)_f, w one weight per cell
// (Dᵀ = −G, physics/grad_div_term.hpp), on top of the convection and mass terms: to rounding of the
// sums, whose terms (x over seven decades) cancel to 3e-10 of the largest result.
TEST(ImplicitMomentumMatrix, GradDivTermEqualsTheMatrixFreeOne) {
  const LoadedMesh& m = project_mesh("duct.msh");
  CpuMeshOperators mesh_ops(m);
  const FlowOperatorData data = build_flow_operator_data(mesh_ops.tables(), mixed_boundary_kinds(m, true));
  CpuFlowOperators ops(mesh_ops, data);
  ImplicitMomentumMatrix assembled(mesh_ops.tables(), data);
  const size_t nf = size_t(data.num_faces);
  const std::vector<double> x = mixed_values(std::int64_t(nf), 5), U = mixed_values(std::int64_t(nf), 6);
  const std::vector<double> weight = mixed_values(data.num_cells, 8, 0, 0);
  const double scale = 3.5;
  std::vector<double> without, with;
  assembled.assemble(Convection::central, U, 10.0, 0.002).multiply(x, without);
  assembled.add_grad_div(scale, weight).multiply(x, with);
  std::vector<double> masked(nf), divergence, gradient;
  for (size_t f = 0; f < nf; ++f) masked[f] = data.free_mask[f] * x[f];
  mesh_ops.divergence(masked, divergence);
  for (size_t c = 0; c < divergence.size(); ++c) divergence[c] *= weight[c];
  mesh_ops.gradient(divergence, gradient);
  double largest = 0, error = 0;
  for (size_t f = 0; f < nf; ++f) {
    const double term = -scale * data.free_mask[f] * gradient[f];
    largest = std::max(largest, std::fabs(term));
    error = std::max(error, std::fabs(with[f] - without[f] - term));
  }
  EXPECT_GT(largest, 0.0);
  EXPECT_LE(error, 3e-9 * largest);  // measured 2.7e-10
}

}  // namespace
}  // namespace ss::test
