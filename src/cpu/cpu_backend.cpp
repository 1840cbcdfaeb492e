#include "cpu/cpu_backend.hpp"

#include <algorithm>
#include <initializer_list>
#include <cmath>
#include <limits>

#include <omp.h>

#include "util/error.hpp"

namespace ss {

std::string cpu_device_name() {
  return "CPU reference (double, " + std::to_string(omp_get_max_threads()) + " threads)";
}
namespace {

void require_size(const std::vector<double>& a, const std::vector<double>& b, const char* op) {
  SS_REQUIRE(a.size() == b.size(), op << ": vectors of " << a.size() << " and " << b.size() << " elements");
}

// z[i] = f(i) for every i, in parallel.
template <typename F>
void for_each_index(std::vector<double>& z, F f) {
  const std::int64_t n = std::int64_t(z.size());
#pragma omp parallel for schedule(static) if (n > kCpuParallelMin)
  for (std::int64_t i = 0; i < n; ++i) z[size_t(i)] = f(size_t(i));
}

}  // namespace

void CpuBackend::fill(Vector& z, double a) { for_each_index(z, [&](size_t) { return a; }); }

void CpuBackend::copy(const Vector& x, Vector& z) {
  require_size(x, z, "copy");
  for_each_index(z, [&](size_t i) { return x[i]; });
}

void CpuBackend::axpy(double a, const Vector& x, const Vector& y, Vector& z) {
  require_size(x, y, "axpy");
  require_size(x, z, "axpy");
  for_each_index(z, [&](size_t i) { return y[i] + a * x[i]; });
}

void CpuBackend::xpay(const Vector& x, double a, const Vector& y, Vector& z) {
  require_size(x, y, "xpay");
  require_size(x, z, "xpay");
  for_each_index(z, [&](size_t i) { return x[i] + a * y[i]; });
}

void CpuBackend::scale(double a, const Vector& x, Vector& z) {
  require_size(x, z, "scale");
  for_each_index(z, [&](size_t i) { return a * x[i]; });
}

void CpuBackend::multiply(const Vector& x, const Vector& y, Vector& z) {
  require_size(x, y, "multiply");
  require_size(x, z, "multiply");
  for_each_index(z, [&](size_t i) { return x[i] * y[i]; });
}

void CpuBackend::divide(const Vector& x, const Vector& y, Vector& z) {
  require_size(x, y, "divide");
  require_size(x, z, "divide");
  for_each_index(z, [&](size_t i) { return x[i] / y[i]; });
}

void CpuBackend::linear_combination(const std::vector<double>& c, const std::vector<const Vector*>& xs, Vector& z) {
  SS_REQUIRE(!xs.empty() && xs.size() <= 4 && c.size() == xs.size(),
             "linear_combination takes 1 to 4 vectors and as many coefficients (got " << xs.size() << " and " << c.size() << ")");
  for (const Vector* x : xs) require_size(*x, z, "linear_combination");
  // Evaluate into a temporary: z may be one of the xs.
  Vector result(z.size());
  for_each_index(result, [&](size_t i) {
    double s = 0.0;
    for (size_t k = 0; k < xs.size(); ++k) s += c[k] * (*xs[k])[i];
    return s;
  });
  z.swap(result);
}

void CpuBackend::update_pair(double a, const Vector& p, const Vector& q, Vector& x, Vector& r) {
  require_size(p, q, "update_pair");
  require_size(p, x, "update_pair");
  require_size(p, r, "update_pair");
  SS_REQUIRE(&x != &r, "update_pair: x and r must be different vectors");
  const std::int64_t n = std::int64_t(p.size());
#pragma omp parallel for schedule(static) if (n > kCpuParallelMin)
  for (std::int64_t i = 0; i < n; ++i) {
    x[size_t(i)] += a * p[size_t(i)];
    r[size_t(i)] -= a * q[size_t(i)];
  }
}

void CpuBackend::xpay_pair(double a, const Vector& u, const Vector& w, Vector& p, Vector& s) {
  require_size(u, w, "xpay_pair");
  require_size(u, p, "xpay_pair");
  require_size(u, s, "xpay_pair");
  SS_REQUIRE(&p != &s, "xpay_pair: p and s must be different vectors");
  const std::int64_t n = std::int64_t(u.size());
#pragma omp parallel for schedule(static) if (n > kCpuParallelMin)
  for (std::int64_t i = 0; i < n; ++i) {
    p[size_t(i)] = u[size_t(i)] + a * p[size_t(i)];
    s[size_t(i)] = w[size_t(i)] + a * s[size_t(i)];
  }
}

// Pipelined CG's direction recurrences: p = u + β·p, s = w + β·s, q = m + β·q, z = n + β·z.
void CpuBackend::pipelined_directions(double beta, const Vector& u, const Vector& w, const Vector& m, const Vector& n,
                                      Vector& p, Vector& s, Vector& q, Vector& z) {
  for (const Vector* v : std::initializer_list<const Vector*>{&w, &m, &n, &p, &s, &q, &z}) require_size(u, *v, "pipelined_directions");
  const std::int64_t size = std::int64_t(u.size());
#pragma omp parallel for schedule(static) if (size > kCpuParallelMin)
  for (std::int64_t i = 0; i < size; ++i) {
    const size_t j = size_t(i);
    p[j] = u[j] + beta * p[j];
    s[j] = w[j] + beta * s[j];
    q[j] = m[j] + beta * q[j];
    z[j] = n[j] + beta * z[j];
  }
}

// Pipelined CG's iterate recurrences: x += α·p, r −= α·s, u −= α·q, w −= α·z.
void CpuBackend::pipelined_iterates(double alpha, const Vector& p, const Vector& s, const Vector& q, const Vector& z,
                                    Vector& x, Vector& r, Vector& u, Vector& w) {
  for (const Vector* v : std::initializer_list<const Vector*>{&s, &q, &z, &x, &r, &u, &w}) require_size(p, *v, "pipelined_iterates");
  const std::int64_t size = std::int64_t(p.size());
#pragma omp parallel for schedule(static) if (size > kCpuParallelMin)
  for (std::int64_t i = 0; i < size; ++i) {
    const size_t j = size_t(i);
    x[j] += alpha * p[j];
    r[j] -= alpha * s[j];
    u[j] -= alpha * q[j];
    w[j] -= alpha * z[j];
  }
}

// Up to four dot products in one sweep over the data (its first `count` elements when count >= 0),
// each term times weights[i] when weights is given.
std::vector<double> CpuBackend::dots(const std::vector<std::pair<const Vector*, const Vector*>>& pairs, std::int64_t count,
                                     const Vector* weights) {
  SS_REQUIRE(!pairs.empty() && pairs.size() <= 4, "dots takes 1 to 4 pairs (got " << pairs.size() << ")");
  for (const auto& [a, b] : pairs) {
    require_size(*pairs[0].first, *a, "dots");
    require_size(*pairs[0].first, *b, "dots");
  }
  if (weights) require_size(*pairs[0].first, *weights, "dots (weights)");
  const Vector* a[4] = {pairs[0].first, pairs[0].first, pairs[0].first, pairs[0].first};
  const Vector* b[4] = {pairs[0].second, pairs[0].second, pairs[0].second, pairs[0].second};
  for (size_t k = 0; k < pairs.size(); ++k) a[k] = pairs[k].first, b[k] = pairs[k].second;
  const int m = int(pairs.size());
  double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  const std::int64_t size = std::int64_t(pairs[0].first->size());
  SS_REQUIRE(count <= size, "dots: " << count << " elements asked of vectors of " << size);
  const std::int64_t n = count < 0 ? size : count;
#pragma omp parallel for reduction(+ : s0, s1, s2, s3) schedule(static) if (n > kCpuParallelMin)
  for (std::int64_t i = 0; i < n; ++i) {
    const size_t j = size_t(i);
    const double w = weights ? (*weights)[j] : 1.0;
    s0 += w * (*a[0])[j] * (*b[0])[j];
    if (m > 1) s1 += w * (*a[1])[j] * (*b[1])[j];
    if (m > 2) s2 += w * (*a[2])[j] * (*b[2])[j];
    if (m > 3) s3 += w * (*a[3])[j] * (*b[3])[j];
  }
  const double all[4] = {s0, s1, s2, s3};
  return std::vector<double>(all, all + m);
}

double CpuBackend::sum(const Vector& x) {
  double s = 0.0;
  const std::int64_t n = std::int64_t(x.size());
#pragma omp parallel for reduction(+ : s) schedule(static) if (n > kCpuParallelMin)
  for (std::int64_t i = 0; i < n; ++i) s += x[size_t(i)];
  return s;
}

double CpuBackend::dot(const Vector& x, const Vector& y) {
  require_size(x, y, "dot");
  double s = 0.0;
  const std::int64_t n = std::int64_t(x.size());
#pragma omp parallel for reduction(+ : s) schedule(static) if (n > kCpuParallelMin)
  for (std::int64_t i = 0; i < n; ++i) s += x[size_t(i)] * y[size_t(i)];
  return s;
}

double CpuBackend::norm2(const Vector& x) { return dot(x, x); }

double CpuBackend::min(const Vector& x) {
  double m = std::numeric_limits<double>::infinity();
  const std::int64_t n = std::int64_t(x.size());
#pragma omp parallel for reduction(min : m) schedule(static) if (n > kCpuParallelMin)
  for (std::int64_t i = 0; i < n; ++i) m = std::min(m, x[size_t(i)]);
  return m;
}

double CpuBackend::max(const Vector& x) {
  double m = -std::numeric_limits<double>::infinity();
  const std::int64_t n = std::int64_t(x.size());
#pragma omp parallel for reduction(max : m) schedule(static) if (n > kCpuParallelMin)
  for (std::int64_t i = 0; i < n; ++i) m = std::max(m, x[size_t(i)]);
  return m;
}

std::int64_t CpuBackend::count_nonfinite(const Vector& x) {
  std::int64_t count = 0;
  const std::int64_t n = std::int64_t(x.size());
#pragma omp parallel for reduction(+ : count) schedule(static) if (n > kCpuParallelMin)
  for (std::int64_t i = 0; i < n; ++i) count += std::isfinite(x[size_t(i)]) ? 0 : 1;
  return count;
}

void CpuBackend::scatter(Vector& z, const std::vector<std::int32_t>& indices, const std::vector<double>& values) {
  SS_REQUIRE(indices.size() == values.size(), "scatter: " << indices.size() << " indices but " << values.size() << " values");
  for (size_t k = 0; k < indices.size(); ++k)
    SS_REQUIRE(indices[k] >= 0 && size_t(indices[k]) < z.size(),
               "scatter: index " << indices[k] << " (entry " << k << ") is outside the field of " << z.size() << " elements");
  for (size_t k = 0; k < indices.size(); ++k) z[size_t(indices[k])] = values[k];  // in order: later wins
}

void CpuBackend::scatter_add(Vector& z, const std::vector<std::int32_t>& indices, const std::vector<double>& values) {
  SS_REQUIRE(indices.size() == values.size(), "scatter_add: " << indices.size() << " indices but " << values.size() << " values");
  for (size_t k = 0; k < indices.size(); ++k)
    SS_REQUIRE(indices[k] >= 0 && size_t(indices[k]) < z.size(),
               "scatter_add: index " << indices[k] << " (entry " << k << ") is outside the field of " << z.size() << " elements");
  for (size_t k = 0; k < indices.size(); ++k) z[size_t(indices[k])] += values[k];  // repeats accumulate
}

CpuScatterList CpuBackend::make_scatter_list(const std::vector<std::int32_t>& indices) {
  CpuScatterList list{indices, -1};
  for (size_t k = 0; k < indices.size(); ++k) {
    SS_REQUIRE(indices[k] >= 0, "scatter list: index " << indices[k] << " (entry " << k << ") is negative");
    list.max_index = std::max(list.max_index, indices[k]);
  }
  return list;
}

namespace {
void require_scatter_fits(const std::vector<double>& z, const CpuScatterList& at, const std::vector<double>& values,
                          const char* what) {
  SS_REQUIRE(at.indices.size() == values.size(), what << ": " << at.indices.size() << " indices but " << values.size() << " values");
  SS_REQUIRE(std::int64_t(at.max_index) < std::int64_t(z.size()),
             what << ": index " << at.max_index << " is outside the field of " << z.size() << " elements");
}
}  // namespace

void CpuBackend::scatter(Vector& z, const ScatterList& at, const std::vector<double>& values) {
  require_scatter_fits(z, at, values, "scatter");
  for (size_t k = 0; k < values.size(); ++k) z[size_t(at.indices[k])] = values[k];  // in order: later wins
}

void CpuBackend::scatter_add(Vector& z, const ScatterList& at, const std::vector<double>& values) {
  require_scatter_fits(z, at, values, "scatter_add");
  for (size_t k = 0; k < values.size(); ++k) z[size_t(at.indices[k])] += values[k];  // repeats accumulate
}

void CpuBackend::gather(const Vector& x, const IndexVector& indices, Vector& z) {
  SS_REQUIRE(indices.size() == z.size(), "gather: " << indices.size() << " indices for " << z.size() << " outputs");
  for (size_t i = 0; i < indices.size(); ++i)
    SS_REQUIRE(indices[i] >= 0 && size_t(indices[i]) < x.size(),
               "gather: index " << indices[i] << " (entry " << i << ") is outside the source field of " << x.size() << " elements");
  Vector result(z.size());
  for_each_index(result, [&](size_t i) { return x[size_t(indices[i])]; });
  z.swap(result);
}

}  // namespace ss
