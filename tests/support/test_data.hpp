#pragma once
// Test vectors with mixed signs and magnitudes, exactly representable in float, so the GPU (float)
// and the CPU reference (double) start from identical inputs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

namespace ss::test {

// Values ±m·10^e with m in [1, 10) and e in [emin, emax], rounded to float.
inline std::vector<double> mixed_values(std::int64_t n, std::uint64_t seed, int emin = -3, int emax = 3) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> mantissa(1.0, 10.0);
  std::uniform_int_distribution<int> exponent(emin, emax);
  std::bernoulli_distribution negative(0.5);
  std::vector<double> v(static_cast<size_t>(n));
  for (auto& x : v) x = double(float((negative(rng) ? -1 : 1) * mantissa(rng) * std::pow(10.0, exponent(rng))));
  return v;
}

inline std::vector<double> positive_values(std::int64_t n, std::uint64_t seed) {
  std::vector<double> v = mixed_values(n, seed, 0, 0);
  for (auto& x : v) x = std::fabs(x);
  return v;
}

constexpr double float_unit_roundoff = 5.9604644775390625e-08;  // 2^-24

// Bound on the rounding error of the GPU's float reduction tree over n terms: a pass adds up to
// 16 values one after another (fold 4: 15 roundings), there are at most ceil(log16 n) + 2 passes
// (the last ones may fold by 2), and the CPU finish in double adds nothing significant. A
// work-group pass (compute path) makes at most ~50 roundings in a chain (16 packs an invocation,
// 2 × 16 in the group), and the fewer passes keep it within the same bound.
inline double reduction_error_bound(std::int64_t n, double sum_of_magnitudes) {
  const double passes = std::ceil(std::log(double(n) + 1.0) / std::log(16.0)) + 2.0;
  return (15.0 * passes + 2.0) * float_unit_roundoff * sum_of_magnitudes + 1e-30;
}

// max |v_i|
inline double max_abs(const std::vector<double>& v) {
  double m = 0.0;
  for (double x : v) m = std::max(m, std::fabs(x));
  return m;
}

// max |a - b| / max |b|: the GPU-vs-reference difference relative to the reference's size (b the
// reference; the plain difference when b is all zero).
inline double max_rel_diff(const std::vector<double>& a, const std::vector<double>& b) {
  EXPECT_EQ(a.size(), b.size());
  double diff = 0.0;
  for (size_t i = 0; i < std::min(a.size(), b.size()); ++i) diff = std::max(diff, std::fabs(a[i] - b[i]));
  const double scale = max_abs(b);
  return scale > 0.0 ? diff / scale : diff;
}

// Values uniform in [−1, 1], rounded to float.
inline std::vector<double> uniform_values(std::int64_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<double> v(static_cast<size_t>(n));
  for (auto& x : v) x = double(float(u(rng)));
  return v;
}

inline double dot_product(const std::vector<double>& a, const std::vector<double>& b) {
  double s = 0;
  for (size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
  return s;
}

}  // namespace ss::test
