#pragma once
// Preconditioned Conjugate Gradient, written once for any backend (GpuBackend or CpuBackend; see the
// interface list in src/kernels/gpu_backend.hpp) and any symmetric positive definite operator
// `apply(x, y)` computing y = A·x. It reads like Algorithm 1 of thesis ch. 6, with the Jacobi
// preconditioner M = diag(A) given as its inverse.
#include <chrono>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "util/error.hpp"

namespace ss {

struct CgOptions {
  double tolerance = 1e-6;     // stop when ||r|| / ||b|| <= tolerance
  int max_iterations = 20000;
  // Called every iteration with (iteration, relative residual, elapsed seconds); the caller decides
  // how often to print.
  std::function<void(int, double, double)> progress;
};

struct CgResult {
  bool converged = false;
  int iterations = 0;
  double relative_residual = 0.0;   // the recursive residual ||r_k|| / ||b||
  std::string stop_reason;          // "converged", "max_iterations", "breakdown: ..."
  std::vector<double> history;      // relative residual after each iteration (index 0: start)
  double seconds = 0.0;
};

// Solves A x = b from the initial guess in x with any symmetric positive definite preconditioner
// `precondition(r, z)` computing z = M⁻¹ r. All vectors have the same size.
template <class Backend, class Apply, class Precondition>
CgResult preconditioned_conjugate_gradient(Backend& backend, Apply&& apply, const typename Backend::Vector& b,
                                           typename Backend::Vector& x, Precondition&& precondition,
                                           const CgOptions& options) {
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  const auto elapsed = [&] { return std::chrono::duration<double>(Clock::now() - start).count(); };
  const std::int64_t n = std::int64_t(b.size());
  CgResult result;

  auto r = backend.make_vector(n), z = backend.make_vector(n), p = backend.make_vector(n), q = backend.make_vector(n);

  // r₀ = b − A x₀
  apply(x, q);
  backend.axpy(-1.0, q, b, r);
  const double b_norm = std::sqrt(backend.norm2(b));
  const double scale = b_norm > 0.0 ? b_norm : 1.0;
  double residual = std::sqrt(backend.norm2(r)) / scale;
  result.history.push_back(residual);
  if (b_norm == 0.0 && residual == 0.0) {
    result.converged = true;
    result.stop_reason = "converged";
    result.seconds = elapsed();
    return result;
  }
  // z₀ = M⁻¹ r₀,  p₀ = z₀,  ρ₀ = r₀·z₀
  precondition(r, z);
  backend.copy(z, p);
  double rho = backend.dot(r, z);

  for (int k = 1; k <= options.max_iterations; ++k) {
    // q = A p,  α = ρ / (p·q)
    apply(p, q);
    const double pq = backend.dot(p, q);
    if (!std::isfinite(pq) || !std::isfinite(rho)) {
      result.stop_reason = "breakdown: non-finite value in p·Ap or r·z (diverging or invalid input)";
      break;
    }
    if (pq <= 0.0) {
      result.stop_reason = "breakdown: p·Ap <= 0 (operator not positive definite)";
      break;
    }
    const double alpha = rho / pq;
    // x ← x + α p,  r ← r − α q   (one pass, two outputs)
    backend.update_pair(alpha, p, q, x, r);
    residual = std::sqrt(backend.norm2(r)) / scale;
    result.iterations = k;
    result.history.push_back(residual);
    if (options.progress) options.progress(k, residual, elapsed());
    if (!std::isfinite(residual)) {
      result.stop_reason = "breakdown: non-finite residual";
      break;
    }
    if (residual <= options.tolerance) {
      result.converged = true;
      result.stop_reason = "converged";
      break;
    }
    // z = M⁻¹ r,  β = ρ_new / ρ,  p ← z + β p
    precondition(r, z);
    const double rho_new = backend.dot(r, z);
    backend.xpay(z, rho_new / rho, p, p);
    rho = rho_new;
  }
  if (result.stop_reason.empty()) result.stop_reason = "max_iterations";
  result.relative_residual = residual;
  result.seconds = elapsed();
  return result;
}

// Jacobi (M = diag(A), given as its inverse) or, with `inverse_diagonal` null, no preconditioner.
template <class Backend, class Apply>
CgResult conjugate_gradient(Backend& backend, Apply&& apply, const typename Backend::Vector& b,
                            typename Backend::Vector& x, const typename Backend::Vector* inverse_diagonal,
                            const CgOptions& options) {
  // z = M⁻¹ r (Jacobi: element-wise product with the inverse diagonal; none: z = r)
  const auto precondition = [&](const typename Backend::Vector& from, typename Backend::Vector& to) {
    if (inverse_diagonal) backend.multiply(*inverse_diagonal, from, to);
    else backend.copy(from, to);
  };
  return preconditioned_conjugate_gradient(backend, apply, b, x, precondition, options);
}

}  // namespace ss
