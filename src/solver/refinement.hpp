#pragma once
// Mixed-precision defect correction (iterative refinement), written once for any backend: the
// solution x and the outer residual r = b − A x are held in double (the backend's PreciseVector:
// std::vector<double> on the CPU, a float pair hi + lo with fp64 kernels on the GPU), the inner
// solves are the backend's working-precision CG (float32 on the GPU):
//
//   repeat:  r = b − A x                      (double; `residual(x)` returns it rounded to working)
//            stop when ||r|| / ||b|| <= tolerance    — the TRUE relative residual
//            solve A d = r by CG to a loose relative tolerance (inner_tolerance), d₀ = 0
//            x ← x + d                        (double: backend.accumulate_precise)
//
// Each correction gains about log10(1/inner_tolerance) digits, down to what the double residual
// can resolve (~1e-14 relative), so a float32 inner solver reaches true residuals of 1e-10 and
// below. On a backend whose working precision already is double (CpuBackend::working_is_precise)
// the inner solve is asked for the whole reduction at once, so there is one correction normally.
// Every inner solve asks at most what the final tolerance needs (tolerance / current residual).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "solver/cg.hpp"

namespace ss {

struct RefinementOptions {
  double tolerance = 1e-6;         // on the true ||b − A x|| / ||b||, evaluated in double
  int max_iterations = 20000;      // inner CG iterations over all corrections
  double inner_tolerance = 1e-5;   // relative reduction asked of each inner solve (working < precise)
  int max_corrections = 40;
  // precision "float": one inner solve to `tolerance` on its recursive residual and no refinement
  // (the plain working-precision CG, for comparison); the true residual is still reported.
  bool single_correction = false;
  CgVariant variant = CgVariant::textbook;
  // (inner iterations so far, estimated ||r|| / ||b||, seconds), every inner iteration.
  std::function<void(int, double, double)> progress;
};

struct RefinementResult {
  bool converged = false;
  std::string stop_reason;
  int iterations = 0;                 // inner CG iterations, all corrections
  int corrections = 0;                // inner solves
  std::vector<int> inner_iterations;  // per correction
  int fall_backs = 0;                 // inner pipelined solves that single-sync CG finished (CgResult::fell_back)
  double relative_residual = 0.0;     // true ||b − A x|| / ||b|| (double) at the end
  std::vector<double> history;        // true relative residual before each correction and at the end
  double seconds = 0.0;
};

// `residual(x)` returns (a reference to) r = b − A x computed in double and rounded to working
// precision; `b_norm` = ||b|| (double); `apply(v, y)` y = A v and `precondition(r, z)` in working
// precision for the inner CG. x: initial guess in, solution out.
template <class Backend, class Residual, class Apply, class Precondition>
RefinementResult refine_solution(Backend& backend, Residual&& residual, double b_norm, Apply&& apply,
                                 typename Backend::PreciseVector& x, Precondition&& precondition,
                                 const RefinementOptions& options) {
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  const auto elapsed = [&] { return std::chrono::duration<double>(Clock::now() - start).count(); };
  const double scale = b_norm > 0.0 ? b_norm : 1.0;
  RefinementResult result;
  auto d = backend.make_vector(std::int64_t(backend.working(x).size()));
  double previous = std::numeric_limits<double>::infinity();
  int stalls = 0;
  bool last_inner_converged = false;
  std::string last_inner_reason;

  for (;;) {
    // r = b − A x in double
    const auto& r = residual(x);
    const double rn = std::sqrt(backend.norm2(r)) / scale;
    result.history.push_back(rn);
    result.relative_residual = rn;
    if (!std::isfinite(rn)) {
      result.stop_reason = "breakdown: non-finite true residual";
      break;
    }
    if (rn <= options.tolerance) {
      result.converged = true;
      result.stop_reason = "converged";
      break;
    }
    if (options.single_correction && result.corrections == 1) {
      result.converged = last_inner_converged;
      result.stop_reason = last_inner_reason;
      break;
    }
    if (result.iterations >= options.max_iterations) {
      result.stop_reason = "max_iterations";
      break;
    }
    if (result.corrections >= options.max_corrections) {
      result.stop_reason = "max_corrections";
      break;
    }
    // A correction that does not halve the residual twice in a row: the inner precision's floor.
    stalls = rn > 0.5 * previous ? stalls + 1 : 0;
    if (stalls >= 2) {
      result.stop_reason = "stagnated: corrections no longer reduce the true residual";
      break;
    }
    previous = rn;

    // A d = r, d₀ = 0, to the reduction this correction should bring (never more than the target).
    const double target = options.tolerance / rn;
    double inner_tolerance = target;
    if (!options.single_correction && !Backend::working_is_precise)
      inner_tolerance = std::max(options.inner_tolerance, 0.5 * target);
    CgOptions inner;
    inner.tolerance = std::min(inner_tolerance, 0.5);
    inner.max_iterations = options.max_iterations - result.iterations;
    inner.variant = options.variant;
    // The outer loop checks the true residual in double after every correction, so a single-sync
    // inner solve needs no fp32 residual replacement (a restart would throw its Krylov space away):
    // a drifted inner solve still returns a useful correction.
    inner.max_replacements = 0;
    const int before = result.iterations;
    if (options.progress)
      inner.progress = [&, before, rn](int k, double res, double) { options.progress(before + k, res * rn, elapsed()); };
    backend.fill(d, 0.0);
    const CgResult c = preconditioned_conjugate_gradient(backend, apply, r, d, precondition, inner);
    result.iterations += c.iterations;
    result.inner_iterations.push_back(c.iterations);
    ++result.corrections;
    if (c.fell_back) ++result.fall_backs;
    last_inner_converged = c.converged;
    last_inner_reason = c.stop_reason;
    const bool drifted = c.stop_reason.find("drifted") != std::string::npos;
    if (!c.converged && c.stop_reason != "max_iterations" && !drifted) {
      result.stop_reason = c.stop_reason;  // breakdown: d is not a correction
      break;
    }
    // x ← x + d in double
    backend.accumulate_precise(x, d);
  }
  result.seconds = elapsed();
  return result;
}

}  // namespace ss
