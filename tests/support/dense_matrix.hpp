#pragma once
// A dense row-major n×n matrix and its direct solve (Gaussian elimination with partial pivoting,
// double): the reference the iterative solvers' tests compare against.
#include <cmath>
#include <cstddef>
#include <utility>
#include <vector>

namespace ss::test {

struct DenseMatrix {
  size_t n;
  std::vector<double> a;
  explicit DenseMatrix(size_t size) : n(size), a(size * size, 0.0) {}
  double& at(size_t i, size_t j) { return a[i * n + j]; }
  std::vector<double> apply(const std::vector<double>& x) const {
    std::vector<double> y(n, 0.0);
    for (size_t i = 0; i < n; ++i)
      for (size_t j = 0; j < n; ++j) y[i] += a[i * n + j] * x[j];
    return y;
  }
  std::vector<double> solve(std::vector<double> b) const {
    std::vector<double> m = a;
    for (size_t k = 0; k < n; ++k) {
      size_t pivot = k;
      for (size_t i = k + 1; i < n; ++i)
        if (std::fabs(m[i * n + k]) > std::fabs(m[pivot * n + k])) pivot = i;
      for (size_t j = 0; j < n; ++j) std::swap(m[k * n + j], m[pivot * n + j]);
      std::swap(b[k], b[pivot]);
      for (size_t i = k + 1; i < n; ++i) {
        const double f = m[i * n + k] / m[k * n + k];
        for (size_t j = k; j < n; ++j) m[i * n + j] -= f * m[k * n + j];
        b[i] -= f * b[k];
      }
    }
    std::vector<double> x(n);
    for (size_t i = n; i-- > 0;) {
      double s = b[i];
      for (size_t j = i + 1; j < n; ++j) s -= m[i * n + j] * x[j];
      x[i] = s / m[i * n + i];
    }
    return x;
  }
};

}  // namespace ss::test
