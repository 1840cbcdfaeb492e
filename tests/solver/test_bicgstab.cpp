// BiCGStab (solver/bicgstab.hpp) on nonsymmetric convection–diffusion matrices against a direct dense
// solve (Gaussian elimination with partial pivoting, double), and the GPU (both launch paths, both
// packings) against the CPU run.
#include <gtest/gtest.h>

#include <cmath>

#include "cpu/cpu_backend.hpp"
#include "solver/bicgstab.hpp"
#include "support/dense_matrix.hpp"
#include "support/gl_fixture.hpp"
#include "support/periodic_stencil.hpp"
#include "support/test_data.hpp"

namespace ss::test {
namespace {

// Periodic 1D convection–diffusion, central convection at cell Péclet number 2c:
//   (A x)_i = d x_i − (1 + c) x_{i−1} − (1 − c) x_{i+1}
// nonsymmetric for c ≠ 0; with d > 2 diagonally dominant (nonsingular).
template <class Backend>
struct ConvectionDiffusion1d : PeriodicStencil<Backend> {
  ConvectionDiffusion1d(Backend& b, std::int64_t n, double diagonal, double convection)
      : PeriodicStencil<Backend>(b, n, diagonal, -(1.0 + convection), -(1.0 - convection)) {}
};


// 3D convection–diffusion on an m³ grid (Dirichlet 0 outside), first-order upwind convection with
// velocity (1, 0.5, −0.25)·w, diffusion 1, plus `shift` on the diagonal: nonsymmetric, an M-matrix.
DenseMatrix convection_diffusion_3d(int m, double w, double shift) {
  const size_t n = size_t(m) * m * m;
  DenseMatrix A(n);
  const double velocity[3] = {w, 0.5 * w, -0.25 * w};
  const auto index = [m](int i, int j, int k) { return (size_t(k) * m + j) * m + i; };
  for (int k = 0; k < m; ++k)
    for (int j = 0; j < m; ++j)
      for (int i = 0; i < m; ++i) {
        const size_t row = index(i, j, k);
        A.at(row, row) = 6.0 + shift;
        const int p[3] = {i, j, k};
        for (int axis = 0; axis < 3; ++axis) {
          const double v = velocity[axis];
          A.at(row, row) += std::fabs(v);
          for (int side : {-1, 1}) {
            int q[3] = {p[0], p[1], p[2]};
            q[axis] += side;
            if (q[axis] < 0 || q[axis] >= m) continue;
            // upwind: the upstream neighbour (side −1 for v > 0) carries −|v|
            const double upwind = (v > 0) == (side < 0) ? -std::fabs(v) : 0.0;
            A.at(row, index(q[0], q[1], q[2])) += -1.0 + upwind;
          }
        }
      }
  return A;
}

TEST(BicgstabTest, ThreeDimensionalConvectionDiffusionMatchesTheDirectSolve) {
  for (double w : {0.5, 4.0, 20.0}) {  // cell Péclet numbers 0.5, 4, 20: ever less symmetric
    SCOPED_TRACE("w = " + std::to_string(w));
    const DenseMatrix A = convection_diffusion_3d(6, w, 0.1);
    const std::vector<double> b = mixed_values(std::int64_t(A.n), 3, 0, 0);
    const std::vector<double> direct = A.solve(b);
    CpuBackend cpu;
    std::vector<double> inverse_diagonal(A.n);
    for (size_t i = 0; i < A.n; ++i) inverse_diagonal[i] = 1.0 / A.a[i * A.n + i];
    for (bool jacobi : {false, true}) {
      std::vector<double> x(A.n, 0.0);
      CgOptions options;
      options.tolerance = 1e-10;
      const auto apply = [&](const std::vector<double>& in, std::vector<double>& out) { out = A.apply(in); };
      const CgResult r = bicgstab(cpu, apply, b, x, jacobi ? &inverse_diagonal : nullptr, options);
      ASSERT_TRUE(r.converged) << r.stop_reason;
      EXPECT_EQ(r.history.size(), size_t(r.iterations) + 1);
      // ||x − x*|| ≤ κ·tolerance·||x*||; κ of these matrices is below 10³ (diagonal shift 0.1 over a
      // spectrum up to 12 + 2|v|₁): 1e-6 leaves room.
      EXPECT_LE(max_rel_diff(x, direct), 1e-6) << (jacobi ? "jacobi" : "none");
    }
  }
}

TEST(BicgstabTest, OneDimensionalConvectionDiffusionMatchesTheDirectSolve) {
  const std::int64_t n = 64;
  const double d = 2.05, c = 0.9;
  DenseMatrix A{size_t(n)};
  for (std::int64_t i = 0; i < n; ++i) {
    A.at(size_t(i), size_t(i)) = d;
    A.at(size_t(i), size_t((i + n - 1) % n)) = -(1.0 + c);
    A.at(size_t(i), size_t((i + 1) % n)) = -(1.0 - c);
  }
  const std::vector<double> b = mixed_values(n, 9, 0, 0);
  CpuBackend cpu;
  ConvectionDiffusion1d<CpuBackend> op(cpu, n, d, c);
  std::vector<double> x(size_t(n), 0.0);
  CgOptions options;
  options.tolerance = 1e-10;
  const CgResult r = bicgstab(cpu, op, b, x, nullptr, options);
  ASSERT_TRUE(r.converged) << r.stop_reason;
  // κ(A) ≤ (d + 2)/(d − 2) = 81 for this circulant: 1e-7 is κ·tolerance with a wide margin.
  EXPECT_LE(max_rel_diff(x, A.solve(b)), 1e-7);
}

class BicgstabGlTest : public GlTest {};

// The float GPU solve (both launch paths, both packings) against the double CPU solve.
TEST_F(BicgstabGlTest, GpuIsEquivalentToRef) {
  const std::int64_t n = 4099;
  const double d = 2.2, c = 0.8;
  const std::vector<double> hb = mixed_values(n, 13, 0, 0);
  const std::vector<double> inverse_diagonal(size_t(n), 1.0 / d);
  CgOptions options;
  options.tolerance = 1e-5;
  CpuBackend cpu;
  ConvectionDiffusion1d<CpuBackend> cpu_op(cpu, n, d, c);
  std::vector<double> cx(size_t(n), 0.0);
  const CgResult cr = bicgstab(cpu, cpu_op, hb, cx, &inverse_diagonal, options);
  ASSERT_TRUE(cr.converged) << cr.stop_reason;
  for (Packing packing : {Packing::r32f, Packing::rgba32f}) {
    for (LaunchPath launch : {LaunchPath::fragment, LaunchPath::compute}) {
      SCOPED_TRACE(std::string(to_string(packing)) + (launch == LaunchPath::compute ? " compute" : " fragment"));
      GpuBackend gpu = make_gpu(packing, launch);
      ConvectionDiffusion1d<GpuBackend> gpu_op(gpu, n, d, c);
      auto b = gpu.upload(hb), x = gpu.make_vector(n), diag = gpu.upload(inverse_diagonal);
      const CgResult gr = bicgstab(gpu, gpu_op, b, x, &diag, options);
      ASSERT_TRUE(gr.converged) << gr.stop_reason;
      // Measured: the same count or one off (float rounding moves the last residual across the tolerance).
      EXPECT_LE(std::abs(gr.iterations - cr.iterations), 2) << gr.iterations << " vs " << cr.iterations;
      // κ ≤ (d + 2)/(d − 2) = 21: the solutions agree to κ·tolerance, far above float rounding.
      EXPECT_LE(max_rel_diff(gpu.download(x), cx), 21 * 1e-5);
    }
  }
}

TEST(BicgstabTest, BreakdownAndNonConvergenceAreReported) {
  CpuBackend cpu;
  const std::int64_t n = 16;
  const std::vector<double> b = mixed_values(n, 5, 0, 0);
  // Skew-symmetric A (central convection alone): (A x)_i = x_{i+1} − x_{i−1}, so r̂·A r̂ = 0 in the
  // first iteration (r̂ = p = r₀).
  const auto skew = [&](const std::vector<double>& in, std::vector<double>& out) {
    const size_t m = in.size();
    out.assign(m, 0.0);
    for (size_t i = 0; i < m; ++i) out[i] = in[(i + 1) % m] - in[(i + m - 1) % m];
  };
  std::vector<double> x(size_t(n), 0.0);
  CgResult r = bicgstab(cpu, skew, b, x, nullptr, CgOptions{});
  EXPECT_FALSE(r.converged);
  EXPECT_NE(r.stop_reason.find("breakdown"), std::string::npos) << r.stop_reason;

  const auto nan_op = [&](const std::vector<double>& in, std::vector<double>& out) { cpu.scale(std::nan(""), in, out); };
  std::fill(x.begin(), x.end(), 0.0);
  r = bicgstab(cpu, nan_op, b, x, nullptr, CgOptions{});
  EXPECT_FALSE(r.converged);
  EXPECT_NE(r.stop_reason.find("non-finite"), std::string::npos) << r.stop_reason;

  ConvectionDiffusion1d<CpuBackend> op(cpu, 1000, 2.01, 0.5);
  const std::vector<double> b2 = mixed_values(1000, 3, 0, 0);
  std::vector<double> x2(1000, 0.0);
  CgOptions options;
  options.max_iterations = 3;
  options.tolerance = 1e-12;
  int calls = 0;
  options.progress = [&](int, double, double) { ++calls; };
  r = bicgstab(cpu, op, b2, x2, nullptr, options);
  EXPECT_FALSE(r.converged);
  EXPECT_EQ(r.stop_reason, "max_iterations");
  EXPECT_EQ(r.iterations, 3);
  EXPECT_EQ(calls, 3);
}

}  // namespace
}  // namespace ss::test
