#pragma once
// What a flow run hands out, apart from the solver that makes it: the report of each step
// (FlowStepInfo), the totals of a run's steps (FlowTotals) and the host copy of the state that a
// checkpoint holds (FlowState); a [heat] run's temperature step report and totals. Output code
// includes this (and flow_run_result.hpp), not the solver.
#include <vector>

namespace ss {

// What the loop reports after each step.
struct FlowStepInfo {
  int step = 0;
  double time = 0, dt = 0;
  double cfl = 0;             // Δt · max_c (1/2V_c) Σ|U_f| of the new field
  double kinetic_energy = 0;  // ½ Σ_f H_f U_f² (the energy the scheme's convection conserves)
  // ½ Σ_c V_c |u_c|² of the cell velocities: ∫ |u|²/2 of the face fluxes' RT0 field once D U = 0
  // (u_c is then that field, constant in the cell); H's diagonal sum differs from it by the mesh's
  // shape (~11 % on the Taylor–Green sample's tets).
  double cell_kinetic_energy = 0;
  double max_divergence = 0;  // max_c |D U|_c / max_f |U_f|
  int momentum_iterations = 0, pressure_iterations = 0;
  int streamfunction_iterations = 0;  // exact method
  double thermal_courant = 0;         // a [heat] run: Δt max_i q_i/V_i of the temperature step (flow_temperature.hpp)
  int temperature_iterations = 0;
  // Steady mode (flow_time_loop.hpp): the relative changes per unit pseudo-time of the flow and (a
  // [heat] run) of the temperature; −1 where there is none.
  double steady_change = -1, temperature_change = -1;
};

struct FlowTotals {
  int steps = 0;
  long momentum_iterations = 0, pressure_iterations = 0;
  int max_momentum_iterations = 0, max_pressure_iterations = 0;
  int momentum_cg_fall_backs = 0, pressure_cg_fall_backs = 0;  // pipelined solves finished by single-sync CG
  int pressure_guess_fall_backs = 0;  // steps whose pressure CG from the extrapolated guess failed, solved again from 0
  long streamfunction_iterations = 0;  // exact method (pressure: the recoveries at output steps)
  int max_streamfunction_iterations = 0;
  double convection_seconds = 0, momentum_seconds = 0, pressure_seconds = 0, projection_seconds = 0;
  double streamfunction_seconds = 0;
  int streamfunction_preconditioner_setups = 0;  // exact method, ams: set-ups (included in streamfunction_seconds)
  double streamfunction_preconditioner_setup_seconds = 0;
  int streamfunction_preconditioner_updates = 0;  // its vector space recombined for a new class of νθΔt (included alike)
  double streamfunction_preconditioner_update_seconds = 0;
  int momentum_preconditioner_setups = 0;  // block Jacobi builds (included in momentum_seconds)
  double momentum_preconditioner_setup_seconds = 0;
  double diagnostics_seconds = 0;
};

// Where a run's start went (flow.json "start_parts"): the solver's set-up before its first step, in
// seconds. The mesh, its tables and the upload are the run's stages before it (flow.json "timings").
struct FlowStartParts {
  double momentum_operator = 0;   // the face mass and the viscous operator (curl–curl: host build)
  double pressure = 0;            // the pressure system and its multigrid
  double momentum_system = 0;     // the classical method's momentum system (vorticity: host build)
  double exact_method = 0;        // the exact method's edge systems (its preconditioner is in its set-ups)
  double initial_projection = 0;  // start(): the first projection (restore(): the restart's)
};

// Host copy of the state (what a checkpoint holds).
struct FlowState {
  int step = 0;
  double time = 0, dt = 0;
  std::vector<double> flux;      // U_f per face
  std::vector<double> pressure;  // p per cell
  std::vector<double> previous_flux;  // Uⁿ⁻¹ per face (empty at the start: no previous step)
  // Crank–Nicolson time stepping: the last step's explicit convection and body force T(−N + body)
  // per face, which the next step's Adams–Bashforth extrapolation reads (empty: none yet, or θ-scheme).
  std::vector<double> previous_convection;
  std::vector<double> streamfunction;  // s per edge (exact method; empty otherwise)
  // The vorticity momentum system's last two ω per edge (ωⁿ, ωⁿ⁻¹; its next start vector
  // extrapolates them, so a restarted run continues as the uninterrupted one): empty otherwise.
  std::vector<double> vorticity, previous_vorticity;
  std::vector<double> temperature;  // T per node (a [heat] run, physics/flow_temperature.hpp); empty otherwise
  // The extrapolated pressure guess's history (pressure_projection.hpp): the last step's increment
  // φⁿ per cell and its Δtⁿ, the step before's rate gⁿ⁻¹ = φⁿ⁻¹/Δtⁿ⁻¹ per cell and its Δtⁿ⁻¹ (empty
  // and 0 where there is none: the guess off, or fewer steps), so a restarted run starts its pressure
  // solves where the uninterrupted one would.
  std::vector<double> pressure_increment, previous_pressure_rate;
  double pressure_increment_dt = 0, previous_pressure_increment_dt = 0;
  // Whose ids the arrays use (checkpoints): -1 the serial run's mesh; k >= 0 the partition-then-refine
  // ids of MPI runs (parallel/refined_entity_piece.hpp) over the file's mesh refined k times.
  int base_levels = -1;
};

// What one temperature step of a [heat] run reports (physics/flow_temperature.hpp), and their totals.
struct FlowHeatStepInfo {
  double courant = 0;  // Δt max_i q_i / V_i
  int iterations = 0;
  double relative_change = 0;  // implicit advection: ||Tⁿ⁺¹ − Tⁿ|| / ||Tⁿ⁺¹|| (else 0)
};

struct FlowHeatTotals {
  long iterations = 0;
  int max_iterations = 0;
  double max_courant = 0;
  double seconds = 0;
};

}  // namespace ss
