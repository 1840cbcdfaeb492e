// Every GPU operation against its CPU twin (*IsEquivalentToRef), at awkward sizes, for both packings
// and both layout policies, on the fragment launch path and (tight layouts) the compute path.
// Inputs are float-exact, so differences are the GPU's float rounding.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <numeric>
#include <string>
#include <tuple>

#include "cpu/cpu_backend.hpp"
#include "support/gl_fixture.hpp"
#include "support/test_data.hpp"
#include "util/error.hpp"

namespace ss::test {
namespace {

struct Config {
  LayoutPolicy policy;
  Packing packing;
  LaunchPath launch = LaunchPath::fragment;
};

std::string config_name(const Config& c) {
  std::string name = std::string(to_string(c.policy)) + "_" + to_string(c.packing);
  if (c.launch == LaunchPath::compute) name += "_compute";
  return name;
}

// z_gpu ≈ z_cpu element-wise within `ulps` float roundings of `scale[i]` (the size of the terms).
void expect_close(const std::vector<double>& gpu, const std::vector<double>& cpu, const std::vector<double>& scale,
                  double ulps, const char* what) {
  ASSERT_EQ(gpu.size(), cpu.size());
  for (size_t i = 0; i < gpu.size(); ++i) {
    const double tolerance = ulps * float_unit_roundoff * scale[i];
    ASSERT_LE(std::fabs(gpu[i] - cpu[i]), tolerance) << what << " at element " << i << " of " << gpu.size()
                                                     << ": gpu " << gpu[i] << " cpu " << cpu[i];
  }
}

std::vector<double> magnitude(const std::vector<double>& a, double ca, const std::vector<double>& b, double cb) {
  std::vector<double> m(a.size());
  for (size_t i = 0; i < a.size(); ++i) m[i] = std::fabs(ca * a[i]) + std::fabs(cb * b[i]);
  return m;
}

class GpuOps : public GlTest, public ::testing::WithParamInterface<std::tuple<Config, std::int64_t>> {
protected:
  void SetUp() override {
    GlTest::SetUp();
    const auto [config, n] = GetParam();
    options.policy = config.policy;
    options.packing = config.packing;
    gpu_options.launch = config.launch;
    this->n = n;
    hx = mixed_values(n, 1 + n);
    hy = mixed_values(n, 2 + n);
  }
  // Every padding texel component of `v` still holds 0 (the sum identity).
  void expect_zero_padding(const Field& v) {
    const Layout& l = v.layout();
    std::vector<float> all(size_t(l.capacity()));
    v.texture().read_rows(0, l.height, all.data());
    for (std::int64_t i = l.n; i < l.capacity(); ++i) ASSERT_EQ(all[size_t(i)], 0.0f) << "padding element " << i;
  }
  GpuBackend make_gpu() { return GlTest::make_gpu(options, gpu_options); }
  // Every stride-th element with hy's value there, then the last element twice (a repeat).
  std::pair<std::vector<std::int32_t>, std::vector<double>> scatter_targets(std::int64_t stride) const {
    std::vector<std::int32_t> idx;
    std::vector<double> vals;
    for (std::int64_t i = 0; i < n; i += stride) idx.push_back(std::int32_t(i)), vals.push_back(hy[size_t(i)]);
    idx.push_back(std::int32_t(n - 1)), vals.push_back(-7.5);
    idx.push_back(std::int32_t(n - 1)), vals.push_back(8.25);
    return {idx, vals};
  }
  LayoutOptions options;
  GpuOptions gpu_options;
  std::int64_t n = 0;
  std::vector<double> hx, hy;
  CpuBackend cpu;
};

TEST_P(GpuOps, VectorOpsIsEquivalentToRef) {
  GpuBackend gpu = make_gpu();
  const double a = -1.75;  // exact in float
  auto x = gpu.upload(hx), y = gpu.upload(hy), z = gpu.make_vector(n);
  std::vector<double> cz(hx.size());
  std::vector<double> ones(hx.size(), 1.0);

  gpu.copy(x, z);
  EXPECT_EQ(gpu.download(z), hx) << "copy";
  gpu.fill(z, 0.375);
  EXPECT_EQ(gpu.download(z), std::vector<double>(hx.size(), 0.375)) << "fill";
  expect_zero_padding(z);
  std::vector<double> cy = cpu.make_vector(n);
  cpu.upload_into(cy, hy);
  gpu.upload_into(z, std::vector<float>(hy.begin(), hy.end()));
  EXPECT_EQ(gpu.download(z), cy) << "upload_into";
  expect_zero_padding(z);

  gpu.axpy(a, x, y, z);
  cpu.axpy(a, hx, hy, cz);
  expect_close(gpu.download(z), cz, magnitude(hx, a, hy, 1.0), 2, "axpy");
  gpu.xpay(x, a, y, z);
  cpu.xpay(hx, a, hy, cz);
  expect_close(gpu.download(z), cz, magnitude(hx, 1.0, hy, a), 2, "xpay");
  gpu.scale(a, x, z);
  cpu.scale(a, hx, cz);
  expect_close(gpu.download(z), cz, magnitude(hx, a, hx, 0.0), 1, "scale");
  gpu.multiply(x, y, z);
  cpu.multiply(hx, hy, cz);
  std::vector<double> product_scale(hx.size());
  for (size_t i = 0; i < hx.size(); ++i) product_scale[i] = std::fabs(hx[i] * hy[i]);
  expect_close(gpu.download(z), cz, product_scale, 1, "multiply");
  gpu.divide(x, y, z);  // |y| >= 1e-3 by construction
  cpu.divide(hx, hy, cz);
  std::vector<double> quotient_scale(hx.size());
  for (size_t i = 0; i < hx.size(); ++i) quotient_scale[i] = std::fabs(hx[i] / hy[i]);
  expect_close(gpu.download(z), cz, quotient_scale, 6, "divide");  // GLSL allows 2.5 ulp for x/y
  expect_zero_padding(z);
}

TEST_P(GpuOps, LinearCombinationIsEquivalentToRef) {
  GpuBackend gpu = make_gpu();
  const std::vector<double> hw = mixed_values(n, 3 + n), hv = mixed_values(n, 4 + n);
  auto x = gpu.upload(hx), y = gpu.upload(hy), w = gpu.upload(hw), v = gpu.upload(hv), z = gpu.make_vector(n);
  const std::vector<double> c{0.5, -2.0, 1.25, 3.0};
  const std::vector<const std::vector<double>*> hs{&hx, &hy, &hw, &hv};
  const std::vector<const Field*> gs{&x, &y, &w, &v};
  for (size_t terms = 1; terms <= 4; ++terms) {
    std::vector<double> cz(hx.size()), scale(hx.size(), 0.0);
    cpu.linear_combination({c.begin(), c.begin() + terms}, {hs.begin(), hs.begin() + terms}, cz);
    gpu.linear_combination({c.begin(), c.begin() + terms}, {gs.begin(), gs.begin() + terms}, z);
    for (size_t k = 0; k < terms; ++k)
      for (size_t i = 0; i < hx.size(); ++i) scale[i] += std::fabs(c[k] * (*hs[k])[i]);
    expect_close(gpu.download(z), cz, scale, 2.0 * terms, ("linear_combination of " + std::to_string(terms)).c_str());
  }
}

TEST_P(GpuOps, InPlaceUpdatesIsEquivalentToRef) {
  GpuBackend gpu = make_gpu();
  const double a = 0.625;
  auto x = gpu.upload(hx), y = gpu.upload(hy);
  std::vector<double> cx = hx, cy = hy;
  gpu.axpy(a, x, y, y);  // y = y + a·x, output aliases an input (ping-pong)
  cpu.axpy(a, cx, cy, cy);
  expect_close(gpu.download(y), cy, magnitude(hx, a, hy, 1.0), 2, "in-place axpy");
  gpu.scale(2.0, x, x);
  cpu.scale(2.0, cx, cx);
  EXPECT_EQ(gpu.download(x), cx) << "in-place scale by 2 is exact";

  // update_pair: two outputs in one pass (MRT), both aliasing inputs.
  const std::vector<double> hp = mixed_values(n, 5 + n), hq = mixed_values(n, 6 + n);
  auto p = gpu.upload(hp), q = gpu.upload(hq);
  auto gx = gpu.upload(hx), gr = gpu.upload(hy);
  std::vector<double> rx = hx, rr = hy;
  gpu.update_pair(a, p, q, gx, gr);
  cpu.update_pair(a, hp, hq, rx, rr);
  expect_close(gpu.download(gx), rx, magnitude(hx, 1.0, hp, a), 2, "update_pair x");
  expect_close(gpu.download(gr), rr, magnitude(hy, 1.0, hq, a), 2, "update_pair r");
}

TEST_P(GpuOps, ReductionsIsEquivalentToRef) {
  GpuBackend gpu = make_gpu();
  auto x = gpu.upload(hx), y = gpu.upload(hy);
  double abs_sum = 0.0, abs_dot = 0.0, square_sum = 0.0;
  for (size_t i = 0; i < hx.size(); ++i) {
    abs_sum += std::fabs(hx[i]);
    abs_dot += std::fabs(hx[i] * hy[i]);
    square_sum += hx[i] * hx[i];
  }
  EXPECT_NEAR(gpu.sum(x), cpu.sum(hx), reduction_error_bound(n, abs_sum)) << "sum";
  EXPECT_NEAR(gpu.dot(x, y), cpu.dot(hx, hy), reduction_error_bound(n, 2 * abs_dot)) << "dot";
  EXPECT_NEAR(gpu.norm2(x), cpu.norm2(hx), reduction_error_bound(n, 2 * square_sum)) << "norm2";
  EXPECT_EQ(gpu.min(x), cpu.min(hx)) << "min";
  EXPECT_EQ(gpu.max(x), cpu.max(hx)) << "max";
  EXPECT_EQ(gpu.count_nonfinite(x), 0);
}

TEST_P(GpuOps, PaddingNeverLeaksIntoMinMax) {
  GpuBackend gpu = make_gpu();
  std::vector<double> positive(hx.size()), negative(hx.size());
  for (size_t i = 0; i < hx.size(); ++i) positive[i] = double(float(std::fabs(hx[i]) + 1.0)), negative[i] = -positive[i];
  auto p = gpu.upload(positive), m = gpu.upload(negative);
  // The padding holds 0, which would be the min of an all-positive array and the max of an
  // all-negative one if it leaked.
  EXPECT_EQ(gpu.min(p), cpu.min(positive));
  EXPECT_EQ(gpu.max(m), cpu.max(negative));
  EXPECT_EQ(gpu.max(p), cpu.max(positive));
  EXPECT_EQ(gpu.min(m), cpu.min(negative));
}

TEST_P(GpuOps, CountNonFiniteIsEquivalentToRef) {
  GpuBackend gpu = make_gpu();
  std::vector<double> v = hx;
  const double specials[3] = {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity(),
                              -std::numeric_limits<double>::infinity()};
  for (std::int64_t k = 0, i = n / 3; k < 7 && i < n; ++k, i += std::max<std::int64_t>(1, n / 7))
    v[size_t(i)] = specials[k % 3];
  v.back() = specials[0];
  auto g = gpu.upload(v);
  EXPECT_EQ(gpu.count_nonfinite(g), cpu.count_nonfinite(v));
}

TEST_P(GpuOps, ScatterAndGatherIsEquivalentToRef) {
  GpuBackend gpu = make_gpu();
  // Scatter to about every 3rd element, with repeats: the later value wins on both backends.
  auto [idx, vals] = scatter_targets(3);
  idx.push_back(0), vals.push_back(42.0);
  auto z = gpu.upload(hx);
  std::vector<double> cz = hx;
  gpu.scatter(z, idx, vals);
  cpu.scatter(cz, idx, vals);
  EXPECT_EQ(gpu.download(z), cz) << "scatter";
  expect_zero_padding(z);

  // Gather with a reversing permutation plus repeats.
  std::vector<std::int32_t> perm(static_cast<size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) perm[size_t(i)] = std::int32_t((i % 5 == 0) ? 0 : n - 1 - i);
  auto gi = gpu.upload_indices(perm);
  auto gz = gpu.make_vector(n);
  std::vector<double> cg(hx.size());
  gpu.gather(gpu.upload(hx), gi, gz);
  cpu.gather(hx, perm, cg);
  EXPECT_EQ(gpu.download(gz), cg) << "gather";
}

// z[idx] += values with repeats (they accumulate on both backends), in place on an uploaded field.
TEST_P(GpuOps, ScatterAddIsEquivalentToRef) {
  GpuBackend gpu = make_gpu();
  const auto [idx, vals] = scatter_targets(5);
  auto z = gpu.upload(hx);
  std::vector<double> cz = hx;
  gpu.scatter_add(z, idx, vals);
  cpu.scatter_add(cz, idx, vals);
  std::vector<double> scale(cz.size());  // the size of the terms: |x| + Σ |added|
  for (size_t i = 0; i < cz.size(); ++i) scale[i] = std::fabs(hx[i]);
  for (size_t k = 0; k < idx.size(); ++k) scale[size_t(idx[k])] += std::fabs(vals[k]);
  expect_close(gpu.download(z), cz, scale, 3.0, "scatter_add");
  expect_zero_padding(z);
  EXPECT_THROW(gpu.scatter_add(z, {std::int32_t(n)}, {1.0}), Error);
}

// The asynchronous read-back returns what download returns, also with kernels queued behind it
// and when its buffer is reused for another field.
TEST_P(GpuOps, AsyncDownloadIsEquivalentToDownload) {
  GpuBackend gpu = make_gpu();
  auto x = gpu.upload(hx), y = gpu.upload(hy), z = gpu.make_vector(n);
  GpuBackend::PendingDownload pending;
  gpu.axpy(2.0, x, y, z);
  gpu.begin_download(z, pending);
  gpu.axpy(-1.0, x, y, z);  // queued after the copy: must not show in it
  std::vector<double> expect(static_cast<size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) expect[size_t(i)] = double(float(hy[size_t(i)] + 2.0 * hx[size_t(i)]));
  const std::vector<float>& floats = gpu.end_download(pending);  // as stored: no conversion
  std::vector<double> got(floats.begin(), floats.end());
  std::vector<double> scale = magnitude(hx, 2.0, hy, 1.0);
  expect_close(got, expect, scale, 1.0, "async read-back");
  gpu.begin_download(x, pending);
  const std::vector<float>& back = gpu.end_download(pending);
  EXPECT_EQ(std::vector<double>(back.begin(), back.end()), gpu.download(x));
  CpuBackend::PendingDownload cpu_pending;
  cpu.begin_download(hx, cpu_pending);
  EXPECT_EQ(cpu.end_download(cpu_pending), hx);
}

TEST_P(GpuOps, DownloadsSubRanges) {
  GpuBackend gpu = make_gpu();
  auto x = gpu.upload(hx);
  const std::int64_t begin = n / 3, end = n - n / 4;
  const std::vector<float> part = x.download(begin, end);
  ASSERT_EQ(std::int64_t(part.size()), end - begin);
  for (std::int64_t i = begin; i < end; ++i) ASSERT_EQ(double(part[size_t(i - begin)]), hx[size_t(i)]);
}

// Large sizes: 999,983 (prime: a partial last row and texel) and 3,000,000 (the largest sums); a
// round million added nothing they miss.
// The sanitizer pass (tools/run_tests.sh) runs these for memory errors up to 65,537 elements: the
// host code a size runs (layout, upload, download, the reduction's levels) is the same past a few
// texture rows, and a partial last row is 1025's and 65537's; the kernels themselves run in the GL
// driver, outside what the sanitizers see. The large sizes (over half of that pass's time in these
// tests) run in the Release pass; ChunkedUpload's large fields run in both.
#ifdef __SANITIZE_ADDRESS__
const std::int64_t kSizes[] = {1, 2, 3, 7, 1023, 1024, 1025, 65537};
#else
const std::int64_t kSizes[] = {1, 2, 3, 7, 1023, 1024, 1025, 65537, 999'983, 3'000'000};
#endif
const Config kConfigs[] = {{LayoutPolicy::tight, Packing::r32f},
                           {LayoutPolicy::tight, Packing::rgba32f},
                           {LayoutPolicy::thesis, Packing::r32f},
                           {LayoutPolicy::tight, Packing::r32f, LaunchPath::compute},
                           {LayoutPolicy::tight, Packing::rgba32f, LaunchPath::compute}};

INSTANTIATE_TEST_SUITE_P(AwkwardSizes, GpuOps, ::testing::Combine(::testing::ValuesIn(kConfigs), ::testing::ValuesIn(kSizes)),
                         [](const auto& info) {
                           return config_name(std::get<0>(info.param)) + "_n" + std::to_string(std::get<1>(info.param));
                         });

// ---- the kernels of single-sync and pipelined CG and mixed precision: both packings, both launch paths ----

struct SolverConfig {
  Packing packing;
  LaunchPath launch;
};

class SolverOps : public GlTest, public ::testing::WithParamInterface<std::tuple<SolverConfig, std::int64_t>> {
protected:
  void SetUp() override {
    GlTest::SetUp();
    const auto [config, size] = GetParam();
    options.packing = config.packing;
    gpu_options.launch = config.launch;
    n = size;
  }
  GpuBackend make_gpu(int two_output_updates = -1) {
    GpuOptions g = gpu_options;
    g.two_output_updates = two_output_updates;
    return GlTest::make_gpu(options, g);
  }
  LayoutOptions options;
  GpuOptions gpu_options;
  std::int64_t n = 0;
  CpuBackend cpu;
};

// One fused reduction of 1..4 dot products (one read-back) against the CPU twin's one sweep.
TEST_P(SolverOps, MultiDotIsEquivalentToRef) {
  GpuBackend gpu = make_gpu();
  std::vector<std::vector<double>> h;
  std::vector<Field> g;
  for (int k = 0; k < 5; ++k) h.push_back(mixed_values(n, 40 + k + n));
  for (const auto& v : h) g.push_back(gpu.upload(v));
  const int pair_index[4][2] = {{0, 1}, {2, 1}, {0, 0}, {3, 4}};  // as CG uses them: shared and squared factors
  for (size_t m = 1; m <= 4; ++m) {
    std::vector<std::pair<const Field*, const Field*>> gp;
    std::vector<std::pair<const std::vector<double>*, const std::vector<double>*>> cp;
    for (size_t k = 0; k < m; ++k) {
      gp.push_back({&g[size_t(pair_index[k][0])], &g[size_t(pair_index[k][1])]});
      cp.push_back({&h[size_t(pair_index[k][0])], &h[size_t(pair_index[k][1])]});
    }
    const std::vector<double> got = gpu.dots(gp), expect = cpu.dots(cp);
    ASSERT_EQ(got.size(), m);
    ASSERT_EQ(expect.size(), m);
    for (size_t k = 0; k < m; ++k) {
      double magnitude = 0;
      for (std::int64_t i = 0; i < n; ++i) magnitude += std::fabs((*cp[k].first)[size_t(i)] * (*cp[k].second)[size_t(i)]);
      EXPECT_NEAR(expect[k], cpu.dot(*cp[k].first, *cp[k].second), 1e-12 * magnitude + 1e-300) << "cpu twin " << k;
      EXPECT_NEAR(got[k], expect[k], reduction_error_bound(n, 2 * magnitude)) << m << " dots, dot " << k;
    }
  }
}

// Dot products over the first `count` elements (the owned prefix of a distributed vector): elements
// past it do not count, on either backend.
TEST_P(SolverOps, MultiDotOverPrefixIsEquivalentToRef) {
  GpuBackend gpu = make_gpu();
  const std::vector<double> ha = mixed_values(n, 60 + n), hb = mixed_values(n, 61 + n);
  const Field a = gpu.upload(ha), b = gpu.upload(hb);
  for (const std::int64_t count : {std::int64_t(0), std::int64_t(1), n / 2, n - 1, n}) {
    double expect_ab = 0, expect_aa = 0, magnitude = 0;
    for (std::int64_t i = 0; i < count; ++i) {
      expect_ab += ha[size_t(i)] * hb[size_t(i)];
      expect_aa += ha[size_t(i)] * ha[size_t(i)];
      magnitude += std::fabs(ha[size_t(i)] * hb[size_t(i)]) + ha[size_t(i)] * ha[size_t(i)];
    }
    const std::vector<double> cpu_dots = cpu.dots({{&ha, &hb}, {&ha, &ha}}, count);
    EXPECT_NEAR(cpu_dots[0], expect_ab, 1e-12 * magnitude + 1e-300) << "count " << count;
    EXPECT_NEAR(cpu_dots[1], expect_aa, 1e-12 * magnitude + 1e-300) << "count " << count;
    const std::vector<double> gpu_dots = gpu.dots({{&a, &b}, {&a, &a}}, count);
    EXPECT_NEAR(gpu_dots[0], expect_ab, reduction_error_bound(n, 2 * magnitude) + 1e-30) << "count " << count;
    EXPECT_NEAR(gpu_dots[1], expect_aa, reduction_error_bound(n, 2 * magnitude) + 1e-30) << "count " << count;
  }
  EXPECT_THROW(gpu.dots({{&a, &b}}, n + 1), Error);
  EXPECT_THROW(cpu.dots({{&ha, &hb}}, n + 1), Error);
}

// Weighted dot products Σ w_i a_i b_i (a distributed vector's owner marker as w: every third
// entry a ghost) against the CPU twin, and against the products of the masked copies the weights
// replace; the weight is fused into the first pass, so the sums are those of the masked factors.
TEST_P(SolverOps, WeightedMultiDotIsEquivalentToRef) {
  GpuBackend gpu = make_gpu();
  const std::vector<double> ha = mixed_values(n, 70 + n), hb = mixed_values(n, 71 + n);
  std::vector<double> marker(static_cast<size_t>(n)), masked(static_cast<size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) marker[size_t(i)] = i % 3 == 1 ? 0.0 : 1.0;
  for (std::int64_t i = 0; i < n; ++i) masked[size_t(i)] = marker[size_t(i)] * ha[size_t(i)];
  const Field a = gpu.upload(ha), b = gpu.upload(hb), w = gpu.upload(marker), am = gpu.upload(masked);
  double expect_ab = 0, expect_aa = 0, magnitude = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    const size_t j = size_t(i);
    expect_ab += marker[j] * ha[j] * hb[j];
    expect_aa += marker[j] * ha[j] * ha[j];
    magnitude += std::fabs(ha[j] * hb[j]) + ha[j] * ha[j];
  }
  const std::vector<double> cpu_dots = cpu.dots({{&ha, &hb}, {&ha, &ha}}, -1, &marker);
  EXPECT_NEAR(cpu_dots[0], expect_ab, 1e-12 * magnitude + 1e-300);
  EXPECT_NEAR(cpu_dots[1], expect_aa, 1e-12 * magnitude + 1e-300);
  const std::vector<double> gpu_dots = gpu.dots({{&a, &b}, {&a, &a}}, -1, &w);
  EXPECT_NEAR(gpu_dots[0], expect_ab, reduction_error_bound(n, 2 * magnitude) + 1e-30);
  EXPECT_NEAR(gpu_dots[1], expect_aa, reduction_error_bound(n, 2 * magnitude) + 1e-30);
  const std::vector<double> of_masked = gpu.dots({{&am, &b}, {&am, &a}});  // what the weights replace
  EXPECT_EQ(gpu_dots[0], of_masked[0]);
  EXPECT_EQ(gpu_dots[1], of_masked[1]);
  const Field short_weights = gpu.upload(std::vector<double>(static_cast<size_t>(n) + 1, 1.0));
  EXPECT_THROW(gpu.dots({{&a, &b}}, -1, &short_weights), Error);
}

// p = u + a·p, s = w + a·s (and CG's update_pair) as one two-output pass and as two passes.
TEST_P(SolverOps, XpayPairIsEquivalentToRef) {
  const double a = -0.8125;
  const auto hu = mixed_values(n, 50 + n), hw = mixed_values(n, 51 + n), hp = mixed_values(n, 52 + n),
             hs = mixed_values(n, 53 + n);
  std::vector<double> cp = hp, cs = hs;
  cpu.xpay_pair(a, hu, hw, cp, cs);
  for (int two_outputs : {0, 1}) {
    GpuBackend gpu = make_gpu(two_outputs);
    EXPECT_EQ(gpu.two_output_updates(), two_outputs == 1);
    auto u = gpu.upload(hu), w = gpu.upload(hw), p = gpu.upload(hp), s = gpu.upload(hs);
    gpu.xpay_pair(a, u, w, p, s);
    expect_close(gpu.download(p), cp, magnitude(hu, 1.0, hp, a), 2, "xpay_pair p");
    expect_close(gpu.download(s), cs, magnitude(hw, 1.0, hs, a), 2, "xpay_pair s");
    auto x = gpu.upload(hp), r = gpu.upload(hs);
    std::vector<double> rx = hp, rr = hs;
    gpu.update_pair(a, u, w, x, r);
    cpu.update_pair(a, hu, hw, rx, rr);
    expect_close(gpu.download(x), rx, magnitude(hp, 1.0, hu, a), 2, "update_pair x");
    expect_close(gpu.download(r), rr, magnitude(hs, 1.0, hw, a), 2, "update_pair r");
  }
}

// Pipelined CG's recurrences (four outputs a pass, whatever two_output_updates says), every output
// aliasing an input:
// p = u + β·p, s = w + β·s, q = m + β·q, z = n + β·z, then x += α·p, r −= α·s, u −= α·q, w −= α·z.
TEST_P(SolverOps, PipelinedRecurrencesIsEquivalentToRef) {
  const double beta = 0.6875, alpha = -1.3125;
  std::vector<std::vector<double>> h;
  for (int k = 0; k < 10; ++k) h.push_back(mixed_values(n, 70 + k + n));
  // u w m n p s q z x r
  std::vector<std::vector<double>> c = h;
  cpu.pipelined_directions(beta, c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]);
  cpu.pipelined_iterates(alpha, c[4], c[5], c[6], c[7], c[8], c[9], c[0], c[1]);
  // the same recurrences written out from the originals
  for (size_t i = 0; i < size_t(n); ++i) {
    const double p = h[0][i] + beta * h[4][i], s = h[1][i] + beta * h[5][i], q = h[2][i] + beta * h[6][i],
                 z = h[3][i] + beta * h[7][i];
    ASSERT_DOUBLE_EQ(c[4][i], p);
    ASSERT_DOUBLE_EQ(c[8][i], h[8][i] + alpha * p);
    ASSERT_DOUBLE_EQ(c[9][i], h[9][i] - alpha * s);
    ASSERT_DOUBLE_EQ(c[0][i], h[0][i] - alpha * q);
    ASSERT_DOUBLE_EQ(c[1][i], h[1][i] - alpha * z);
  }
  const char* names[10] = {"u", "w", "m", "n", "p", "s", "q", "z", "x", "r"};
  // every output is a sum of terms no larger than (1 + |β|)(1 + |α|) times the largest input there
  std::vector<double> scale(size_t(n), 0.0);
  for (size_t i = 0; i < size_t(n); ++i)
    for (const auto& v : h) scale[i] = std::max(scale[i], (1 + std::fabs(beta)) * (1 + std::fabs(alpha)) * std::fabs(v[i]));
  for (int two_outputs : {0, 1}) {
    GpuBackend gpu = make_gpu(two_outputs);
    std::vector<Field> g;
    for (const auto& v : h) g.push_back(gpu.upload(v));
    gpu.pipelined_directions(beta, g[0], g[1], g[2], g[3], g[4], g[5], g[6], g[7]);
    gpu.pipelined_iterates(alpha, g[4], g[5], g[6], g[7], g[8], g[9], g[0], g[1]);
    for (size_t k = 0; k < 10; ++k)
      expect_close(gpu.download(g[k]), c[k], scale, 3,
                   (std::string("pipelined ") + names[k]).c_str());
  }
}

// begin_dots / end_dots: the reduction of dots() queued and read back later, with kernels queued in
// between that overwrite the reduced vectors: the results are those of the vectors at begin_dots.
TEST_P(SolverOps, DeferredDotsIsEquivalentToRef) {
  GpuBackend gpu = make_gpu();
  const std::vector<double> ha = mixed_values(n, 80 + n), hb = mixed_values(n, 81 + n);
  Field a = gpu.upload(ha), b = gpu.upload(hb);
  const std::vector<double> expect = cpu.dots({{&ha, &hb}, {&ha, &ha}, {&hb, &hb}});
  GpuBackend::PendingDots pending;
  for (int round = 0; round < 2; ++round) {  // the pending state is reused
    gpu.begin_dots({{&a, &b}, {&a, &a}, {&b, &b}}, pending);
    gpu.scale(2.0, a, a);
    const std::vector<double> later = gpu.dots({{&a, &a}});  // a blocking reduction in between
    const std::vector<double> got = gpu.end_dots(pending);
    ASSERT_EQ(got.size(), 3u);
    double magnitude_ab = 0, magnitude_aa = 0, magnitude_bb = 0;
    for (size_t i = 0; i < size_t(n); ++i)
      magnitude_ab += std::fabs(ha[i] * hb[i]), magnitude_aa += ha[i] * ha[i], magnitude_bb += hb[i] * hb[i];
    EXPECT_NEAR(got[0], expect[0], reduction_error_bound(n, 2 * magnitude_ab)) << "round " << round;
    EXPECT_NEAR(got[1], expect[1], reduction_error_bound(n, 2 * magnitude_aa)) << "round " << round;
    EXPECT_NEAR(got[2], expect[2], reduction_error_bound(n, 2 * magnitude_bb)) << "round " << round;
    EXPECT_NEAR(later[0], 4 * expect[1], reduction_error_bound(n, 8 * magnitude_aa)) << "round " << round;
    gpu.scale(0.5, a, a);
  }
  CpuBackend::PendingDots cpu_pending;
  cpu.begin_dots({{&ha, &hb}}, cpu_pending);
  EXPECT_EQ(cpu.end_dots(cpu_pending), std::vector<double>{expect[0]});
}

// Precise vectors (float pairs, fp64 kernels): upload/download to 2^-47, x += d in double, the
// exact scatter of doubles, masking; against the CPU twin (plain doubles).
TEST_P(SolverOps, PreciseOpsIsEquivalentToRef) {
  GpuBackend gpu = make_gpu();
  std::vector<double> hx(static_cast<size_t>(n));
  const std::vector<double> noise = mixed_values(n, 60 + n);
  for (size_t i = 0; i < hx.size(); ++i) hx[i] = 100.0 + noise[i] / 3.0;  // no float values
  const auto hd = mixed_values(n, 61 + n, -9, -3);
  auto X = gpu.upload_precise(hx);
  std::vector<double> cx = hx;
  const auto within = [](const std::vector<double>& got, const std::vector<double>& expect, double relative, const char* what) {
    ASSERT_EQ(got.size(), expect.size());
    for (size_t i = 0; i < got.size(); ++i)
      ASSERT_LE(std::fabs(got[i] - expect[i]), relative * std::fabs(expect[i]) + 1e-300)
          << what << " at " << i << ": " << got[i] << " vs " << expect[i];
  };
  within(gpu.download_precise(X), hx, 0x1p-47, "upload_precise");
  EXPECT_EQ(gpu.download(gpu.working(X)), std::vector<double>(gpu.download(gpu.upload(hx)))) << "working = nearest float";
  auto d = gpu.upload(hd);
  for (int k = 0; k < 3; ++k) {
    gpu.accumulate_precise(X, d);
    cpu.accumulate_precise(cx, hd);
  }
  within(gpu.download_precise(X), cx, 0x1p-45, "accumulate_precise");  // four roundings to 2^-48
  std::vector<std::int32_t> idx;
  std::vector<double> vals;
  for (std::int64_t i = 0; i < n; i += 5) idx.push_back(std::int32_t(i)), vals.push_back(20.0 + 1.0 / double(3 + i));
  gpu.scatter_precise(X, idx, vals);
  cpu.scatter_precise(cx, idx, vals);
  within(gpu.download_precise(X), cx, 0x1p-47, "scatter_precise");
  std::vector<double> mask(static_cast<size_t>(n));
  for (size_t i = 0; i < mask.size(); ++i) mask[i] = i % 3 == 1 ? 0.0 : 1.0;
  gpu.mask_precise(gpu.upload(mask), X);
  cpu.mask_precise(mask, cx);
  within(gpu.download_precise(X), cx, 0x1p-47, "mask_precise");
  auto x = gpu.upload(hd);
  gpu.to_precise(x, X);
  EXPECT_EQ(gpu.download_precise(X), gpu.download(x)) << "to_precise";
}

// The sanitizer pass stops at 65,537 elements, as for GpuOps above.
#ifdef __SANITIZE_ADDRESS__
const std::int64_t kSolverSizes[] = {1, 2, 3, 7, 1023, 1025, 65537};
#else
const std::int64_t kSolverSizes[] = {1, 2, 3, 7, 1023, 1025, 65537, 999'983};
#endif
const SolverConfig kSolverConfigs[] = {{Packing::r32f, LaunchPath::fragment},
                                       {Packing::rgba32f, LaunchPath::fragment},
                                       {Packing::r32f, LaunchPath::compute},
                                       {Packing::rgba32f, LaunchPath::compute}};

INSTANTIATE_TEST_SUITE_P(AwkwardSizes, SolverOps,
                         ::testing::Combine(::testing::ValuesIn(kSolverConfigs), ::testing::ValuesIn(kSolverSizes)),
                         [](const auto& info) {
                           const SolverConfig& c = std::get<0>(info.param);
                           return std::string(to_string(c.packing)) + "_" + to_string(c.launch) + "_n" +
                                  std::to_string(std::get<1>(info.param));
                         });

// ---- sizes and errors that need no parameter sweep ----

class GpuOpsSingle : public GlTest {};

TEST_F(GpuOpsSingle, SumOf3MillionPositiveValuesWithin1e6OfDouble) {
  for (Packing packing : {Packing::r32f, Packing::rgba32f}) {
    LayoutOptions o;
    o.packing = packing;
    GpuBackend gpu = make_gpu(o);
    CpuBackend cpu;
    const std::vector<double> v = positive_values(3'000'000, 99);
    const double exact = cpu.sum(v);
    EXPECT_LE(std::fabs(gpu.sum(gpu.upload(v)) - exact) / exact, 1e-6) << to_string(packing);
  }
}

// A scatter list (indices checked and uploaded once, then only values per call, as the halo does):
// the same results as the CPU twin over several calls with new values, for scatter and scatter_add.
TEST_P(GpuOps, ScatterListIsEquivalentToRef) {
  GpuBackend gpu = make_gpu();
  auto [idx, vals] = scatter_targets(4);
  idx.push_back(0), vals.push_back(-7.0);  // a repeat: the later value wins (scatter), both add (scatter_add)
  const GpuBackend::ScatterList glist = gpu.make_scatter_list(idx);
  const CpuBackend::ScatterList clist = cpu.make_scatter_list(idx);
  EXPECT_EQ(glist.size(), std::int64_t(idx.size()));
  auto z = gpu.upload(hx), za = gpu.upload(hx);
  std::vector<double> cz = hx, cza = hx, scale(hx.size());
  for (size_t i = 0; i < hx.size(); ++i) scale[i] = std::fabs(hx[i]);
  for (int call = 0; call < 3; ++call) {
    // New values each call, exact in float (the GPU stores floats; the comparison is exact).
    for (size_t k = 0; k < vals.size(); ++k) vals[k] = double(float(vals[k] * 0.5 + double(call)));
    const std::vector<float> fvals(vals.begin(), vals.end());  // exact: the values are floats
    gpu.scatter(z, glist, fvals);
    cpu.scatter(cz, clist, vals);
    gpu.scatter_add(za, glist, fvals);
    cpu.scatter_add(cza, clist, vals);
    for (size_t k = 0; k < idx.size(); ++k) scale[size_t(idx[k])] += std::fabs(vals[k]);
    EXPECT_EQ(gpu.download(z), cz) << "scatter, call " << call;
    expect_close(gpu.download(za), cza, scale, 3.0 * (call + 1), "scatter_add with a list");
  }
  expect_zero_padding(z);
  expect_zero_padding(za);
}

TEST_F(GpuOpsSingle, ScatterListRejectsBadIndicesAndSizes) {
  GpuBackend gpu = make_gpu();
  CpuBackend cpu;
  for (const auto& make : {std::function<void()>([&] { gpu.make_scatter_list({3, -1}); }),
                           std::function<void()>([&] { cpu.make_scatter_list({3, -1}); })}) {
    try {
      make();
      FAIL() << "expected an error";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("index -1 (entry 1) is negative"), std::string::npos) << e.what();
    }
  }
  const auto glist = gpu.make_scatter_list({1, 10});
  const auto clist = cpu.make_scatter_list({1, 10});
  auto z = gpu.make_vector(10);
  std::vector<double> c(10);
  for (auto* what : {"scatter", "scatter_add"}) {
    const bool add = std::string(what) == "scatter_add";
    try {
      add ? gpu.scatter_add(z, glist, {1.0f, 2.0f}) : gpu.scatter(z, glist, {1.0f, 2.0f});
      FAIL() << "expected an error";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("index 10"), std::string::npos) << e.what();
    }
    EXPECT_THROW(add ? cpu.scatter_add(c, clist, {1.0, 2.0}) : cpu.scatter(c, clist, {1.0, 2.0}), Error);
  }
  auto big = gpu.make_vector(11);
  EXPECT_THROW(gpu.scatter(big, glist, {1.0f}), Error);  // one value for two indices
  EXPECT_NO_THROW(gpu.scatter(big, glist, {1.0f, 2.0f}));
  EXPECT_EQ(gpu.download(big)[10], 2.0);
  const auto empty = gpu.make_scatter_list({});
  EXPECT_NO_THROW(gpu.scatter(big, empty, std::vector<float>{}));
}

TEST_F(GpuOpsSingle, ScatterRejectsOutOfRangeIndices) {
  GpuBackend gpu = make_gpu();
  auto z = gpu.make_vector(10);
  try {
    gpu.scatter(z, {1, 10}, {1.0, 2.0});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("index 10"), std::string::npos) << e.what();
  }
  EXPECT_THROW(gpu.scatter(z, {-1}, {1.0}), Error);
  EXPECT_THROW(gpu.scatter(z, {1, 2}, {1.0}), Error);
  CpuBackend cpu;
  std::vector<double> c(10);
  EXPECT_THROW(cpu.scatter(c, {1, 10}, {1.0, 2.0}), Error);
}

TEST_F(GpuOpsSingle, GatherRejectsIndicesOutsideTheSource) {
  GpuBackend gpu = make_gpu();
  auto source = gpu.make_vector(5), z = gpu.make_vector(3);
  EXPECT_THROW(gpu.gather(source, gpu.upload_indices({0, 5, 1}), z), Error);
  EXPECT_THROW(gpu.gather(source, gpu.upload_indices({0, 1}), z), Error);
}

TEST_F(GpuOpsSingle, SizeMismatchIsAnError) {
  GpuBackend gpu = make_gpu();
  auto a = gpu.make_vector(10), b = gpu.make_vector(11);
  EXPECT_THROW(gpu.axpy(1.0, a, b, a), Error);
  EXPECT_THROW(gpu.dot(a, b), Error);
  EXPECT_THROW(gpu.upload({}), Error);  // an empty field
}

TEST_F(GpuOpsSingle, ProgramsAreCompiledOnce) {
  GpuBackend gpu = make_gpu();
  auto x = gpu.upload({1.0, 2.0, 3.0}), z = gpu.make_vector(3);
  gpu.axpy(1.0, x, x, z);
  const size_t after_first = gpu.programs_compiled();
  for (int i = 0; i < 5; ++i) gpu.axpy(1.0, x, x, z);
  EXPECT_EQ(gpu.programs_compiled(), after_first);
}

// ---- the compute launch path ----

TEST_F(GpuOpsSingle, ComputeSumOf3MillionPositiveValuesWithin1e6OfDouble) {
  for (Packing packing : {Packing::r32f, Packing::rgba32f}) {
    LayoutOptions o;
    o.packing = packing;
    GpuBackend gpu = make_gpu(o, compute_launch());
    CpuBackend cpu;
    const std::vector<double> v = positive_values(3'000'000, 99);
    const double exact = cpu.sum(v);
    EXPECT_LE(std::fabs(gpu.sum(gpu.upload(v)) - exact) / exact, 1e-6) << to_string(packing);
  }
}

// Work-group size changes only which invocations run together, never a result: the same kernels
// on an output that no group size divides (W×H = 2999×... texels) agree bit for bit, and with the
// fragment path.
TEST_F(GpuOpsSingle, ComputeWorkGroupSizesGiveIdenticalResults) {
  const std::int64_t n = 2'999'999;
  const std::vector<double> hx = mixed_values(n, 5), hy = mixed_values(n, 6);
  for (Packing packing : {Packing::r32f, Packing::rgba32f}) {
    LayoutOptions o;
    o.packing = packing;
    std::vector<double> reference;
    double reference_dot = 0.0, abs_dot = 0.0;
    for (std::int64_t i = 0; i < n; ++i) abs_dot += std::fabs(hx[size_t(i)] * hy[size_t(i)]);
    for (glm::ivec2 group : {glm::ivec2(0, 0), glm::ivec2(16, 16), glm::ivec2(8, 8), glm::ivec2(32, 8), glm::ivec2(7, 3)}) {
      GpuOptions g;  // (0, 0): the fragment path
      if (group.x > 0) g = compute_launch(), g.local_size_x = group.x, g.local_size_y = group.y;
      GpuBackend gpu = make_gpu(o, g);
      auto x = gpu.upload(hx), y = gpu.upload(hy), z = gpu.make_vector(n);
      gpu.axpy(-1.75, x, y, z);
      const std::vector<double> result = gpu.download(z);
      const double d = gpu.dot(x, y);
      if (reference.empty()) {
        reference = result, reference_dot = d;
        continue;
      }
      const std::string what = std::string(to_string(packing)) + " " + std::to_string(group.x) + "x" + std::to_string(group.y);
      EXPECT_EQ(result, reference) << what;
      // The reduction tree depends on the launch path and, with work-group reductions, on the group
      // size: two trees differ by at most their two rounding bounds.
      EXPECT_NEAR(d, reference_dot, 2 * reduction_error_bound(n, 2 * abs_dot)) << what;
    }
  }
}

// Work-group reductions over several passes (R_min = 2: each pass may leave at most 16 texels, so
// a million R32F elements need two; the later passes read RGBA partial sums, as every dots() does),
// every reduction kind, against the CPU twin — both packings, a group size that is no power of two
// among them.
TEST_F(GpuOpsSingle, ComputeGroupReductionsOverSeveralPassesIsEquivalentToRef) {
  CpuBackend cpu;
  for (Packing packing : {Packing::r32f, Packing::rgba32f}) {
    for (glm::ivec2 group : {glm::ivec2(16, 16), glm::ivec2(7, 3)}) {
      LayoutOptions o;
      o.packing = packing, o.rmin = 2;
      GpuOptions g = compute_launch();
      g.local_size_x = group.x, g.local_size_y = group.y;
      GpuBackend gpu = make_gpu(o, g);
      for (std::int64_t n : {std::int64_t(1), std::int64_t(7), std::int64_t(1025), std::int64_t(999'983)}) {
        const std::string what = std::string(to_string(packing)) + " " + std::to_string(group.x) + "x" +
                                 std::to_string(group.y) + " n " + std::to_string(n);
        const std::vector<double> hx = mixed_values(n, 80 + n), hy = mixed_values(n, 81 + n);
        const Field x = gpu.upload(hx), y = gpu.upload(hy);
        double abs_sum = 0.0, abs_dot = 0.0, square_sum = 0.0;
        for (size_t i = 0; i < hx.size(); ++i)
          abs_sum += std::fabs(hx[i]), abs_dot += std::fabs(hx[i] * hy[i]), square_sum += hx[i] * hx[i];
        const std::int64_t passes = gpu.passes();
        EXPECT_NEAR(gpu.sum(x), cpu.sum(hx), reduction_error_bound(n, abs_sum)) << what;
        if (packing == Packing::r32f && n > 100'000) {  // RGBA: 250K texels, one pass of 64 a value
          EXPECT_GE(gpu.passes() - passes, 2) << what << ": several passes";
        }
        EXPECT_NEAR(gpu.dot(x, y), cpu.dot(hx, hy), reduction_error_bound(n, 2 * abs_dot)) << what;
        EXPECT_NEAR(gpu.norm2(x), cpu.norm2(hx), reduction_error_bound(n, 2 * square_sum)) << what;
        EXPECT_EQ(gpu.min(x), cpu.min(hx)) << what;
        EXPECT_EQ(gpu.max(x), cpu.max(hx)) << what;
        const std::vector<double> d = gpu.dots({{&x, &y}, {&x, &x}}), e = cpu.dots({{&hx, &hy}, {&hx, &hx}});
        EXPECT_NEAR(d[0], e[0], reduction_error_bound(n, 2 * abs_dot)) << what;
        EXPECT_NEAR(d[1], e[1], reduction_error_bound(n, 2 * square_sum)) << what;
        std::vector<double> special = hx;
        special[size_t(n / 2)] = std::numeric_limits<double>::infinity();
        EXPECT_EQ(gpu.count_nonfinite(gpu.upload(special)), 1) << what;
      }
    }
  }
}

// With the default R_min a reduction of up to ~67M texels is one work-group pass and one read-back
// (the fragment path's passes fold 16 texels each: three for these 4.2M); the same sum to float rounding.
TEST_F(GpuOpsSingle, ComputeGroupReductionOfFourMillionIsOnePass) {
  const std::int64_t n = 1 << 22;
  const std::vector<double> hx = positive_values(n, 17);
  const double exact = CpuBackend().sum(hx);
  for (int grouped : {1, 0}) {
    GpuOptions g = compute_launch();
    g.group_reductions = grouped;
    GpuBackend gpu = make_gpu(LayoutOptions{}, g);
    const Field x = gpu.upload(hx);
    const std::int64_t passes = gpu.passes();
    const double sum = gpu.sum(x);
    EXPECT_LE(std::fabs(sum - exact) / exact, 1e-6) << "grouped " << grouped;
    EXPECT_EQ(gpu.passes() - passes, grouped ? 1 : 3) << "grouped " << grouped;
  }
}

// Image stores from compute kernels and GL_POINTS draws (scatter) into the same textures, in every
// order: each must see the other's writes.
TEST_F(GpuOpsSingle, ComputeKernelsAndScatterDrawsSeeEachOther) {
  for (Packing packing : {Packing::r32f, Packing::rgba32f}) {
    LayoutOptions o;
    o.packing = packing;
    GpuBackend gpu = make_gpu(o, compute_launch());
    CpuBackend cpu;
    // Small integers and halves: every value and partial sum below is exact in float.
    const std::int64_t n = 100'003;
    std::vector<double> hx(static_cast<size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) hx[size_t(i)] = double(i % 17) - 8.0;
    std::vector<std::int32_t> idx;
    std::vector<double> vals;
    for (std::int64_t i = 0; i < n; i += 7) idx.push_back(std::int32_t(i)), vals.push_back(double(i % 13) - 6.0);
    auto x = gpu.upload(hx), z = gpu.make_vector(n);
    std::vector<double> cx = hx, cz(static_cast<size_t>(n));
    for (int round = 0; round < 3; ++round) {
      gpu.fill(z, 0.5 + round);                // compute write
      cpu.fill(cz, 0.5 + round);
      gpu.scatter(z, idx, vals);               // draw into what the compute kernel wrote
      cpu.scatter(cz, idx, vals);
      gpu.axpy(2.0, z, x, x);                  // compute reads the draw's points (and ping-pongs x)
      cpu.axpy(2.0, cz, cx, cx);
      gpu.scatter(x, idx, vals);               // draw right after a compute write
      cpu.scatter(cx, idx, vals);
      gpu.copy(x, z);                          // compute overwrites a texture the draw just wrote
      cpu.copy(cx, cz);
      ASSERT_EQ(gpu.download(z), cz) << to_string(packing) << " round " << round;
      EXPECT_EQ(gpu.sum(z), cpu.sum(cz)) << to_string(packing) << " round " << round;
    }
  }
}

TEST_F(GpuOpsSingle, ComputeProgramsAreSeparateFromFragmentOnes) {
  KernelSpec fragment{"axpy.glsl", 1, 1};
  KernelSpec compute = fragment;
  compute.launch = LaunchPath::compute;
  EXPECT_NE(fragment.key(), compute.key());
  KernelSpec other_group = compute;
  other_group.local_size_x = 8;
  EXPECT_NE(compute.key(), other_group.key());
  EXPECT_EQ(compute_program_source(compute).find("gl_FragCoord"), std::string::npos);
  EXPECT_EQ(parse_launch_path("compute"), LaunchPath::compute);
  EXPECT_EQ(parse_launch_path("fragment"), LaunchPath::fragment);
  EXPECT_THROW(parse_launch_path("vertex"), Error);

  GpuOptions too_big = compute_launch();
  too_big.local_size_x = 4096, too_big.local_size_y = 4096;
  EXPECT_THROW(make_gpu({}, too_big), Error);
}

TEST_F(GpuOpsSingle, FieldsBeyondTheDeviceLimitAreAClearError) {
  GpuBackend gpu = make_gpu();
  const std::int64_t limit = std::int64_t(shared_gl_context().info().max_texture_size);
  try {
    gpu.make_vector(limit * limit + 1);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("texture limit"), std::string::npos) << e.what();
  }
}

TEST_F(GpuOpsSingle, ContextReportsDriverAndDevice) {
  const GlInfo& info = shared_gl_context().info();
  EXPECT_FALSE(info.renderer.empty());
  EXPECT_NE(info.device.find("EGL"), std::string::npos) << info.device;
  EXPECT_GE(info.max_texture_size, 4096);
}

}  // namespace
}  // namespace ss::test

namespace ss::test {
namespace {

// Uploads stream in chunks of 64 MiB through one pixel buffer (Texture::write_rows): fields
// of more than one chunk (16,777,216 + 4,099 values: a chunk boundary inside the data, and a last
// chunk of padding) come back exactly, floats, their lo parts and int32 ids, in both packings.
class ChunkedUpload : public GlTest, public ::testing::WithParamInterface<Packing> {};

TEST_P(ChunkedUpload, LargeFieldsRoundTripExactly) {
  GpuBackend gpu = make_gpu(GetParam(), LaunchPath::fragment);
  const std::int64_t n = (std::int64_t(1) << 24) + 4099;
  std::vector<double> values(static_cast<size_t>(n));
  std::vector<std::int32_t> ids(static_cast<size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) {
    values[size_t(i)] = 1.0 + double(i) * 1e-7 + 1e-12 * double(i % 977);  // not float-exact: a lo part
    ids[size_t(i)] = std::int32_t((i * 7919) % n);
  }
  const GpuBackend::Vector hi = gpu.upload(values), lo = gpu.upload_low_parts(values);
  const std::vector<float> got_hi = hi.download(), got_lo = lo.download();
  const std::vector<std::int32_t> got_ids = gpu.upload_indices(ids).download();
  ASSERT_EQ(std::int64_t(got_hi.size()), n);
  for (std::int64_t i = 0; i < n; ++i) {
    const double v = values[size_t(i)];
    ASSERT_EQ(got_hi[size_t(i)], float(v)) << i;
    ASSERT_EQ(got_lo[size_t(i)], float(v - double(float(v)))) << i;
    ASSERT_EQ(got_ids[size_t(i)], ids[size_t(i)]) << i;
  }
}

INSTANTIATE_TEST_SUITE_P(Packings, ChunkedUpload, ::testing::Values(Packing::r32f, Packing::rgba32f),
                         [](const auto& info) { return std::string(info.param == Packing::r32f ? "R32F" : "RGBA32F"); });

}  // namespace
}  // namespace ss::test
