#include "app/flow_output.hpp"

#include <cstdio>
#include <filesystem>

#include "util/error.hpp"

namespace ss {

namespace fs = std::filesystem;

void FlowCheckpoints::clear_previous_run() {
  series_.remove_previous_run({"flow.json", "flow.png", "flow.vtu"});
  for (const FlowStateFile& file : list_flow_states(directory_)) remove_left_file(file.path);
}

FlowState FlowCheckpoints::resume() {
  const std::vector<FlowStateFile> states = list_flow_states(directory_);
  SS_REQUIRE(!states.empty(), "--restart: no checkpoint (flow_NNNNNN.state) in '" << directory_ << "' to continue from");
  FlowState state = read_flow_state(states.back().path);
  SS_REQUIRE(state.step == states.back().step,
             states.back().path << ": holds step " << state.step << ", its name says " << states.back().step);
  series_.remove_temporaries();
  std::error_code ec;
  for (const fs::directory_entry& entry : fs::directory_iterator(directory_, ec))
    if (series_.snapshot_step(entry.path().filename().string()) > state.step) remove_left_file(entry.path().string());
  std::vector<PvdEntry> entries;
  for (const FlowStateFile& file : states)
    if (fs::exists(series_.path(series_.snapshot_name(file.step))))
      entries.push_back({read_flow_state_header(file.path).time, series_.snapshot_name(file.step)});
  series_.keep(std::move(entries));
  return state;
}

void FlowCheckpoints::write(const FlowState& state, const LoadedMesh& mesh, const FlowFields& fields) {
  const std::string name = series_.snapshot_name(state.step);
  write_flow_vtu(series_.path(name), mesh, fields);
  write_checkpoint(state);
  series_.add_written(state.step, state.time);
}

void FlowCheckpoints::write_checkpoint(const FlowState& state) {
  write_flow_state((fs::path(directory_) / flow_state_name(state.step)).string(), state);
}

}  // namespace ss
