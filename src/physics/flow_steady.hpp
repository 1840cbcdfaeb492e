#pragma once
// Steady mode's step controller: pseudo-time marching (implicit convection, FlowSolver) with the CFL
// number grown by switched evolution relaxation (Mulder & van Leer 1985):
//   r_k = ||U^{k+1} − U^k|| / (Δt_k ||U^{k+1}||)      the relative change per unit pseudo-time
//   CFL_{k+1} = CFL_k · clip(r_{k−1} / r_k, 0.5, 2)    clipped to [cfl_start, cfl_max]
// A run carrying a temperature ([heat]) has its own relative change per unit pseudo-time,
// t_k = ||T^{k+1} − T^k|| / (Δt_k ||T^{k+1}||), and the controller follows max(r_k, t_k): the march
// converges only when both are below the tolerance.
// The march stops when r_k <= tolerance ("converged"), when r_k is not finite or exceeds
// kDivergenceFactor × its smallest value so far ("diverged"), or at the last step ("max_steps",
// decided by the caller).
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "problems/flow_problem.hpp"

namespace ss {

struct FlowSteadyReport {
  std::vector<double> residuals;  // r_k after each step of this run
  std::vector<double> temperature_residuals;  // t_k after each step ([heat]; empty otherwise)
  std::vector<double> cfl;        // the CFL target each step was taken with
  std::vector<int> momentum_iterations;  // the momentum solve's iterations each step
  std::string stop_reason;        // "converged", "max_steps", "diverged"
  double tolerance = 0;           // the case's [steady] tolerance on r_k
};

class SteadyController {
public:
  static constexpr double kDivergenceFactor = 1e4;
  static constexpr double kMinGrowth = 0.5, kMaxGrowth = 2.0;

  // `cfl`: the first step's target (cfl_start, or a restarted run's CFL number), clipped.
  SteadyController(const FlowSteadySettings& settings, double cfl)
      : settings_(settings), cfl_(std::clamp(cfl, settings.cfl_start, settings.cfl_max)) {
    report_.tolerance = settings.tolerance;
  }

  double cfl() const { return cfl_; }
  const FlowSteadyReport& report() const { return report_; }

  // Before update(): the step's momentum solve took `iterations`.
  void record_momentum_iterations(int iterations) { report_.momentum_iterations.push_back(iterations); }
  // After a step with residual r_k (and a temperature's t_k, when given): records it, sets the next
  // CFL target; true when the march stops.
  bool update(double residual, std::optional<double> temperature = std::nullopt) {
    report_.residuals.push_back(residual);
    report_.cfl.push_back(cfl_);
    if (temperature) {
      report_.temperature_residuals.push_back(*temperature);
      residual = std::isfinite(*temperature) ? std::max(residual, *temperature) : *temperature;
    }
    if (!std::isfinite(residual) || residual > kDivergenceFactor * smallest_) return stop("diverged");
    if (residual <= settings_.tolerance) return stop("converged");
    if (previous_ > 0 && residual > 0)
      cfl_ = std::clamp(cfl_ * std::clamp(previous_ / residual, kMinGrowth, kMaxGrowth), settings_.cfl_start,
                        settings_.cfl_max);
    previous_ = residual;
    smallest_ = std::min(smallest_, residual);
    return false;
  }
  // The caller ran out of steps.
  void out_of_steps() {
    if (report_.stop_reason.empty()) report_.stop_reason = "max_steps";
  }

private:
  bool stop(const char* reason) {
    report_.stop_reason = reason;
    return true;
  }
  FlowSteadySettings settings_;
  double cfl_;
  double previous_ = 0;
  double smallest_ = std::numeric_limits<double>::infinity();
  FlowSteadyReport report_;
};

}  // namespace ss
