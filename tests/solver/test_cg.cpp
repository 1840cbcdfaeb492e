// CG over both backends on a periodic 1D operator built from backend primitives:
//   (A x)_i = 3 x_i − x_{i−1} − x_{i+1}  (indices mod n), eigenvalues 3 − 2cos θ ∈ [1, 5]: SPD.
// On the GPU the neighbours come from two gathers, so the solver runs entirely on textures.
#include <gtest/gtest.h>

#include <cmath>
#include <utility>

#include "cpu/cpu_backend.hpp"
#include "support/gl_fixture.hpp"
#include "support/periodic_stencil.hpp"
#include "solver/cg.hpp"
#include "solver/refinement.hpp"
#include "support/test_data.hpp"
#include "util/error.hpp"

namespace ss::test {
namespace {

// (A x)_i = 3 x_i − x_{i−1} − x_{i+1}.
template <class Backend>
struct PeriodicOperator : PeriodicStencil<Backend> {
  PeriodicOperator(Backend& b, std::int64_t n) : PeriodicStencil<Backend>(b, n, 3.0, -1.0, -1.0) {}
};

// Residual ||b − A x|| / ||b|| computed in double on the CPU (A with `diagonal` in place of 3).
double true_residual(const std::vector<double>& x, const std::vector<double>& b, double diagonal = 3) {
  const size_t n = x.size();
  double r2 = 0, b2 = 0;
  for (size_t i = 0; i < n; ++i) {
    const double ax = diagonal * x[i] - x[(i + n - 1) % n] - x[(i + 1) % n];
    r2 += (b[i] - ax) * (b[i] - ax);
    b2 += b[i] * b[i];
  }
  return std::sqrt(r2 / b2);
}

class CgTest : public GlTest {};

// CG on `make` (a GpuBackend factory) against the CPU reference for several sizes.
template <class MakeGpu>
void expect_gpu_cg_matches_cpu(const MakeGpu& make, std::initializer_list<std::int64_t> sizes) {
  for (std::int64_t n : sizes) {
    const std::vector<double> hb = mixed_values(n, 7, 0, 0);
    CpuBackend cpu;
    PeriodicOperator<CpuBackend> cpu_op(cpu, n);
    std::vector<double> cx(size_t(n), 0.0);
    CgOptions options;
    options.tolerance = 1e-5;
    const CgResult cr = conjugate_gradient(cpu, cpu_op, hb, cx, nullptr, options);
    ASSERT_TRUE(cr.converged) << cr.stop_reason;
    EXPECT_LE(true_residual(cx, hb), 1e-5);

    GpuBackend gpu = make();
    PeriodicOperator<GpuBackend> gpu_op(gpu, n);
    auto b = gpu.upload(hb), x = gpu.make_vector(n);
    const CgResult gr = conjugate_gradient(gpu, gpu_op, b, x, nullptr, options);
    ASSERT_TRUE(gr.converged) << gr.stop_reason << " n=" << n;
    const std::vector<double> gx = gpu.download(x);
    // fp32 solve: the true residual sits at the float rounding of A x (≈ 1e-6 relative).
    EXPECT_LE(true_residual(gx, hb), 1e-4) << "n=" << n;
    EXPECT_LE(std::abs(gr.iterations - cr.iterations), 3 + cr.iterations / 10) << "n=" << n;
    double diff = 0, range = 0;
    for (size_t i = 0; i < gx.size(); ++i) diff = std::max(diff, std::fabs(gx[i] - cx[i])), range = std::max(range, std::fabs(cx[i]));
    EXPECT_LE(diff, 1e-4 * range) << "n=" << n;
  }
}

TEST_F(CgTest, GpuAndCpuConvergeToTheSameSolution) {
  expect_gpu_cg_matches_cpu([&] { return make_gpu(); }, {1, 2, 7, 1025, 100'003});
}

// The same solve with every kernel launched as a compute shader (both packings).
TEST_F(CgTest, ComputeLaunchConvergesToTheSameSolution) {
  for (Packing packing : {Packing::r32f, Packing::rgba32f}) {
    SCOPED_TRACE(to_string(packing));
    LayoutOptions layout;
    layout.packing = packing;
    expect_gpu_cg_matches_cpu([&] { return make_gpu(layout, compute_launch()); }, {7, 100'003});
  }
}

TEST_F(CgTest, JacobiPreconditionerGivesTheSameSolution) {
  const std::int64_t n = 4099;
  GpuBackend gpu = make_gpu();
  PeriodicOperator<GpuBackend> op(gpu, n);
  const std::vector<double> hb = mixed_values(n, 11, 0, 0);
  auto b = gpu.upload(hb), x = gpu.make_vector(n);
  auto inverse_diagonal = gpu.upload(std::vector<double>(size_t(n), 1.0 / 3.0));
  CgOptions options;
  options.tolerance = 1e-5;
  const CgResult r = conjugate_gradient(gpu, op, b, x, &inverse_diagonal, options);
  ASSERT_TRUE(r.converged) << r.stop_reason;
  EXPECT_LE(true_residual(gpu.download(x), hb), 1e-4);
  EXPECT_EQ(r.history.size(), size_t(r.iterations) + 1);
}

// Single-sync (Chronopoulos–Gear) and pipelined (Ghysels–Vanroose) CG: the same iterates as
// textbook CG in exact arithmetic, so the same residual history in double and about the same
// iteration count; GPU (both packings, both launch paths) against its CPU twin.
class CgVariantTest : public GlTest, public ::testing::WithParamInterface<CgVariant> {};

TEST_P(CgVariantTest, ConvergesLikeTextbookAndMatchesTheCpuTwin) {
  const std::int64_t n = 4099;
  const std::vector<double> hb = mixed_values(n, 13, 0, 0);
  const std::vector<double> inverse_diagonal(size_t(n), 1.0 / 3.0);
  CgOptions options;
  options.tolerance = 1e-5;
  CpuBackend cpu;
  PeriodicOperator<CpuBackend> cpu_op(cpu, n);
  std::vector<double> textbook_x(size_t(n), 0.0), variant_x(size_t(n), 0.0);
  const CgResult textbook = conjugate_gradient(cpu, cpu_op, hb, textbook_x, &inverse_diagonal, options);
  options.variant = GetParam();
  const CgResult variant = conjugate_gradient(cpu, cpu_op, hb, variant_x, &inverse_diagonal, options);
  ASSERT_TRUE(textbook.converged && variant.converged) << textbook.stop_reason << " / " << variant.stop_reason;
  EXPECT_LE(std::abs(variant.iterations - textbook.iterations), 1) << variant.iterations << " vs " << textbook.iterations;
  EXPECT_LE(true_residual(variant_x, hb), 1e-5);
  EXPECT_EQ(variant.history.size(), size_t(variant.iterations) + 1);
  for (size_t k = 0; k < variant.history.size(); ++k)  // the same residual history in double
    EXPECT_NEAR(variant.history[k], textbook.history[k], 1e-8 * textbook.history[0]) << "iteration " << k;

  for (Packing packing : {Packing::r32f, Packing::rgba32f}) {
    for (bool compute : {false, true}) {
      SCOPED_TRACE(std::string(to_string(packing)) + (compute ? " compute" : " fragment"));
      LayoutOptions layout;
      layout.packing = packing;
      GpuBackend gpu = compute ? make_gpu(layout, compute_launch()) : make_gpu(layout);
      PeriodicOperator<GpuBackend> gpu_op(gpu, n);
      auto b = gpu.upload(hb), x = gpu.make_vector(n), d = gpu.upload(inverse_diagonal);
      const CgResult r = conjugate_gradient(gpu, gpu_op, b, x, &d, options);
      ASSERT_TRUE(r.converged) << r.stop_reason;
      EXPECT_LE(std::abs(r.iterations - variant.iterations), 2);
      const std::vector<double> gx = gpu.download(x);
      EXPECT_LE(true_residual(gx, hb), 1e-4);
      EXPECT_LE(max_rel_diff(gx, variant_x), 1e-4);
    }
  }
}

// zero_start: x is zeroed and r₀ = b with no product — the iterates of CG from x = 0 (one product
// fewer); reference_norm: a solve for the correction δ = x − x₀ from 0 (b' = b − A x₀) measured
// against ||b|| stops where CG from x₀ stops.
void expect_zero_start_and_reference_norm_are_cg_from_the_guess(CgVariant variant) {
  const std::int64_t n = 1031;
  const std::vector<double> hb = mixed_values(n, 7, 0, 0);
  CpuBackend cpu;
  PeriodicOperator<CpuBackend> op(cpu, n);
  int products = 0;
  const auto counted = [&](const std::vector<double>& in, std::vector<double>& out) { ++products, op(in, out); };
  CgOptions options;
  options.variant = variant;
  options.tolerance = 1e-7;
  std::vector<double> from_zero(size_t(n), 0.0), zero_start(size_t(n), 5.0);  // garbage the start zeroes
  const CgResult a = conjugate_gradient(cpu, counted, hb, from_zero, nullptr, options);
  const int products_a = std::exchange(products, 0);
  CgOptions zero = options;
  zero.zero_start = true;
  const CgResult b = conjugate_gradient(cpu, counted, hb, zero_start, nullptr, zero);
  ASSERT_TRUE(a.converged && b.converged);
  EXPECT_EQ(b.iterations, a.iterations);
  EXPECT_EQ(products, products_a - 1);
  EXPECT_LE(max_rel_diff(zero_start, from_zero), 1e-12);

  std::vector<double> guess = mixed_values(n, 3, 0, 0);
  for (double& g : guess) g *= 0.1;
  std::vector<double> x_from_guess = guess;
  const CgResult c = conjugate_gradient(cpu, op, hb, x_from_guess, nullptr, options);
  std::vector<double> ax(static_cast<size_t>(n)), correction_rhs(ax), delta(ax);
  op(guess, ax);
  for (size_t i = 0; i < size_t(n); ++i) correction_rhs[i] = hb[i] - ax[i];
  CgOptions correction = zero;
  correction.reference_norm = std::sqrt(cpu.norm2(hb));
  const CgResult d = conjugate_gradient(cpu, op, correction_rhs, delta, nullptr, correction);
  ASSERT_TRUE(c.converged && d.converged);
  EXPECT_LE(std::abs(d.iterations - c.iterations), 1) << d.iterations << " vs " << c.iterations;
  for (size_t i = 0; i < size_t(n); ++i) delta[i] += guess[i];
  EXPECT_LE(max_rel_diff(delta, x_from_guess), 1e-10);
  EXPECT_LE(true_residual(delta, hb), 1e-7);
  EXPECT_GT(true_residual(delta, hb), 1e-10);  // not solved further than the tolerance asks
}

// A CPU backend that counts its reductions (each a read-back on a GPU, an MPI_Allreduce over ranks).
struct CountingCpuBackend : CpuBackend {
  int reductions = 0;
  double dot(const Vector& x, const Vector& y) { return ++reductions, CpuBackend::dot(x, y); }
  double norm2(const Vector& x) { return ++reductions, CpuBackend::norm2(x); }
  std::vector<double> dots(const std::vector<std::pair<const Vector*, const Vector*>>& pairs, std::int64_t count = -1,
                           const Vector* weights = nullptr) {
    return ++reductions, CpuBackend::dots(pairs, count, weights);
  }
};

// precondition_first (what conjugate_gradient() sets for Jacobi): z = M⁻¹ r before the convergence
// test, ||r||² and r·z from one reduction — 1 + 2k reductions for k iterations instead of
// 3 + 3k − 1 (the last iteration stops before its r·z), the same iterates; on the GPU (both
// packings) the same solve to float accuracy.
TEST_F(CgTest, PreconditioningFirstFusesTheResidualNormWithRho) {
  const std::int64_t n = 2053;
  const std::vector<double> hb = mixed_values(n, 11, 0, 0);
  std::vector<double> inverse_diagonal(static_cast<size_t>(n));
  for (size_t i = 0; i < inverse_diagonal.size(); ++i) inverse_diagonal[i] = 1.0 / (3.0 + double(i % 7) * 0.1);
  CountingCpuBackend cpu;
  PeriodicOperator<CountingCpuBackend> op(cpu, n);
  const auto jacobi = [&](const std::vector<double>& r, std::vector<double>& z) { cpu.multiply(inverse_diagonal, r, z); };
  CgOptions options;
  options.tolerance = 1e-8;
  std::vector<double> plain_x(size_t(n), 0.0), fused_x(size_t(n), 0.0);
  const CgResult plain = preconditioned_conjugate_gradient(cpu, op, hb, plain_x, jacobi, options);
  const int plain_reductions = std::exchange(cpu.reductions, 0);
  const CgResult fused = conjugate_gradient(cpu, op, hb, fused_x, &inverse_diagonal, options);
  ASSERT_TRUE(plain.converged && fused.converged);
  ASSERT_GT(plain.iterations, 10);
  EXPECT_EQ(fused.iterations, plain.iterations);
  EXPECT_EQ(plain_reductions, 3 + 3 * plain.iterations - 1);
  EXPECT_EQ(cpu.reductions, 1 + 2 * fused.iterations);
  for (size_t k = 0; k < fused.history.size(); ++k)
    EXPECT_NEAR(fused.history[k], plain.history[k], 1e-12 * plain.history[0]) << "iteration " << k;
  EXPECT_LE(max_rel_diff(fused_x, plain_x), 1e-12);

  for (Packing packing : {Packing::r32f, Packing::rgba32f}) {
    SCOPED_TRACE(to_string(packing));
    LayoutOptions layout;
    layout.packing = packing;
    GpuBackend gpu = make_gpu(layout, compute_launch());
    PeriodicOperator<GpuBackend> gpu_op(gpu, n);
    const auto d = gpu.upload(inverse_diagonal), b = gpu.upload(hb);
    auto x = gpu.make_vector(n);
    const CgResult r = conjugate_gradient(gpu, gpu_op, b, x, &d, options);
    ASSERT_TRUE(r.converged) << r.stop_reason;
    EXPECT_LE(std::abs(r.iterations - plain.iterations), 2);
    EXPECT_LE(max_rel_diff(gpu.download(x), plain_x), 1e-4);
  }
}

TEST(CgStart, ZeroStartAndReferenceNormAreCgFromTheGuess) {
  for (CgVariant variant : {CgVariant::textbook, CgVariant::single_sync, CgVariant::pipelined}) {
    SCOPED_TRACE(to_string(variant));
    expect_zero_start_and_reference_norm_are_cg_from_the_guess(variant);
  }
}

TEST_P(CgVariantTest, StopsWithAReasonOnBreakdown) {
  CpuBackend cpu;
  const std::vector<double> b(10, 1.0);
  std::vector<double> x(10, 0.0);
  CgOptions options;
  options.variant = GetParam();
  auto negative = [&](const std::vector<double>& in, std::vector<double>& out) { cpu.scale(-1.0, in, out); };
  CgResult r = conjugate_gradient(cpu, negative, b, x, nullptr, options);
  EXPECT_FALSE(r.converged);
  EXPECT_NE(r.stop_reason.find("positive definite"), std::string::npos) << r.stop_reason;
  EXPECT_EQ(r.iterations, 0);
  auto nan_op = [&](const std::vector<double>& in, std::vector<double>& out) { cpu.scale(std::nan(""), in, out); };
  std::fill(x.begin(), x.end(), 0.0);
  r = conjugate_gradient(cpu, nan_op, b, x, nullptr, options);
  EXPECT_FALSE(r.converged);
  EXPECT_NE(r.stop_reason.find("non-finite"), std::string::npos) << r.stop_reason;
  EXPECT_EQ(parse_cg_variant(to_string(GetParam())), GetParam());
}

TEST_P(CgVariantTest, MaxIterationsIsReported) {
  CpuBackend cpu;
  PeriodicOperator<CpuBackend> op(cpu, 1000);
  const std::vector<double> b = mixed_values(1000, 3, 0, 0);
  std::vector<double> x(1000, 0.0);
  CgOptions options;
  options.variant = GetParam();
  options.max_iterations = 3;
  options.tolerance = 1e-12;
  int calls = 0;
  options.progress = [&](int, double, double) { ++calls; };
  const CgResult r = conjugate_gradient(cpu, op, b, x, nullptr, options);
  EXPECT_FALSE(r.converged);
  EXPECT_EQ(r.stop_reason, "max_iterations");
  EXPECT_EQ(r.iterations, 3);
  EXPECT_EQ(calls, 3);
}

// The stability guard (float32 GPU): when the solve says converged, the true residual (in double
// on the host) is within 10× of the tolerance; a tolerance below what float32 reaches ends as
// "drifted apart" after the replacements. Ill-conditioned (κ ≈ 4·10⁴):
// (A x)_i = 2.0001 x_i − x_{i−1} − x_{i+1}.
TEST_F(CgTest, SingleSyncReportsNoConvergenceTheTrueResidualDoesNotShow) {
  const std::int64_t n = 1000;
  const double diagonal = 2.0001;
  const std::vector<double> hb = mixed_values(n, 5, 0, 0);
  GpuBackend gpu = make_gpu();
  const PeriodicStencil<GpuBackend> apply(gpu, n, diagonal, -1.0, -1.0);
  for (double tolerance : {1e-4, 1e-11}) {
    SCOPED_TRACE("tolerance " + std::to_string(tolerance));
    CgOptions options;
    options.variant = CgVariant::single_sync;
    options.tolerance = tolerance;
    auto b = gpu.upload(hb), x = gpu.make_vector(n);
    const CgResult r = conjugate_gradient(gpu, apply, b, x, nullptr, options);
    if (tolerance > 1e-6) {
      ASSERT_TRUE(r.converged) << r.stop_reason;
      EXPECT_LE(true_residual(gpu.download(x), hb, diagonal), 10 * tolerance);
    } else {
      EXPECT_FALSE(r.converged);
      EXPECT_NE(r.stop_reason.find("drifted apart"), std::string::npos) << r.stop_reason;
      EXPECT_EQ(r.replacements, options.max_replacements);
    }
  }
}

// Pipelined CG in float32 (GPU) on (A x)_i = 2.01 x_i − x_{i−1} − x_{i+1} (κ ≈ 400): with its
// residual replaced every 25 iterations it makes textbook CG's iterations to the same tolerance and
// true residual (every 50, the default, 170 against 96 here); without, its recurrences' rounding
// stalls it (more than 10× the iterations).
TEST_F(CgTest, PipelinedInFloat32NeedsItsResidualReplacement) {
  const std::int64_t n = 1000;
  const double diagonal = 2.01;
  const std::vector<double> hb = mixed_values(n, 5, 0, 0);
  for (bool compute : {false, true}) {
    SCOPED_TRACE(compute ? "compute" : "fragment");
    GpuBackend gpu = compute ? make_gpu({}, compute_launch()) : make_gpu();
    const PeriodicStencil<GpuBackend> apply(gpu, n, diagonal, -1.0, -1.0);
    CgOptions options;
    options.tolerance = 1e-4;
    auto b = gpu.upload(hb), x = gpu.make_vector(n);
    const CgResult textbook = conjugate_gradient(gpu, apply, b, x, nullptr, options);
    ASSERT_TRUE(textbook.converged) << textbook.stop_reason;
    options.variant = CgVariant::pipelined;
    options.replacement_period = 25;
    gpu.fill(x, 0.0);
    const CgResult pipelined = conjugate_gradient(gpu, apply, b, x, nullptr, options);
    ASSERT_TRUE(pipelined.converged) << pipelined.stop_reason;
    EXPECT_LE(std::abs(pipelined.iterations - textbook.iterations), 3)
        << pipelined.iterations << " vs " << textbook.iterations;
    EXPECT_EQ(pipelined.periodic_replacements, pipelined.iterations / options.replacement_period);
    EXPECT_FALSE(pipelined.fell_back);
    EXPECT_LE(true_residual(gpu.download(x), hb, diagonal), 10 * options.tolerance);
    options.replacement_period = 0;
    options.max_iterations = 10 * textbook.iterations;
    gpu.fill(x, 0.0);
    const CgResult unreplaced = conjugate_gradient(gpu, apply, b, x, nullptr, options);
    EXPECT_FALSE(unreplaced.converged && !unreplaced.fell_back) << unreplaced.iterations << " iterations";
    EXPECT_EQ(unreplaced.periodic_replacements, 0);
  }
}

// Where the replacement does not keep the float32 recurrences in check — (A x)_i = 2.0001 x_i −
// x_{i−1} − x_{i+1}, κ ≈ 4·10⁴, 500 textbook iterations — their residual grows from its smallest
// and single-sync CG solves again from the initial guess: converged to the tolerance's true residual.
// The mixed-precision refinement (the heat solves) counts the inner solves that fell back.
TEST_F(CgTest, PipelinedFallsBackToSingleSyncWhenItsRecurrencesDiverge) {
  const std::int64_t n = 1000;
  const double diagonal = 2.0001;
  const std::vector<double> hb = mixed_values(n, 5, 0, 0);
  GpuBackend gpu = make_gpu();
  const PeriodicStencil<GpuBackend> apply(gpu, n, diagonal, -1.0, -1.0);
  CgOptions options;
  options.variant = CgVariant::pipelined;
  options.tolerance = 1e-4;
  auto b = gpu.upload(hb), x = gpu.make_vector(n);
  const CgResult r = conjugate_gradient(gpu, apply, b, x, nullptr, options);
  ASSERT_TRUE(r.converged) << r.stop_reason;
  EXPECT_TRUE(r.fell_back);
  EXPECT_EQ(r.history.size(), size_t(r.iterations) + 1);
  EXPECT_LE(true_residual(gpu.download(x), hb, diagonal), 10 * options.tolerance);

  RefinementOptions refinement;
  refinement.variant = CgVariant::pipelined;
  refinement.tolerance = options.tolerance;
  GpuBackend::PreciseVector precise = gpu.make_precise(n);
  gpu.fill(x, 0.0);
  gpu.to_precise(x, precise);
  Field residual;
  const auto residual_of = [&](const GpuBackend::PreciseVector& v) -> const Field& {  // b − A v in double
    const std::vector<double> hv = gpu.download_precise(v);
    std::vector<double> hr(hv.size());
    for (size_t i = 0; i < hv.size(); ++i)
      hr[i] = hb[i] - (diagonal * hv[i] - hv[(i + hv.size() - 1) % hv.size()] - hv[(i + 1) % hv.size()]);
    residual = gpu.upload(hr);
    return residual;
  };
  const RefinementResult refined = refine_solution(
      gpu, residual_of, std::sqrt(gpu.norm2(b)), apply, precise, [&](const Field& from, Field& to) { gpu.copy(from, to); },
      refinement);
  ASSERT_TRUE(refined.converged) << refined.stop_reason;
  EXPECT_GE(refined.fall_backs, 1);
  EXPECT_LE(true_residual(gpu.download_precise(precise), hb, diagonal), refinement.tolerance);
}

INSTANTIATE_TEST_SUITE_P(OneReduction, CgVariantTest, ::testing::Values(CgVariant::single_sync, CgVariant::pipelined),
                         [](const auto& info) { return std::string(to_string(info.param)); });

TEST_F(CgTest, StopsWithAReasonOnBreakdown) {
  CpuBackend cpu;
  const std::vector<double> b(10, 1.0);
  std::vector<double> x(10, 0.0);
  // A = −I is negative definite: p·Ap < 0 in the first iteration.
  auto negative = [&](const std::vector<double>& in, std::vector<double>& out) { cpu.scale(-1.0, in, out); };
  CgResult r = conjugate_gradient(cpu, negative, b, x, nullptr, CgOptions{});
  EXPECT_FALSE(r.converged);
  EXPECT_NE(r.stop_reason.find("positive definite"), std::string::npos) << r.stop_reason;
  EXPECT_EQ(r.iterations, 0);
  // A producing NaN: non-finite detected within one iteration.
  auto nan_op = [&](const std::vector<double>& in, std::vector<double>& out) {
    cpu.scale(std::nan(""), in, out);
  };
  std::fill(x.begin(), x.end(), 0.0);
  r = conjugate_gradient(cpu, nan_op, b, x, nullptr, CgOptions{});
  EXPECT_FALSE(r.converged);
  EXPECT_NE(r.stop_reason.find("non-finite"), std::string::npos) << r.stop_reason;

  GpuBackend gpu = make_gpu();
  auto gb = gpu.upload(b), gx = gpu.make_vector(10);
  auto gpu_negative = [&](const Field& in, Field& out) { gpu.scale(-1.0, in, out); };
  r = conjugate_gradient(gpu, gpu_negative, gb, gx, nullptr, CgOptions{});
  EXPECT_NE(r.stop_reason.find("positive definite"), std::string::npos) << r.stop_reason;
  EXPECT_THROW(parse_cg_variant("s_step"), Error);
}

TEST_F(CgTest, MaxIterationsIsReported) {
  CpuBackend cpu;
  PeriodicOperator<CpuBackend> op(cpu, 1000);
  const std::vector<double> b = mixed_values(1000, 3, 0, 0);
  std::vector<double> x(1000, 0.0);
  CgOptions options;
  options.max_iterations = 3;
  options.tolerance = 1e-12;
  int calls = 0;
  options.progress = [&](int, double, double) { ++calls; };
  const CgResult r = conjugate_gradient(cpu, op, b, x, nullptr, options);
  EXPECT_FALSE(r.converged);
  EXPECT_EQ(r.stop_reason, "max_iterations");
  EXPECT_EQ(r.iterations, 3);
  EXPECT_EQ(calls, 3);
}

}  // namespace
}  // namespace ss::test
