// Extreme eigenvalues of D⁻¹A by CG-Lanczos (the Ritz values of the CG tridiagonal), in double.
#include "operators/eigen_estimate.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "util/error.hpp"

namespace ss {

namespace {

// The j-th smallest eigenvalue of the symmetric tridiagonal (diag, off) by Sturm-sequence bisection.
double tridiagonal_eigenvalue(const std::vector<double>& diag, const std::vector<double>& off, int j) {
  const size_t k = diag.size();
  double lo = 0, hi = 0;
  for (size_t i = 0; i < k; ++i) {
    const double r = (i > 0 ? std::fabs(off[i - 1]) : 0.0) + (i + 1 < k ? std::fabs(off[i]) : 0.0);
    hi = std::max(hi, diag[i] + r);
    lo = std::min(lo, diag[i] - r);
  }
  // count(x): eigenvalues < x
  const auto count = [&](double x) {
    int c = 0;
    double q = 1;
    for (size_t i = 0; i < k; ++i) {
      const double o = i > 0 ? off[i - 1] : 0.0;
      q = diag[i] - x - (i > 0 ? o * o / q : 0.0);
      if (q == 0) q = -1e-300;
      if (q < 0) ++c;
    }
    return c;
  };
  for (int it = 0; it < 200 && hi - lo > 1e-12 * std::max(1.0, std::fabs(hi)); ++it) {
    const double mid = 0.5 * (lo + hi);
    if (count(mid) >= j + 1) hi = mid;  // eigenvalue j lies below mid
    else lo = mid;
  }
  return hi;
}

// CG-Lanczos from the start vector r: the tridiagonal's extreme eigenvalues.
EigenRange lanczos(const std::function<void(const std::vector<double>&, std::vector<double>&)>& apply,
                   const std::vector<double>& inverse_diagonal, int steps, std::vector<double> r,
                   const std::function<double(const std::vector<double>&, const std::vector<double>&)>& dot) {
  const size_t n = inverse_diagonal.size();
  std::vector<double> z(n), p(n), q(n);
  for (size_t i = 0; i < n; ++i) z[i] = inverse_diagonal[i] * r[i];
  p = z;
  double rz = dot(r, z);
  std::vector<double> diag, off;
  double alpha_prev = 1, beta_prev = 0;
  for (int j = 0; j < steps && rz > 0; ++j) {
    apply(p, q);
    const double pq = dot(p, q);
    if (!(pq > 0)) break;
    const double alpha = rz / pq;
    diag.push_back(1.0 / alpha + (j > 0 ? beta_prev / alpha_prev : 0.0));
#pragma omp parallel for schedule(static) if (n > 50000)
    for (std::int64_t i = 0; i < std::int64_t(n); ++i) {
      r[size_t(i)] -= alpha * q[size_t(i)];
      z[size_t(i)] = inverse_diagonal[size_t(i)] * r[size_t(i)];
    }
    const double rz_new = dot(r, z);
    const double beta = rz_new / rz;
    if (j + 1 < steps && rz_new > 0) off.push_back(std::sqrt(beta) / alpha);
#pragma omp parallel for schedule(static) if (n > 50000)
    for (std::int64_t i = 0; i < std::int64_t(n); ++i) p[size_t(i)] = z[size_t(i)] + beta * p[size_t(i)];
    rz = rz_new;
    alpha_prev = alpha;
    beta_prev = beta;
  }
  return lanczos_ritz_range(std::move(diag), std::move(off));
}

double local_dot(const std::vector<double>& x, const std::vector<double>& y) {
  const std::int64_t n = std::int64_t(x.size());
  double s = 0;
#pragma omp parallel for reduction(+ : s) schedule(static) if (n > 50000)
  for (std::int64_t i = 0; i < n; ++i) s += x[size_t(i)] * y[size_t(i)];
  return s;
}

}  // namespace

EigenRange lanczos_ritz_range(std::vector<double> diag, std::vector<double> off) {
  if (diag.empty()) return {1.0, 1.0};
  off.resize(diag.size() - 1);
  return {tridiagonal_eigenvalue(diag, off, 0), tridiagonal_eigenvalue(diag, off, int(diag.size()) - 1)};
}

std::vector<double> lanczos_start(size_t n) {
  // A deterministic start with every frequency in it.
  std::vector<double> r(n);
  std::uint64_t state = 0x9E3779B97F4A7C15ull;
  for (size_t i = 0; i < n; ++i) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    r[i] = double(state >> 11) / double(1ull << 53) - 0.5;
  }
  return r;
}

EigenRange estimate_eigen_range(const std::function<void(const std::vector<double>&, std::vector<double>&)>& apply,
                                const std::vector<double>& inverse_diagonal, int steps) {
  const size_t n = inverse_diagonal.size();
  if (n == 0) return {1.0, 1.0};
  return lanczos(apply, inverse_diagonal, steps, lanczos_start(n), local_dot);
}

// SplitMix64's finaliser: the same value wherever the key is the same.
double lanczos_start_value(std::uint64_t key) {
  std::uint64_t z = key + 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return double(z >> 11) / double(1ull << 53) - 0.5;
}

EigenRange estimate_eigen_range(const std::function<void(const std::vector<double>&, std::vector<double>&)>& apply,
                                const std::vector<double>& inverse_diagonal, int steps, const LanczosSpace& space) {
  const size_t n = inverse_diagonal.size();
  SS_REQUIRE(space.start.empty() || space.start.size() == n,
             "eigen estimate: " << space.start.size() << " start values for " << n << " entries");
  std::vector<double> r = space.start, d = inverse_diagonal;
  if (r.empty())
    for (size_t i = 0; i < n; ++i) r.push_back(lanczos_start_value(std::uint64_t(i)));
  if (!space.update_ghosts) return lanczos(apply, d, steps, std::move(r), space.dot ? space.dot : local_dot);
  space.update_ghosts(d);  // a ghost row of the local matrix is incomplete: its owner's diagonal
  const auto apply_whole = [&](const std::vector<double>& x, std::vector<double>& y) {
    apply(x, y);
    space.update_ghosts(y);
  };
  return lanczos(apply_whole, d, steps, std::move(r), space.dot ? space.dot : local_dot);
}

double estimate_lambda_max(const std::function<void(const std::vector<double>&, std::vector<double>&)>& apply,
                           const std::vector<double>& inverse_diagonal, int steps) {
  return estimate_eigen_range(apply, inverse_diagonal, steps).hi;
}

}  // namespace ss
