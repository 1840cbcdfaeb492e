#pragma once
// Checkpoints of a flow run: `flow_NNNNNN.state` holds what FlowSolver::restore() needs to continue
// (face fluxes, cell pressures, the previous step's fluxes, time, step, Δt — all in double), written
// atomically.
//
// Layout (little-endian): "SSFLOWST" | u32 version = 8 | i32 step | f64 time | f64 dt |
// i64 faces | i64 cells | i64 previous faces (0 or faces) | i64 edges (0, or the streamfunction's) |
// i32 base levels (FlowState::base_levels: -1 serial ids, k >= 0 an MPI run's partition-then-refine ids) |
// i64 vorticity edges (0 or edges) | i64 previous vorticity edges (0 or the vorticity's) |
// i64 temperatures (0, or the nodes of a [heat] run) | i64 previous convection (0 or faces) |
// i64 pressure increments (0 or cells) | i64 earlier pressure rates (0 or the increments) |
// f64 Δt of the increment | f64 Δt of the earlier rate |
// f64 flux[faces] | f64 pressure[cells] | f64 previous flux[previous faces] | f64 s[edges] |
// f64 ω[vorticity edges] | f64 ω previous[previous vorticity edges] | f64 T[temperatures] |
// f64 previous convection[previous convection] | f64 φ[pressure increments] | f64 g[earlier pressure rates] |
// u64 FNV-1a of all bytes before it.
// Version 1 lacks the previous-faces count and array, version 2 the edge count and streamfunction,
// version 3 the base levels, version 4 the vorticity history, version 5 the temperature, version 6 the
// previous convection, version 7 the pressure guess's history; all are
// still read (a [heat] run cannot continue from one without T; otherwise the restarted
// run's first solve then starts from Uⁿ instead of the extrapolation, from s = 0, from the
// polynomial's ω, Adams–Bashforth anew, or its pressure CG from 0; the ids are serial).
// A file that is short, has another magic or version, or fails the checksum is an ss::Error naming it.
#include <string>
#include <vector>

#include "physics/flow_state.hpp"

namespace ss {

// "flow_000120.state"
std::string flow_state_name(int step);
void write_flow_state(const std::string& path, const FlowState& state);
FlowState read_flow_state(const std::string& path);
// Only the header's step, time and dt (flux and pressure left empty; no checksum check).
FlowState read_flow_state_header(const std::string& path);

struct FlowStateFile {
  int step = 0;
  std::string path;
};
// Every flow_NNNNNN.state in `directory`, by ascending step (empty when there is none or no directory).
std::vector<FlowStateFile> list_flow_states(const std::string& directory);

}  // namespace ss
