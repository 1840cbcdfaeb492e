#pragma once
// The CFL limits of the flow schemes, in one place: the largest [time] cfl (or [steady] cfl_max) a
// case may ask for, which the case reader checks, and the CFL number past which a running field has
// blown up, which stops the run (physics/flow_time_step.hpp).
namespace ss {

// Explicit convection: stable below about 1; targets up to 10 are accepted, and a field past 10 has
// blown up.
inline constexpr double kMaxExplicitCflTarget = 10.0;
// Implicit (linearised) convection: targets up to 1000; a field past ten times that has blown up.
inline constexpr double kMaxImplicitCflTarget = 1000.0;
inline constexpr double kImplicitBlowUpFactor = 10.0;

inline constexpr double max_cfl_target(bool implicit_convection) {
  return implicit_convection ? kMaxImplicitCflTarget : kMaxExplicitCflTarget;
}
inline constexpr double blow_up_cfl(bool implicit_convection) {
  return implicit_convection ? kImplicitBlowUpFactor * kMaxImplicitCflTarget : kMaxExplicitCflTarget;
}

}  // namespace ss
