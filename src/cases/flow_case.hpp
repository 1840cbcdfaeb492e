#pragma once
// The flow case file (TOML): what a user writes to run `streamsolve flow CASE.toml`.
//
//   [mesh]        file = "cavity.msh" (relative to the case file), refine = 0, [[mesh.surface]] and
//                 [[mesh.periodic]] entries
//   [fluid]       viscosity = 0.01                         — kinematic, required
//                 body_force = [fx, fy, fz]                — per unit mass, constant; default 0
//   [[boundary]]  group = "lid" | 3, type = "wall" | "velocity" | "pressure" | "slip",
//                 velocity = [u, v, w] (velocity: required; wall: moving wall, default 0),
//                 pressure = p (pressure only, default 0)
//   [initial]     velocity = [u, v, w]                     — default 0
//   [exact]       velocity = [u, v, w]                     — optional: the exact solution, when known;
//                 flow.json then reports the cell velocity's error against it at the end
//   [time]        dt, steps | end_time, cfl = 0, max_dt = dt
//                 (steady mode: dt only, the first pseudo-time step; max_dt optional, default unbounded)
//   [steady]      enabled = true (when the table is written), tolerance = 1e-4, max_steps = 1000,
//                 cfl_start = 1, cfl_max = 100 (at most 1000) — march to the steady state in pseudo-time: implicit
//                 convection, the CFL number grown by switched evolution relaxation
//                 CFL_{k+1} = CFL_k · r_{k−1}/r_k (the factor clipped to [0.5, 2], the CFL to
//                 [cfl_start, cfl_max]), r_k = ||H⁻¹ R(U^{k+1}, p^{k+1})|| / ||U^{k+1}|| the relative
//                 steady residual (R: the steady momentum equation's residual, H the face mass; the
//                 change per unit pseudo-time of an implicit step); stops when r_k <= tolerance
//                 (converged), after max_steps (max_steps) or when r_k exceeds 1e4 × its smallest value
//                 (diverged). local_time_steps = true, grad_div = 5 (0 to 100; the term and its
//                 pressure in the update, physics/grad_div_term.hpp), momentum_tolerance =
//                 0.1: each step's momentum solve reduces its initial residual by this factor (delta
//                 form; [solver.momentum] tolerance is for time-accurate runs). Boundary values must not
//                 depend on t.
//   [scheme]      time_stepping = "crank_nicolson" (default: second order, θ = ½ and Adams–Bashforth 2
//                 explicit convection; flow_problem.hpp's TimeScheme) | "theta" (default in steady mode or
//                 with a theta key: first order, forward Euler convection), theta = 1.0 (time_stepping =
//                 "theta" only), convection = "central" | "upwind", viscous = "curl_curl" | "two_point",
//                 method = "classical" | "exact" (the exact fractional step: U = C s, physics/exact_fractional_step.hpp),
//                 convection_time = "explicit" (default) | "implicit" — implicit: linearised convection (the
//                 convecting flux of the last step), a nonsymmetric momentum system solved by BiCGStab; allows
//                 [time] cfl up to 100 (explicit: up to 10, stable below about 1); classical method only
//   [solver.pressure], [solver.momentum], [solver.streamfunction]  tolerance = 1e-6, max_iterations = 5000
//                 (streamfunction: 20000),
//                 preconditioner = "multigrid" (pressure only; the pressure default) | "jacobi" | "none";
//                 momentum only: preconditioner = "automatic" (default: with implicit convection at
//                 a CFL target above 10 jacobi, then block_jacobi once its solves are slow; else
//                 jacobi) | "chebyshev" (the edge vorticity system only; chebyshev_degree = 3, odd, 1 to 15)
//                 | "block_jacobi" (implicit convection only);
//                 variant = "textbook" (the pressure's, streamfunction's and temperature's default) |
//                 "single_sync" (the momentum's default: one reduction per CG iteration) |
//                 "pipelined" (one, overlapped with the preconditioner and product; its residual replaced
//                 every replacement_period = 50 iterations, 0: never); streamfunction only: preconditioner = "automatic" (default: ams
//                 with the grad_div gauge, else jacobi) | "ams" | "jacobi" | "none", gauge = "grad_div" (default) | "none";
//                 momentum only: system = "automatic" (default) | "flux" | "vorticity" (FlowProblem's MomentumSystem);
//                 pressure only: initial_guess = "extrapolated" (default: each step's correction
//                 from the last two steps', pressure_projection.hpp) | "zero"; with multigrid,
//                 smoother_degree = 1 to 8 (the Chebyshev smoother's degree; default: flow_problem.hpp's
//                 pressure_smoother_degree)
//   [[force]]     group = "cylinder" | 3, reference_velocity = U, reference_area = A — the force on
//                 that boundary group at every output step (forces.csv, flow.json); with U and A, the
//                 coefficients 2F/(U²A) too (postprocess/flow_forces.hpp)
//   [[probe]]     name = "dp", points = [[x, y, z], ...] | line = {from, to, samples}, fields = ["velocity",
//                 "pressure"] — the node fields there at every output step (probes/<name>.csv, flow.json)
//   [output]      directory = "out", every = 10, slice_origin = [x, y, z], slice_normal = [0, 1, 0],
//                 slice_field = "velocity" (magnitude) | "temperature" (a [heat] case): flow.png's colour
//   [heat]        conductivity = 1, heat_capacity = 1, source = 0, initial = 0 — a temperature at the nodes,
//                 carried by the flow and diffused (physics/flow_temperature.hpp); the heat case's names:
//                 k, ρc (per unit volume), S(x, y, z) per unit volume, T⁰(x, y, z).
//                 reference_length = L, reference_temperature_difference = ΔT (both or neither): flow.json
//                 reports each thermal group's Nusselt number q L / (k ΔT) too. advection = "upwind"
//                 (default, first order) | "limited" (limited linear upwind, operators/heat_advection.hpp).
//                 Thermal conditions are keys of a [[boundary]] entry: temperature = T(x, y, z) (fixed) or
//                 heat_flux = q(x, y, z) (into the fluid); neither: adiabatic. They need [heat].
//   [buoyancy]    gravity = [gx, gy, gz], expansion = β, reference_temperature = T_ref — the Boussinesq
//                 body force −β (T − T_ref) g per unit mass; needs [heat].
//   [solver.temperature]  tolerance = 1e-6, max_iterations = 5000, preconditioner = "jacobi" | "none"
//
// Velocities and pressures are numbers or expressions in x, y, z, t (src/cases/expression.hpp).
// Every mistake is one ss::Error "<case file>:<line>: <what>" raised before any work starts; the
// groups are resolved against the mesh later, by the flow problem builder.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <glm/vec3.hpp>

#include "cases/expression.hpp"
#include "cases/flow_cfl_limits.hpp"
#include "cases/flow_probe_case.hpp"
#include "mesh/boundary_surface.hpp"
#include "mesh/periodic.hpp"

namespace ss {

struct FlowBoundary {
  enum class Type { wall, velocity, pressure, slip };
  std::string group;            // name or number, as written
  Type type = Type::wall;
  VectorExpression velocity;    // velocity: required (vector: 3 numbers or expression strings in x,y,z,t);
                                // wall: optional wall velocity (moving wall), default 0
  Expression pressure;          // pressure: the fixed (kinematic) pressure, default 0; expression in x,y,z,t
  // Thermal condition (a [heat] case): a fixed temperature or a heat flux into the fluid, in x, y, z
  // (not t); neither: adiabatic.
  std::optional<Expression> temperature, heat_flux;
  int line = 0;
};

// [heat] of a flow case: the temperature's material, source and start (heat_case.hpp's names).
struct FlowHeatSettings {
  double conductivity = 1.0;   // k
  double heat_capacity = 1.0;  // ρc, per unit volume
  std::string advection = "upwind";  // "upwind" | "limited"
  Expression source = 0.0;     // S(x, y, z) per unit volume
  Expression initial = 0.0;    // T⁰(x, y, z)
  double reference_length = 0, reference_temperature_difference = 0;  // both > 0 or both 0: Nusselt numbers
  int line = 0;
};

// [buoyancy]: the Boussinesq body force −β (T − T_ref) g per unit mass.
struct FlowBuoyancySettings {
  glm::dvec3 gravity{0.0};
  double expansion = 0;              // β
  double reference_temperature = 0;  // T_ref
  int line = 0;
};

struct FlowForceSpec {
  std::string group;              // name or number, as written
  double reference_velocity = 0;  // both or neither (> 0)
  double reference_area = 0;
  int line = 0;
};

struct FlowTime {
  double dt = 0;                // initial/fixed time step (> 0)
  int steps = 0;                // exactly one of steps / end_time
  double end_time = 0;
  double cfl = 0;               // 0: fixed dt; > 0: adaptive dt = cfl * min(h/|u|), capped by max_dt
  double max_dt = 0;            // default: dt
};

struct FlowSteady {
  bool enabled = false;
  double tolerance = 1e-4;  // on r_k, the relative steady residual ||H⁻¹R|| / ||U||
  int max_steps = 1000;
  double cfl_start = 1.0, cfl_max = 100.0;
  bool local_time_steps = true;  // each cell's pseudo-time step grows with its size
  double grad_div = 5.0;         // weight of the divergence penalty in the momentum system (0: none)
  double momentum_tolerance = 0.1;   // each step's momentum solve: its initial residual reduced by this
};

struct FlowSolverSettings {
  double tolerance = 1e-6;
  int max_iterations = 5000;
  std::string preconditioner = "jacobi";
  std::string variant = "textbook";  // CG variant (solver/cg.hpp): "textbook" | "single_sync" | "pipelined"
  int replacement_period = -1;  // pipelined only: residual replacement period; -1: the solver's (cg.hpp)
  std::string gauge = "grad_div";  // streamfunction only
  std::string system = "automatic";  // momentum only: "automatic" | "flux" | "vorticity"
  std::string initial_guess = "extrapolated";  // pressure only: "extrapolated" | "zero"
  int chebyshev_degree = 3;  // momentum with preconditioner = "chebyshev" only: the polynomial's odd degree
  int smoother_degree = 0;   // pressure with preconditioner = "multigrid" only: its smoother's degree (0: the default)
};

struct FlowCase {
  std::string path, mesh_file;
  int refine = 0;
  std::vector<BoundarySurface> surfaces;  // [[mesh.surface]]: what refinement projects boundary nodes onto
  std::vector<PeriodicPair> periodic;     // [[mesh.periodic]]: pairs of boundary groups joined
  double viscosity = 0;                          // [fluid] viscosity (kinematic, > 0) — required
  glm::dvec3 body_force{0.0};                    // [fluid] body_force (per unit mass, constant)
  std::vector<FlowBoundary> boundaries;          // [[boundary]] group, type, velocity | pressure
  std::vector<FlowForceSpec> forces;             // [[force]] group, reference_velocity, reference_area
  VectorExpression initial_velocity;             // [initial] velocity, default 0
  std::optional<VectorExpression> exact_velocity;  // [exact] velocity (a known solution, for verification)
  FlowTime time;                                 // [time]
  FlowSteady steady;                             // [steady]
  enum class Convection { central, upwind } convection = Convection::central;  // [scheme] convection
  bool crank_nicolson = true;                    // [scheme] time_stepping = "crank_nicolson" (else "theta")
  double theta = 1.0;                            // [scheme] theta: 1 or 0.5 (any value in [0.5, 1]); crank_nicolson: 0.5
  bool two_point_viscous = false;                // [scheme] viscous = "two_point" (default "curl_curl")
  bool exact_method = false;                     // [scheme] method = "exact" (default "classical")
  bool implicit_convection = false;              // [scheme] convection_time = "implicit" (default "explicit")
  FlowSolverSettings pressure{1e-6, 5000, "multigrid"};  // [solver.pressure]
  FlowSolverSettings momentum{1e-6, 5000, "automatic", "single_sync"};  // [solver.momentum]
  FlowSolverSettings streamfunction{1e-6, 20000, "automatic"};  // [solver.streamfunction] (exact method)
  FlowSolverSettings temperature{1e-6, 5000, "jacobi"};      // [solver.temperature] ([heat])
  std::optional<FlowHeatSettings> heat;          // [heat]
  std::optional<FlowBuoyancySettings> buoyancy;  // [buoyancy]
  std::string output_directory = "out";          // [output], resolved against the case file's folder
  int output_every = 10;
  std::optional<glm::dvec3> slice_origin;        // [output] slice_origin = [x,y,z]
  std::string slice_field = "velocity";          // [output] slice_field: "velocity" | "temperature"
                                                 // (default: chosen later from the mesh bbox centre)
  glm::dvec3 slice_normal{0, 1, 0};              // [output] slice_normal = [nx,ny,nz] (non-zero; normalized)

  // The line of a table or key as written, for later errors: "mesh", "fluid", "fluid.viscosity",
  // "initial", "time", "time.dt", "scheme", "solver.pressure", "solver.momentum", "output", ...;
  // 0 when it was not written.
  // [[probe]] name, points | line, fields: node fields sampled at points (postprocess/flow_probes.hpp samples them).
  std::vector<FlowProbeSpec> probes;

  std::map<std::string, int> lines;
  int line_of(const std::string& key) const;
  // "<case file>:<line of key>" (just the case file when the key was not written).
  std::string where(const std::string& key) const;
};

FlowCase read_flow_case(const std::string& path);
// The same from text (tests); `path` names it in messages and anchors relative paths.
FlowCase parse_flow_case(const std::string& text, const std::string& path);

const char* to_string(FlowBoundary::Type type);

}  // namespace ss
