#pragma once
// Right-preconditioned BiCGStab (van der Vorst 1992; Saad, Iterative Methods, Alg. 7.7 with a right
// preconditioner) for nonsymmetric systems A x = b, written once for any backend (GpuBackend or
// CpuBackend, the interface of src/kernels/gpu_backend.hpp) like conjugate_gradient (solver/cg.hpp),
// whose options and result types it shares. Right preconditioning (A M⁻¹ y = b, x = M⁻¹ y) keeps the
// residual the method tracks the true, unpreconditioned b − A x, so the tolerance means what it means
// for CG. Per iteration: two operator applications, two preconditioner applications and three
// reductions, each one read-back (r̂·v; the fused (t·s, t·t, s·s); the fused (r·r, r̂·r)).
#include <chrono>
#include <cmath>
#include <string>
#include <vector>

#include "solver/cg.hpp"

namespace ss {

// Solves A x = b from the initial guess in x with any preconditioner `precondition(r, z)` computing
// z = M⁻¹ r (it need not be symmetric). CgOptions::variant is ignored; max_replacements bounds the
// restarts from the true residual b − A x when the recursive residual says converged but the true
// one does not agree (float32 drift), as in single-sync CG.
template <class Backend, class Apply, class Precondition>
CgResult preconditioned_bicgstab(Backend& backend, Apply&& apply, const typename Backend::Vector& b,
                                 typename Backend::Vector& x, Precondition&& precondition, const CgOptions& options) {
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  const auto elapsed = [&] { return std::chrono::duration<double>(Clock::now() - start).count(); };
  const std::int64_t n = std::int64_t(b.size());
  CgResult result;

  auto r = backend.make_vector(n), r_hat = backend.make_vector(n), p = backend.make_vector(n),
       p_hat = backend.make_vector(n), v = backend.make_vector(n), s = backend.make_vector(n),
       s_hat = backend.make_vector(n), t = backend.make_vector(n);

  // r₀ = b − A x₀  (v as scratch)
  apply(x, v);
  backend.axpy(-1.0, v, b, r);
  const double b_norm = std::sqrt(backend.norm2(b));
  const double scale = b_norm > 0.0 ? b_norm : 1.0;
  double residual = std::sqrt(backend.norm2(r)) / scale;
  result.history.push_back(residual);
  if (residual <= options.tolerance || (b_norm == 0.0 && residual == 0.0)) {
    result.converged = true;
    result.stop_reason = "converged";
    result.relative_residual = residual;
    result.seconds = elapsed();
    return result;
  }

  // r̂ = r₀ (the shadow residual), ρ = r̂·r₀, p = r₀
  double rho = 0;
  const auto restart_from_r = [&] {
    backend.copy(r, r_hat);
    backend.copy(r, p);
    rho = backend.dot(r_hat, r);
  };
  restart_from_r();

  for (int k = 1; k <= options.max_iterations; ++k) {
    // p̂ = M⁻¹ p,  v = A p̂,  α = ρ / (r̂·v)
    precondition(p, p_hat);
    apply(p_hat, v);
    const double rv = backend.dot(r_hat, v);
    if (!std::isfinite(rv) || !std::isfinite(rho)) {
      result.stop_reason = "breakdown: non-finite value in r̂·v or r̂·r (diverging or invalid input)";
      break;
    }
    if (rv == 0.0) {
      result.stop_reason = "breakdown: r̂·A M⁻¹p = 0 (the shadow residual is orthogonal to the new direction)";
      break;
    }
    const double alpha = rho / rv;
    // s = r − α v,  ŝ = M⁻¹ s,  t = A ŝ
    backend.axpy(-alpha, v, r, s);
    precondition(s, s_hat);
    apply(s_hat, t);
    // (t·s, t·t, s·s) in one reduction;  ω = t·s / t·t minimises ||s − ω t||
    const std::vector<double> d = backend.dots({{&t, &s}, {&t, &t}, {&s, &s}});
    const double ts = d[0], tt = d[1], ss = d[2];
    result.iterations = k;
    if (!std::isfinite(ts) || !std::isfinite(tt) || !std::isfinite(ss)) {
      result.stop_reason = "breakdown: non-finite value in t·s, t·t or s·s (diverging or invalid input)";
      break;
    }
    const double s_residual = std::sqrt(std::max(ss, 0.0)) / scale;
    double omega = 0.0;
    if (s_residual <= options.tolerance) {
      // x ← x + α p̂: the half step already meets the tolerance (r ← s)
      backend.axpy(alpha, p_hat, x, x);
      backend.copy(s, r);
      residual = s_residual;
    } else {
      if (!(tt > 0.0) || ts == 0.0) {
        result.stop_reason = "breakdown: ω = t·s / t·t is 0 or undefined (stagnation: A M⁻¹s ⊥ s)";
        break;
      }
      omega = ts / tt;
      // x ← x + α p̂ + ω ŝ,  r = s − ω t
      backend.linear_combination({1.0, alpha, omega}, {&x, &p_hat, &s_hat}, x);
      backend.axpy(-omega, t, s, r);
      // (r·r, r̂·r) in one reduction
      const std::vector<double> e = backend.dots({{&r, &r}, {&r_hat, &r}});
      residual = std::sqrt(std::max(e[0], 0.0)) / scale;
      const double rho_new = e[1];
      if (std::isfinite(residual) && residual > options.tolerance) {
        if (rho_new == 0.0 || !std::isfinite(rho_new)) {
          result.history.push_back(residual);
          result.stop_reason = "breakdown: r̂·r = 0 (the shadow residual is orthogonal to the residual)";
          break;
        }
        // β = (ρ_new / ρ)(α / ω),  p ← r + β (p − ω v)
        const double beta = (rho_new / rho) * (alpha / omega);
        backend.linear_combination({1.0, beta, -beta * omega}, {&r, &p, &v}, p);
        rho = rho_new;
      }
    }
    result.history.push_back(residual);
    if (options.progress) options.progress(k, residual, elapsed());
    if (!std::isfinite(residual)) {
      result.stop_reason = "breakdown: non-finite residual";
      break;
    }
    if (residual <= options.tolerance) {
      // Stability guard: the recomputed residual b − A x (v as scratch) must agree with the recursive one.
      const bool agree =
          residuals_agree(recomputed_residual(backend, apply, b, x, v, scale), residual, options.tolerance);
      if (agree || result.replacements >= options.max_replacements) {
        result.converged = agree;
        result.stop_reason = agree ? "converged" : kDriftedApart;
        break;
      }
      // r ← b − A x, and the shadow residual and direction restart from it.
      backend.copy(v, r);
      ++result.replacements;
      restart_from_r();
    }
  }
  if (result.stop_reason.empty()) result.stop_reason = "max_iterations";
  result.relative_residual = residual;
  result.seconds = elapsed();
  return result;
}

// Jacobi (M = diag(A), given as its inverse) or, with `inverse_diagonal` null, no preconditioner.
template <class Backend, class Apply>
CgResult bicgstab(Backend& backend, Apply&& apply, const typename Backend::Vector& b, typename Backend::Vector& x,
                  const typename Backend::Vector* inverse_diagonal, const CgOptions& options) {
  // z = M⁻¹ r (Jacobi: element-wise product with the inverse diagonal; none: z = r)
  const auto precondition = [&](const typename Backend::Vector& from, typename Backend::Vector& to) {
    if (inverse_diagonal) backend.multiply(*inverse_diagonal, from, to);
    else backend.copy(from, to);
  };
  return preconditioned_bicgstab(backend, apply, b, x, precondition, options);
}

}  // namespace ss
