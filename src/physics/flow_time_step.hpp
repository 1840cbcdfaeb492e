#pragma once
// Δt control of a flow run, in one place: a fixed Δt, or one from a CFL target on the current field
//   Δt = min(max_dt, CFL_target / max_c (1/2V_c) Σ|U_f|),
// at most kMaxGrowth times the last Δt, the case's dt on a fresh run's first step (a fluid at rest
// has no Courant rate, and a moving wall sets one only after it), and ending on end_time; the end of
// the run; and the CFL number past which the field has blown up (cases/flow_cfl_limits.hpp).
#include <algorithm>
#include <string>

#include "cases/flow_cfl_limits.hpp"
#include "problems/flow_problem.hpp"

namespace ss {

class FlowTimeStep {
public:
  static constexpr double kMaxGrowth = 1.2;  // adaptive Δt: at most this factor from one step to the next

  explicit FlowTimeStep(const FlowProblem& problem)
      : settings_(problem.time), implicit_convection_(problem.implicit_convection),
        has_convection_(problem.convection != Convection::none), cfl_target_(problem.time.cfl) {}

  // The CFL target of the following steps (> 0: adaptive; steady mode's controller moves it).
  void set_cfl_target(double cfl) { cfl_target_ = cfl; }
  double cfl_target() const { return cfl_target_; }

  // Δt of the step after `step` steps (0: a fresh run's first), the last of previous_dt, at `time`.
  // `courant_rate()` gives max_c (1/2V_c) Σ|U_f| of the current field; it is asked only with a target.
  template <class CourantRate>
  double next(int step, double previous_dt, double time, CourantRate&& courant_rate) const {
    double dt = settings_.dt;
    if (cfl_target_ > 0) {
      const double rate = courant_rate();
      dt = rate > 0 ? std::min(settings_.max_dt, cfl_target_ / rate) : settings_.max_dt;
      dt = step == 0 ? std::min(dt, settings_.dt) : std::min(dt, kMaxGrowth * previous_dt);
    }
    if (settings_.steps == 0) dt = std::min(dt, settings_.end_time - time);
    return dt;
  }

  // True when the run has reached its last step or end time.
  bool finished(int step, double time) const {
    if (settings_.steps > 0) return step >= settings_.steps;
    return time >= settings_.end_time * (1.0 - 1e-12);
  }

  // Why a field with this CFL number has blown up; empty while it has not (Stokes flow has no CFL limit).
  std::string blow_up(double cfl) const {
    const double limit = blow_up_cfl(implicit_convection_);
    if (!(cfl > limit) || !has_convection_) return {};
    return "CFL number " + std::to_string(cfl) + " exceeds " + std::to_string(limit) +
           (implicit_convection_ ? " (the flow has blown up: lower dt or [time] cfl)"
                                 : " (explicit convection is unstable: lower dt or set [time] cfl)");
  }

private:
  FlowTimeSettings settings_;
  bool implicit_convection_, has_convection_;
  double cfl_target_;
};

}  // namespace ss
