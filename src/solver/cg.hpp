#pragma once
// Preconditioned Conjugate Gradient, written once for any backend (GpuBackend or CpuBackend; see the
// interface list in src/kernels/gpu_backend.hpp) and any symmetric positive definite operator
// `apply(x, y)` computing y = A·x, in three variants (CgOptions::variant):
//   textbook     Algorithm 1 of thesis ch. 6: three reductions (p·Ap, ||r||², r·z), each with its
//                own read-back (its own MPI_Allreduce under MPI) per iteration; with a preconditioner
//                cheaper than a reduction (Jacobi, none: CgOptions::precondition_first) two, ||r||²
//                and r·z fused into one after z = M⁻¹r (the same iterates); over MPI ranks p·Ap
//                waits together with the product's halo when the operator is marked halo_last (so
//                does single_sync's one reduction);
//   single_sync  Chronopoulos–Gear CG: the same iterates in exact arithmetic, rearranged so that
//                r·u, Au·u and ||r||² come from ONE fused reduction (backend.dots: one pass family,
//                one read-back, one MPI_Allreduce) per iteration, at the price of one more vector
//                recurrence (s = A p) and its update;
//   pipelined    Ghysels–Vanroose CG: the same one fused reduction, but queued BEFORE the
//                iteration's preconditioner and product and waited for after them
//                (backend.begin_dots / end_dots), so the device keeps working while the partial
//                sums are read back and summed over the ranks; four more vector recurrences.
// All take any SPD preconditioner `precondition(r, z)` (z = M⁻¹ r); conjugate_gradient() below
// gives Jacobi (M = diag(A), as its inverse) or none.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "util/error.hpp"

namespace ss {

enum class CgVariant { textbook, single_sync, pipelined };

inline CgVariant parse_cg_variant(const std::string& name) {
  if (name == "textbook") return CgVariant::textbook;
  if (name == "single_sync") return CgVariant::single_sync;
  if (name == "pipelined") return CgVariant::pipelined;
  SS_THROW("unknown CG variant '" << name << "' (expected textbook, single_sync or pipelined)");
}
inline const char* to_string(CgVariant v) {
  return v == CgVariant::single_sync ? "single_sync" : v == CgVariant::pipelined ? "pipelined" : "textbook";
}

inline constexpr int kPipelinedReplacementPeriod = 50;
// pipelined: a recursive residual this many times the smallest one so far means the recurrences'
// rounding has taken over; single-sync CG solves again from the initial guess.
inline constexpr double kPipelinedDivergence = 100.0;

struct CgOptions {
  double tolerance = 1e-6;     // stop when ||r|| / ||b|| <= tolerance
  // The norm the residual is measured against instead of ||b|| (0: ||b||): a solve for a correction
  // δ = x − x₀ from 0, whose b is b₀ − A x₀, passes ||b₀|| to stop where CG from x₀ would.
  double reference_norm = 0.0;
  // x₀ = 0 (x is zeroed): r₀ = b without a product (over MPI ranks, without its halo round trip).
  bool zero_start = false;
  int max_iterations = 20000;
  CgVariant variant = CgVariant::textbook;
  // textbook: z = M⁻¹ r is made before the convergence test, so that ||r||² and r·z come from one
  // fused reduction (backend.dots): two reductions an iteration instead of three, the same iterates,
  // for one preconditioner application wasted at convergence. For preconditioners cheaper than a
  // reduction; conjugate_gradient() (Jacobi or none) sets it.
  bool precondition_first = false;
  // single_sync and pipelined: when the recursive residual says converged, r = b − A x is recomputed once; if it
  // is more than 10× the recursive one and above the tolerance (the recurrences drifted apart: in
  // float32, a tolerance below what the working precision reaches), r is replaced by it and the
  // iteration restarts from it, at most this many times; then the solve fails as "drifted apart"
  // (the stability guard). The textbook variant stops on its recursive residual (docs/architecture.md, *CG*).
  int max_replacements = 3;
  // pipelined: every this many iterations the recurrences' vectors are recomputed from their
  // definitions (residual replacement: two preconditioner applications and four products); 0: never.
  // Without it the recurrences' rounding grows until the iteration diverges (float32 within ~100
  // iterations on an ill-conditioned system; docs/architecture.md, *CG*).
  int replacement_period = kPipelinedReplacementPeriod;
  // Called every iteration with (iteration, relative residual, elapsed seconds); the caller decides
  // how often to print.
  std::function<void(int, double, double)> progress;
};

// What ||r|| is divided by: the reference norm, else ||b|| (1 for b = 0).
inline double reference_scale(const CgOptions& options, double b_norm) {
  if (options.reference_norm > 0.0) return options.reference_norm;
  return b_norm > 0.0 ? b_norm : 1.0;
}

struct CgResult {
  bool converged = false;
  int iterations = 0;
  double relative_residual = 0.0;   // the recursive residual ||r_k|| / ||b||
  std::string stop_reason;          // "converged", "max_iterations", "breakdown: ..."
  std::vector<double> history;      // relative residual after each iteration (index 0: start)
  double seconds = 0.0;
  int replacements = 0;  // single_sync, pipelined: residual replacements (restarts from b − A x) done
  int restarts = 0;      // single_sync, pipelined: direction restarts (non-positive α denominator)
  int periodic_replacements = 0;  // pipelined: residual replacements every CgOptions::replacement_period
  bool fell_back = false;  // pipelined: its recurrences diverged and single-sync CG solved from the initial guess
};

// One line for a solve that stopped without converging: the reason, the iterations and the
// relative residual reached against the tolerance (a residual that stalled above the tolerance in
// float32 is the working precision's floor, not a slow solve).
inline std::string describe_stop(const CgResult& r, double tolerance) {
  char tail[128];
  std::snprintf(tail, sizeof tail, " after %d iterations (relative residual %.2e, tolerance %.0e)", r.iterations,
                r.relative_residual, tolerance);
  return r.stop_reason + tail;
}

// The stability guard's measurement: scratch = b − A x and its norm relative to `scale`.
template <class Backend, class Apply>
double recomputed_residual(Backend& backend, Apply& apply, const typename Backend::Vector& b,
                           const typename Backend::Vector& x, typename Backend::Vector& scratch, double scale) {
  apply(x, scratch);
  backend.axpy(-1.0, scratch, b, scratch);
  return std::sqrt(backend.norm2(scratch)) / scale;
}

// Within 10× of the recursive residual (or within the tolerance) is the working precision's
// rounding, and the solve stops as converged; beyond that the recurrences drifted apart.
inline bool residuals_agree(double true_residual, double recursive, double tolerance) {
  return true_residual <= std::max(tolerance, 10.0 * recursive);
}
inline constexpr const char* kDriftedApart =
    "breakdown: recursive and true residual drifted apart (the tolerance is below what the working precision "
    "reaches)";

// The stability guard once the recursive residual is within the tolerance: true when the solve
// stops there (converged, or drifted apart after options.max_replacements); false when the caller
// is to replace r by the true residual and go on (counted here).
inline bool stops_at_tolerance(CgResult& result, double true_residual, double recursive, const CgOptions& options) {
  const bool agree = residuals_agree(true_residual, recursive, options.tolerance);
  if (!agree && result.replacements < options.max_replacements) {
    ++result.replacements;
    return false;
  }
  result.converged = agree;
  result.stop_reason = agree ? "converged" : kDriftedApart;
  return true;
}

// An operator y = A x, or a preconditioner z = M⁻¹ r, whose last step on its output is the halo
// update of the output's ghosts (over MPI ranks): the owned entries are final once that update
// begins. Marked so (halo_last(apply)), CG over ranks queues the reduction that follows (textbook:
// p·Ap after the product, r·z — with ||r||² when preconditioning first — after the preconditioner;
// single_sync: its one after the product) inside that update, behind the passes and ahead of the
// wait for the ghost values, so that one wait serves the halo and the dot products
// (DistributedBackend::when_owned_final); elsewhere the mark changes nothing.
template <class Apply>
struct HaloLastApply {
  Apply apply;
  template <class Vector>
  void operator()(const Vector& x, Vector& y) const {
    apply(x, y);
  }
};
template <class Apply>
HaloLastApply<std::decay_t<Apply>> halo_last(Apply&& apply) {
  return {std::forward<Apply>(apply)};
}
template <class T>
struct IsHaloLastApply : std::false_type {};
template <class A>
struct IsHaloLastApply<HaloLastApply<A>> : std::true_type {};
template <class B, class = void>
struct QueuesWhenOwnedFinal : std::false_type {};
template <class B>
struct QueuesWhenOwnedFinal<B, std::void_t<decltype(&B::run_when_owned_final)>> : std::true_type {};

// y = A x and the dot products `pairs` (y among their vectors, the others final already): over MPI
// ranks, for an operator marked halo_last, their reduction queued inside y's halo update (its one
// MPI_Allreduce after the halo's messages); else one after the other (one pair: backend.dot).
template <class Backend, class Apply>
std::vector<double> product_and_dots(Backend& backend, Apply& apply, const typename Backend::Vector& x,
                                     typename Backend::Vector& y,
                                     const std::vector<std::pair<const typename Backend::Vector*,
                                                                 const typename Backend::Vector*>>& pairs) {
  if constexpr (IsHaloLastApply<std::decay_t<Apply>>::value && QueuesWhenOwnedFinal<Backend>::value) {
    typename Backend::PendingDots pending;
    struct Forget {  // the work refers to this frame: never left behind by an exception
      Backend& backend;
      ~Forget() { backend.forget_when_owned_final(); }
    } forget{backend};
    backend.when_owned_final(y, [&] { backend.begin_dots(pairs, pending); });
    apply(x, y);
    backend.run_when_owned_final();  // when the product brought no ghosts of y
    return backend.end_dots(pending);
  } else {
    apply(x, y);
    if (pairs.size() == 1) return {backend.dot(*pairs[0].first, *pairs[0].second)};
    return backend.dots(pairs);
  }
}

// r₀ = b − A x₀ (`scratch` for A x₀); with options.zero_start x = 0 and r₀ = b.
template <class Backend, class Apply>
void start_residual(Backend& backend, Apply&& apply, const typename Backend::Vector& b, typename Backend::Vector& x,
                    typename Backend::Vector& scratch, typename Backend::Vector& r, const CgOptions& options) {
  if (options.zero_start) {
    backend.fill(x, 0.0);
    backend.copy(b, r);
    return;
  }
  apply(x, scratch);
  backend.axpy(-1.0, scratch, b, r);
}

template <class Backend, class Apply, class Precondition>
CgResult single_sync_conjugate_gradient(Backend& backend, Apply&& apply, const typename Backend::Vector& b,
                                        typename Backend::Vector& x, Precondition&& precondition,
                                        const CgOptions& options);
template <class Backend, class Apply, class Precondition>
CgResult pipelined_conjugate_gradient(Backend& backend, Apply&& apply, const typename Backend::Vector& b,
                                      typename Backend::Vector& x, Precondition&& precondition,
                                      const CgOptions& options);

// Solves A x = b from the initial guess in x with any symmetric positive definite preconditioner
// `precondition(r, z)` computing z = M⁻¹ r. All vectors have the same size.
template <class Backend, class Apply, class Precondition>
CgResult preconditioned_conjugate_gradient(Backend& backend, Apply&& apply, const typename Backend::Vector& b,
                                           typename Backend::Vector& x, Precondition&& precondition,
                                           const CgOptions& options) {
  if (options.variant == CgVariant::single_sync)
    return single_sync_conjugate_gradient(backend, apply, b, x, precondition, options);
  if (options.variant == CgVariant::pipelined)
    return pipelined_conjugate_gradient(backend, apply, b, x, precondition, options);
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  const auto elapsed = [&] { return std::chrono::duration<double>(Clock::now() - start).count(); };
  const std::int64_t n = std::int64_t(b.size());
  CgResult result;

  auto r = backend.make_vector(n), z = backend.make_vector(n), p = backend.make_vector(n), q = backend.make_vector(n);

  start_residual(backend, apply, b, x, q, r, options);  // r₀ = b − A x₀
  // ||b||², ||r₀||² and, preconditioning first, z₀ = M⁻¹ r₀ and ρ₀ = r₀·z₀ in one reduction
  double b_norm2 = 0.0, r_norm2 = 0.0, rho = 0.0;
  if (options.precondition_first) {
    const std::vector<double> d = product_and_dots(backend, precondition, r, z, {{&b, &b}, {&r, &r}, {&r, &z}});
    b_norm2 = d[0], r_norm2 = d[1], rho = d[2];
  } else {
    b_norm2 = backend.norm2(b), r_norm2 = backend.norm2(r);
  }
  const double b_norm = std::sqrt(b_norm2);
  const double scale = reference_scale(options, b_norm);
  double residual = std::sqrt(r_norm2) / scale;
  result.history.push_back(residual);
  if (b_norm == 0.0 && residual == 0.0) {
    result.converged = true;
    result.stop_reason = "converged";
    result.seconds = elapsed();
    return result;
  }
  // z₀ = M⁻¹ r₀,  p₀ = z₀,  ρ₀ = r₀·z₀
  if (!options.precondition_first) rho = product_and_dots(backend, precondition, r, z, {{&r, &z}})[0];
  backend.copy(z, p);

  for (int k = 1; k <= options.max_iterations; ++k) {
    // q = A p,  α = ρ / (p·q)
    const double pq = product_and_dots(backend, apply, p, q, {{&p, &q}})[0];
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
    double rho_new = 0.0;
    if (options.precondition_first) {  // z = M⁻¹ r; ||r||² and r·z in one reduction
      const std::vector<double> d = product_and_dots(backend, precondition, r, z, {{&r, &r}, {&r, &z}});
      residual = std::sqrt(d[0]) / scale, rho_new = d[1];
    } else {
      residual = std::sqrt(backend.norm2(r)) / scale;
    }
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
    if (!options.precondition_first) rho_new = product_and_dots(backend, precondition, r, z, {{&r, &z}})[0];
    backend.xpay(z, rho_new / rho, p, p);
    rho = rho_new;
  }
  if (result.stop_reason.empty()) result.stop_reason = "max_iterations";
  result.relative_residual = residual;
  result.seconds = elapsed();
  return result;
}

// Chronopoulos–Gear CG (see the top of this file). With u = M⁻¹r, w = A u:
//   γ_k = r_k·u_k,  δ_k = w_k·u_k,  β_k = γ_k / γ_{k−1},  α_k = γ_k / (δ_k − β_k γ_k / α_{k−1})
//   p_k = u_k + β_k p_{k−1},  s_k = w_k + β_k s_{k−1}  (s = A p),  x += α_k p_k,  r −= α_k s_k
// (α_0 = γ_0/δ_0, p_0 = u_0, s_0 = w_0). γ, δ and ||r||² are one backend.dots() call.
template <class Backend, class Apply, class Precondition>
CgResult single_sync_conjugate_gradient(Backend& backend, Apply&& apply, const typename Backend::Vector& b,
                                        typename Backend::Vector& x, Precondition&& precondition,
                                        const CgOptions& options) {
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  const auto elapsed = [&] { return std::chrono::duration<double>(Clock::now() - start).count(); };
  const std::int64_t n = std::int64_t(b.size());
  CgResult result;

  auto r = backend.make_vector(n), u = backend.make_vector(n), w = backend.make_vector(n), p = backend.make_vector(n),
       s = backend.make_vector(n);

  start_residual(backend, apply, b, x, w, r, options);  // r₀ = b − A x₀  (w as scratch)
  const double b_norm = std::sqrt(backend.norm2(b));
  const double scale = reference_scale(options, b_norm);

  double gamma = 0, delta = 0, residual = 0;
  // u = M⁻¹ r,  w = A u,  (γ, δ, ||r||²) in one reduction (over MPI ranks inside w's halo update
  // for an operator marked halo_last: the iteration's one wait)
  const auto reduce = [&] {
    precondition(r, u);
    const std::vector<double> d = product_and_dots(backend, apply, u, w, {{&r, &u}, {&w, &u}, {&r, &r}});
    gamma = d[0];
    delta = d[1];
    residual = std::sqrt(std::max(d[2], 0.0)) / scale;
    return std::isfinite(d[0]) && std::isfinite(d[1]) && std::isfinite(d[2]);
  };
  bool finite = reduce();
  result.history.push_back(residual);
  if (b_norm == 0.0 && residual == 0.0) {
    result.converged = true;
    result.stop_reason = "converged";
    result.seconds = elapsed();
    return result;
  }
  // p₀ = u₀, s₀ = w₀, α₀ = γ₀ / δ₀
  const auto restart_directions = [&] {
    backend.copy(u, p);
    backend.copy(w, s);
  };
  restart_directions();
  double alpha = 0, gamma_old = gamma;
  const auto first_alpha = [&] {
    if (!finite) {
      result.stop_reason = "breakdown: non-finite value in r·M⁻¹r or Au·u (diverging or invalid input)";
      return false;
    }
    if (delta <= 0.0) {
      result.stop_reason = "breakdown: u·Au <= 0 (operator not positive definite)";
      return false;
    }
    alpha = gamma / delta;
    gamma_old = gamma;
    return true;
  };
  bool ok = first_alpha();

  for (int k = 1; ok && k <= options.max_iterations; ++k) {
    // x ← x + α p,  r ← r − α s
    backend.update_pair(alpha, p, s, x, r);
    // u = M⁻¹ r,  w = A u,  γ = r·u,  δ = w·u,  ||r||²  — the iteration's one synchronisation
    finite = reduce();
    result.iterations = k;
    result.history.push_back(residual);
    if (options.progress) options.progress(k, residual, elapsed());
    if (!finite || !std::isfinite(residual)) {
      result.stop_reason = "breakdown: non-finite residual";
      break;
    }
    if (residual <= options.tolerance) {
      // Stability guard: compare with the recomputed residual b − A x (w as scratch).
      if (stops_at_tolerance(result, recomputed_residual(backend, apply, b, x, w, scale), residual, options)) break;
      // Replace r by the true residual and restart the directions from it.
      backend.copy(w, r);
      finite = reduce();
      restart_directions();
      ok = first_alpha();
      continue;
    }
    // β = γ / γ_old,  α = γ / (δ − β γ / α_old);  a non-positive denominator restarts the directions
    const double beta = gamma / gamma_old;
    const double denominator = delta - beta * gamma / alpha;
    if (!(denominator > 0.0) || !std::isfinite(denominator)) {
      ++result.restarts;
      restart_directions();
      ok = first_alpha();
      continue;
    }
    alpha = gamma / denominator;
    gamma_old = gamma;
    // p ← u + β p,  s ← w + β s
    backend.xpay_pair(beta, u, w, p, s);
  }
  if (result.stop_reason.empty()) result.stop_reason = "max_iterations";
  result.relative_residual = residual;
  result.seconds = elapsed();
  return result;
}

// Ghysels–Vanroose pipelined CG (see the top of this file). With u = M⁻¹r, w = A u and
// m = M⁻¹w, n = A m, iteration k:
//   γ_k = r_k·u_k,  δ_k = w_k·u_k,  ||r_k||²        — queued (begin_dots), then m, n computed
//   β_k = γ_k / γ_{k−1},  α_k = γ_k / (δ_k − β_k γ_k / α_{k−1})   (k = 0: β = 0, α = γ/δ)
//   z = n + β z,  q = m + β q,  s = w + β s,  p = u + β p       (z = A q, q = M⁻¹ s, s = A p)
//   x += α p,  r −= α s,  u −= α q,  w −= α z
// The residual tested at iteration k is r_k's, known after the reduction of that iteration, so a
// converged solve ends having made one preconditioner and product it does not use. ||b||² rides on
// the first reduction. Should the recurrences diverge despite the residual replacement (a residual
// kPipelinedDivergence times the smallest so far: float32 on an ill-conditioned system), single-sync
// CG solves again from the initial guess (CgResult::fell_back): the diverging iterates grow x, and
// float32 CG from a large x stalls at a residual floor above the tolerance.
template <class Backend, class Apply, class Precondition>
CgResult pipelined_conjugate_gradient(Backend& backend, Apply&& apply, const typename Backend::Vector& b,
                                      typename Backend::Vector& x, Precondition&& precondition,
                                      const CgOptions& options) {
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  const auto elapsed = [&] { return std::chrono::duration<double>(Clock::now() - start).count(); };
  const std::int64_t size = std::int64_t(b.size());
  CgResult result;

  auto r = backend.make_vector(size), u = backend.make_vector(size), w = backend.make_vector(size),
       m = backend.make_vector(size), n = backend.make_vector(size), p = backend.make_vector(size),
       s = backend.make_vector(size), q = backend.make_vector(size), z = backend.make_vector(size),
       x0 = backend.make_vector(size);
  typename Backend::PendingDots pending;
  backend.copy(x, x0);  // the initial guess, for the fall-back

  // r = b − A x,  u = M⁻¹ r,  w = A u  (w as scratch for A x)
  const auto start_from_residual = [&] {
    apply(x, w);
    backend.axpy(-1.0, w, b, r);
    precondition(r, u);
    apply(u, w);
  };
  start_residual(backend, apply, b, x, w, r, options);
  precondition(r, u);
  apply(u, w);

  double scale = 1.0, residual = 0.0, gamma_old = 0.0, alpha_old = 0.0;
  double smallest = std::numeric_limits<double>::infinity();
  bool directions = false;  // false: the next update starts the directions (β = 0)
  for (int k = 0;; ++k) {
    if (k == 0) backend.begin_dots({{&r, &u}, {&w, &u}, {&r, &r}, {&b, &b}}, pending);
    else backend.begin_dots({{&r, &u}, {&w, &u}, {&r, &r}}, pending);
    // m = M⁻¹ w,  n = A m: queued while the reduction is read back (and summed over the ranks)
    precondition(w, m);
    apply(m, n);
    const std::vector<double> d = backend.end_dots(pending);
    const double gamma = d[0], delta = d[1];
    if (k == 0) {
      const double b_norm = std::sqrt(std::max(d[3], 0.0));
      scale = reference_scale(options, b_norm);
    }
    residual = std::sqrt(std::max(d[2], 0.0)) / scale;
    if (k == 0) {
      result.history.push_back(residual);
      if (d[3] == 0.0 && residual == 0.0) {
        result.converged = true;
        result.stop_reason = "converged";
        break;
      }
    } else {
      result.iterations = k;
      result.history.push_back(residual);
      if (options.progress) options.progress(k, residual, elapsed());
    }
    if (!std::isfinite(gamma) || !std::isfinite(delta) || !std::isfinite(residual)) {
      result.stop_reason = "breakdown: non-finite residual";
      break;
    }
    smallest = std::min(smallest, residual);
    if (residual > kPipelinedDivergence * smallest) {
      // The recurrences diverge: single-sync CG (its stability guard included) from the initial
      // guess for the iterations left.
      backend.copy(x0, x);
      CgOptions single_sync = options;
      single_sync.variant = CgVariant::single_sync;
      single_sync.max_iterations = std::max(options.max_iterations - k, 0);
      if (options.progress)
        single_sync.progress = [&](int i, double res, double) { options.progress(k + i, res, elapsed()); };
      const CgResult rest = preconditioned_conjugate_gradient(backend, apply, b, x, precondition, single_sync);
      result.fell_back = true;
      result.converged = rest.converged;
      result.stop_reason = rest.stop_reason;
      result.iterations = k + rest.iterations;
      result.history.insert(result.history.end(), rest.history.begin() + 1, rest.history.end());
      result.relative_residual = rest.relative_residual;
      result.seconds = elapsed();
      return result;
    }
    if (residual <= options.tolerance) {
      // Stability guard: compare with the recomputed residual b − A x (m as scratch).
      if (stops_at_tolerance(result, recomputed_residual(backend, apply, b, x, m, scale), residual, options)) break;
      // Replace r by the true residual and restart the directions from it.
      start_from_residual();
      directions = false;
      continue;
    }
    if (k >= options.max_iterations) break;
    // β, α; a non-positive denominator restarts the directions (β = 0)
    double beta = directions ? gamma / gamma_old : 0.0;
    double denominator = delta - (directions ? beta * gamma / alpha_old : 0.0);
    if (directions && (!(denominator > 0.0) || !std::isfinite(denominator))) {
      ++result.restarts;
      beta = 0.0;
      denominator = delta;
    }
    if (!(denominator > 0.0)) {
      result.stop_reason = "breakdown: u·Au <= 0 (operator not positive definite)";
      break;
    }
    const double alpha = gamma / denominator;
    backend.pipelined_directions(beta, u, w, m, n, p, s, q, z);
    backend.pipelined_iterates(alpha, p, s, q, z, x, r, u, w);
    gamma_old = gamma, alpha_old = alpha;
    directions = true;
    if (options.replacement_period > 0 && k % options.replacement_period == options.replacement_period - 1) {
      // Residual replacement: every vector the recurrences carry recomputed from its definition
      // (r = b − A x, u = M⁻¹ r, w = A u, s = A p, q = M⁻¹ s, z = A q); x and p stay.
      start_from_residual();
      apply(p, s);
      precondition(s, q);
      apply(q, z);
      ++result.periodic_replacements;
    }
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
  CgOptions cheap = options;
  cheap.precondition_first = true;
  return preconditioned_conjugate_gradient(backend, apply, b, x, precondition, cheap);
}

}  // namespace ss
