#pragma once
// A flow problem in numbers (host side, double): the boundary kind and values of every boundary
// face, the initial velocity, the fluid and the scheme — everything the fractional-step solver
// (physics/flow_solver.hpp) needs, built from a case file and a mesh, or directly in tests.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <glm/vec3.hpp>

#include "mesh/load_mesh.hpp"
#include "operators/flow_operators.hpp"
#include "solver/cg.hpp"

namespace ss {

using VelocityFunction = std::function<glm::dvec3(const glm::dvec3& x, double t)>;
using ScalarFunction = std::function<double(const glm::dvec3& x, double t)>;

// One boundary condition applied to a set of boundary faces.
struct FlowCondition {
  FlowBoundaryKind kind = FlowBoundaryKind::velocity;
  VelocityFunction velocity;   // velocity kind: u_b (null: at rest)
  ScalarFunction pressure;     // pressure kind: p_b (null: 0)
  bool time_dependent = false; // values change with t (re-evaluated every step)
  std::string label;           // for messages: the group's name
};

// [solver.momentum] preconditioner = "automatic": for implicit convection with a CFL target
// ([steady] cfl_max, or [time] cfl) above kBlockJacobiAboveCfl, the point Jacobi until the mean of
// its last kSlowSolves solves exceeds kSlowIterations iterations, then block Jacobi for the rest of
// the run (the blocks' host builds cost about as much as a few tens of GPU iterations); the point
// Jacobi otherwise.
inline constexpr double kBlockJacobiAboveCfl = 10.0;
inline constexpr int kSlowSolves = 5;
inline constexpr double kSlowIterations = 20.0;

struct FlowLinearSolver {
  double tolerance = 1e-6;
  int max_iterations = 5000;
  bool jacobi = true;      // Jacobi (diag of the operator); false and not multigrid: none
  bool multigrid = false;  // pressure only: one algebraic V-cycle of P (overrides jacobi)
  CgVariant variant = CgVariant::textbook;  // single_sync, pipelined: one reduction (one MPI_Allreduce) per iteration
  // momentum with implicit convection only: block Jacobi of the assembled system
  // (physics/momentum_block_jacobi.hpp; overrides jacobi), its block size and refresh interval
  bool block_jacobi = false;
  bool block_jacobi_when_slow = false;  // "automatic": Jacobi, then block Jacobi once solves are slow
  // momentum on the edge vorticity only: the Chebyshev polynomial of Jacobi, over MPI ranks each
  // rank's block's (physics/momentum_vorticity_solve.hpp; overrides jacobi)
  bool chebyshev = false;
  int chebyshev_degree = 3;  // its odd degree
  int block_size = 16;
  int refresh_interval = 25;
  int replacement_period = kPipelinedReplacementPeriod;  // pipelined only: residual replacement every this many iterations
  // pressure only: each step's correction starts from the earlier steps' extrapolated
  // (physics/pressure_projection.hpp; a checkpoint carries their history); false: from 0
  bool extrapolated_guess = true;
  int smoother_degree = 0;  // pressure with multigrid: its Chebyshev smoother's degree (0: pressure_smoother_degree's)
};

// The pressure multigrid's smoother degree: the case's, else 2 on one device and 3 over MPI ranks,
// where each rank smooths its own block without a message, so a degree more buys fewer CG
// iterations — and their halo round trips and reductions — with kernel passes alone
// (docs/performance.md; one device without MPI gains nothing from it).
inline int pressure_smoother_degree(const FlowLinearSolver& s, bool over_ranks) {
  return s.smoother_degree > 0 ? s.smoother_degree : over_ranks ? 3 : 2;
}

// The Krylov options of one of the flow's linear solves.
inline CgOptions cg_options(const FlowLinearSolver& s) {
  CgOptions options;
  options.tolerance = s.tolerance;
  options.max_iterations = s.max_iterations;
  options.variant = s.variant;
  options.replacement_period = s.replacement_period;
  return options;
}

struct FlowTimeSettings {
  double dt = 0;          // fixed step, or the first one with a CFL target
  int steps = 0;          // stop after this many steps (0: use end_time)
  double end_time = 0;
  double cfl = 0;         // > 0: Δt = min(max_dt, cfl / max Courant rate)
  double max_dt = 0;
};

// Steady mode (physics/flow_steady.hpp): pseudo-time marching with implicit convection and a CFL
// number grown by switched evolution relaxation until the relative change per unit pseudo-time falls
// below `tolerance`. time.steps is then max_steps (FlowSolver::finished()).
struct FlowSteadySettings {
  bool enabled = false;
  double tolerance = 1e-4;  // on the relative steady residual ||H⁻¹R|| / ||U|| (FlowSolver::steady_residual)
  double cfl_start = 1.0, cfl_max = 100.0;
  bool local_time_steps = true;  // Δt_c = s_c Δt by cell size (use_local_pseudo_time_steps)
  double grad_div = 5.0;         // κ of the momentum system's grad–div term (physics/grad_div_term.hpp); 0: none
  // Each step's momentum solve in delta form, A δ = rhs − A U₀, to this fraction of its initial
  // residual (an inexact step of the pseudo-time continuation: no floor set by ||rhs|| ~ ||H U/Δt||,
  // so the steady residual falls as far as the tolerance asks).
  double momentum_tolerance = 0.1;
};

// A boundary group whose force the flow command reports (postprocess/flow_forces.hpp).
struct FlowForceGroup {
  std::int32_t group = 0;
  std::string label;               // the group's name, for reports
  double reference_velocity = 0;   // > 0 with reference_area: coefficients c = 2F/(U²A) too
  double reference_area = 0;
  bool has_coefficients() const { return reference_velocity > 0 && reference_area > 0; }
};

// The unknowns of the classical method's momentum solve: the face fluxes (CG or BiCGStab on
// H/Δt − νθK + C), or the edge vorticity (the curl–curl form reduced by the diagonal H,
// operators/momentum_vorticity_system.hpp: CG on the edges with no M_e⁻¹ polynomial). automatic:
// vorticity where it applies (classical method, curl–curl viscous term, explicit convection), else
// flux.
enum class MomentumSystem { automatic, flux, vorticity };

// The exact method's streamfunction CG: the auxiliary-space preconditioner (multigrid/auxiliary_space.hpp),
// Jacobi or none; automatic: ams with the grad–div gauge, jacobi without it.
enum class StreamfunctionPreconditioner { automatic, ams, jacobi, none };

// The time stepping of a run.
//   theta:          the viscous term by the θ-scheme (problem.theta; 1 implicit Euler), explicit
//                   convection and body force by forward Euler, implicit convection linearised at the
//                   new level: first order in Δt (steady mode's pseudo-time march);
//   crank_nicolson: θ = ½, explicit convection and body force by variable-step Adams–Bashforth 2,
//                   T f̃ = (1 + r/2) T fⁿ − (r/2) T fⁿ⁻¹ with r = Δt/Δtⁿ⁻¹ (forward Euler on a
//                   run's first step), implicit convection at the half step, −N(Ũ; ½(uⁿ + uⁿ⁺¹)) with
//                   the convecting flux Ũ = (1 + r/2) Uⁿ − (r/2) Uⁿ⁻¹: second order in Δt (the case
//                   files' default for time-accurate runs; physics/flow_explicit_terms.hpp).
// Both keep the incremental pressure correction (pⁿ in the predictor, pⁿ⁺¹ = pⁿ + φ).
enum class TimeScheme { theta, crank_nicolson };
inline const char* to_string(TimeScheme s) { return s == TimeScheme::crank_nicolson ? "crank_nicolson" : "theta"; }

// classical: momentum predictor, pressure Poisson, projection (thesis §7.3); exact: U = C s from
// one streamfunction solve, pressure only when written (§7.4, physics/exact_fractional_step.hpp).
enum class FlowMethod { classical, exact };

struct FlowProblem {
  double viscosity = 0;
  glm::dvec3 body_force{0.0};  // per unit mass, constant in space and time (a channel's driving gradient)
  double theta = 1.0;  // the viscous θ (crank_nicolson: 0.5)
  TimeScheme time_scheme = TimeScheme::theta;
  Convection convection = Convection::central;
  // The convecting flux's time level: explicit (−N(Uⁿ) on the right-hand side, CFL ≲ 1) or implicit
  // (linearised: the convecting flux Uⁿ, the convected velocity I U*, a nonsymmetric momentum system
  // solved by BiCGStab; classical method only).
  bool implicit_convection = false;
  ViscousScheme viscous = ViscousScheme::curl_curl;
  FlowMethod method = FlowMethod::classical;
  std::vector<FlowCondition> conditions;
  std::vector<std::int32_t> boundary_condition;  // per boundary face: index into conditions
  VelocityFunction initial_velocity;             // null: at rest
  VelocityFunction exact_velocity;               // null: unknown (else flow.json reports the error against it)
  FlowTimeSettings time;
  FlowSteadySettings steady;
  std::vector<FlowForceGroup> forces;            // [[force]]: groups whose force is reported
  // The momentum CG one synchronisation an iteration (single_sync; its stability guard checks the
  // true residual b − A x at the end); the pressure CG with its V-cycle textbook (a wasted V-cycle
  // costs more than a reduction).
  FlowLinearSolver momentum{1e-6, 5000, true, false, CgVariant::single_sync};
  FlowLinearSolver pressure;
  MomentumSystem momentum_system = MomentumSystem::automatic;
  FlowLinearSolver streamfunction{1e-6, 20000, true, false};  // exact method
  bool streamfunction_gauge = true;  // exact method: the grad–div gauge (exact_fractional_step.hpp)
  StreamfunctionPreconditioner streamfunction_preconditioner = StreamfunctionPreconditioner::automatic;

  std::vector<FlowBoundaryKind> boundary_kinds() const;
  // The weight of the linearised convection C in the implicit-convection system: 1 (theta), ½ (crank_nicolson).
  double implicit_convection_weight() const { return time_scheme == TimeScheme::crank_nicolson ? 0.5 : 1.0; }
  bool time_dependent() const;
  // The momentum system a run uses; an explicit request that does not apply is one error line.
  MomentumSystem resolved_momentum_system() const;
  // automatic made ams or jacobi; ams without the gauge is an ss::Error.
  StreamfunctionPreconditioner resolved_streamfunction_preconditioner() const;
};
inline const char* to_string(StreamfunctionPreconditioner p) {
  return p == StreamfunctionPreconditioner::ams      ? "ams"
         : p == StreamfunctionPreconditioner::jacobi ? "jacobi"
         : p == StreamfunctionPreconditioner::none   ? "none"
                                                     : "automatic";
}
inline const char* to_string(MomentumSystem s) {
  return s == MomentumSystem::vorticity ? "vorticity" : s == MomentumSystem::flux ? "flux" : "automatic";
}

// The problem's operator coefficients: build_flow_operator_data with its boundary kinds, and steady
// mode's local pseudo-time steps when they are on (use_local_pseudo_time_steps). `min_length` is
// the smallest cell length of the whole mesh (smallest_cell_length; over MPI ranks all ranks').
FlowOperatorData flow_operator_data(const MeshOperatorTables& tables, const FlowProblem& problem, double min_length);
inline FlowOperatorData flow_operator_data(const MeshOperatorTables& tables, const FlowProblem& problem) {
  return flow_operator_data(tables, problem, smallest_cell_length(tables));
}

// Boundary values at one time: u_b per boundary face (velocity faces; others 0), p_b per boundary
// face (pressure faces; others 0), and the prescribed flux U_b = ∫ u_b·n dA per face (0 on free
// and interior faces; slip faces 0).
struct FlowBoundaryValues {
  std::vector<double> bx, by, bz, pressure;
  std::vector<double> flux;
};
FlowBoundaryValues evaluate_boundary(const FlowProblem& problem, const LoadedMesh& mesh, double t);

// U_f = ∫_f u·n dA by the edge-midpoint rule (exact for quadratic u), for every face.
std::vector<double> face_fluxes(const LoadedMesh& mesh, const VelocityFunction& u, double t);

}  // namespace ss
