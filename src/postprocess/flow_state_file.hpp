#pragma once
// Checkpoints of a flow run: `flow_NNNNNN.state` holds what FlowSolver::restore() needs to continue
// (face fluxes, cell pressures, the previous step's fluxes, time, step, Δt — all in double), written
// atomically.
//
// Layout (little-endian): "SSFLOWST" | u32 version = 6 | i32 step | f64 time | f64 dt |
// i64 faces | i64 cells | i64 previous faces (0 or faces) | i64 edges (0, or the streamfunction's) |
// i32 base levels (FlowState::base_levels: -1 serial ids, k >= 0 an MPI run's partition-then-refine ids) |
// i64 vorticity edges (0 or edges) | i64 previous vorticity edges (0 or the vorticity's) |
// i64 temperatures (0, or the nodes of a [heat] run) |
// f64 flux[faces] | f64 pressure[cells] | f64 previous flux[previous faces] | f64 s[edges] |
// f64 ω[vorticity edges] | f64 ω previous[previous vorticity edges] | f64 T[temperatures] |
// u64 FNV-1a of all bytes before it.
// Version 1 lacks the previous-faces count and array, version 2 the edge count and streamfunction,
// version 3 the base levels, version 4 the vorticity history, version 5 the temperature; all are
// still read (a [heat] run cannot continue from one without T; otherwise the restarted
// run's first solve then starts from Uⁿ instead of the extrapolation, from s = 0, or from the
// polynomial's ω; the ids are serial).
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
