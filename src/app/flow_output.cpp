#include "app/flow_output.hpp"

#include <cstdio>
#include <filesystem>

#include "util/error.hpp"

namespace ss {

namespace fs = std::filesystem;

namespace {

// Step of a snapshot name "flow_NNNNNN.vtu", or -1.
int snapshot_step(const std::string& name, const TimeSeries& series) {
  int step = -1, consumed = 0;
  if (std::sscanf(name.c_str(), "flow_%d.vtu%n", &step, &consumed) == 1 && consumed == int(name.size()) && step >= 0 &&
      name == series.snapshot_name(step))
    return step;
  return -1;
}

void remove_file(const fs::path& path) {
  std::error_code ec;
  fs::remove(path, ec);
  SS_REQUIRE(!ec, "cannot remove '" << path.string() << "' left by a previous run: " << ec.message());
}

}  // namespace

void FlowCheckpoints::remove_temporaries() const {
  // AtomicFile's temporaries are "<final name>.tmp.<pid>": a killed run leaves them behind.
  std::error_code ec;
  for (const fs::directory_entry& entry : fs::directory_iterator(directory_, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("flow", 0) == 0 && name.find(".tmp.") != std::string::npos) remove_file(entry.path());
  }
}

void FlowCheckpoints::clear_previous_run() {
  remove_temporaries();
  for (const FlowStateFile& file : list_flow_states(directory_)) remove_file(file.path);
  std::error_code ec;
  for (const fs::directory_entry& entry : fs::directory_iterator(directory_, ec))
    if (snapshot_step(entry.path().filename().string(), series_) >= 0) remove_file(entry.path());
  for (const char* name : {"flow.pvd", "flow.vtu", "flow.json", "flow.png"}) remove_file(fs::path(directory_) / name);
}

FlowState FlowCheckpoints::resume() {
  const std::vector<FlowStateFile> states = list_flow_states(directory_);
  SS_REQUIRE(!states.empty(), "--restart: no checkpoint (flow_NNNNNN.state) in '" << directory_ << "' to continue from");
  FlowState state = read_flow_state(states.back().path);
  SS_REQUIRE(state.step == states.back().step,
             states.back().path << ": holds step " << state.step << ", its name says " << states.back().step);
  remove_temporaries();
  std::error_code ec;
  for (const fs::directory_entry& entry : fs::directory_iterator(directory_, ec))
    if (snapshot_step(entry.path().filename().string(), series_) > state.step) remove_file(entry.path());
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
  write_flow_state((fs::path(directory_) / flow_state_name(state.step)).string(), state);
  series_.add_written(state.step, state.time);
}

}  // namespace ss
