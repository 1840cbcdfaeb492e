#include "run/flow_checkpoints.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "util/atomic_file.hpp"
#include "util/error.hpp"

namespace ss {

namespace fs = std::filesystem;

namespace {

const char* const forces_file = "forces.csv";

// The final files under their default names, the summary first (TimeSeries::remove_previous_run).
const std::vector<std::string> final_files = {"flow.json", "flow.png", "flow.vtu", "flow.pvtu"};

std::string csv_vector(const glm::dvec3& v) {
  char text[96];
  std::snprintf(text, sizeof text, "%.9e,%.9e,%.9e", v.x, v.y, v.z);
  return text;
}

}  // namespace

const char* force_csv_header() {
  return "step,time,group,fx,fy,fz,fx_pressure,fy_pressure,fz_pressure,fx_viscous,fy_viscous,fz_viscous,cx,cy,cz";
}

std::vector<std::string> force_rows(const FlowForceMeter& meter, const FlowProblem& problem, const FlowState& state) {
  std::vector<std::string> rows;
  const std::vector<FlowForce> forces = meter.forces(state);
  for (size_t i = 0; i < forces.size(); ++i) {
    const FlowForceGroup& g = problem.forces[i];
    const FlowForce& f = forces[i];
    char head[64];
    std::snprintf(head, sizeof head, "%d,%.9e,", state.step, state.time);
    rows.push_back(head + g.label + "," + csv_vector(f.total()) + "," + csv_vector(f.pressure) + "," +
                   csv_vector(f.viscous) + "," +
                   (g.has_coefficients() ? csv_vector(force_coefficients(g, f.total())) : std::string(",,")));
  }
  return rows;
}

void FlowCheckpoints::clear_previous_run() {
  std::vector<std::string> finals = final_files;
  finals.push_back(forces_file);
  series_.remove_previous_run(finals);
  for (const FlowStateFile& file : list_flow_states(directory_)) remove_left_file(file.path);
}

void require_checkpoint_fits(const FlowState& state, std::int64_t faces, std::int64_t cells, const std::string& directory) {
  const auto fits = [&](const std::vector<double>& v) { return v.empty() || std::int64_t(v.size()) == faces; };
  const bool previous_fits = fits(state.previous_flux) && fits(state.previous_convection);
  SS_REQUIRE(std::int64_t(state.flux.size()) == faces && std::int64_t(state.pressure.size()) == cells && previous_fits,
             "--restart: the checkpoint of step " << state.step << " in '" << directory << "' has " << state.flux.size()
                 << " faces and " << state.pressure.size() << " cells, this mesh " << faces << " and " << cells
                 << " (another mesh or --refine?)");
}

FlowState FlowCheckpoints::resume(const std::function<void(const FlowState&)>& check) {
  FlowState state = last_checkpoint();
  check(state);
  continue_from(state);
  return state;
}

FlowState FlowCheckpoints::last_checkpoint() const {
  const std::vector<FlowStateFile> states = list_flow_states(directory_);
  SS_REQUIRE(!states.empty(), "--restart: no checkpoint (flow_NNNNNN.state) in '" << directory_ << "' to continue from");
  FlowState state = read_flow_state(states.back().path);
  SS_REQUIRE(state.step == states.back().step,
             states.back().path << ": holds step " << state.step << ", its name says " << states.back().step);
  return state;
}

void FlowCheckpoints::continue_from(const FlowState& state) {
  const std::vector<FlowStateFile> states = list_flow_states(directory_);
  series_.remove_temporaries();
  series_.remove_finals(final_files);  // forces.csv is rewritten below
  std::error_code ec;
  for (const fs::directory_entry& entry : fs::directory_iterator(directory_, ec))
    if (series_.snapshot_step(entry.path().filename().string()) > state.step) remove_left_file(entry.path().string());
  std::vector<PvdEntry> entries;
  for (const FlowStateFile& file : states)
    for (const std::string& name : {series_.snapshot_name(file.step), series_.snapshot_stem(file.step) + ".pvtu"})
      if (fs::exists(series_.path(name))) entries.push_back({read_flow_state_header(file.path).time, name});
  series_.keep(std::move(entries));
  // The force rows up to the checkpoint (a run without [[force]] groups leaves the file alone).
  std::ifstream forces((fs::path(directory_) / forces_file).string());
  std::string row;
  if (forces_ && std::getline(forces, row))
    while (std::getline(forces, row)) {
      const int step = std::atoi(row.c_str());
      if (step <= state.step) force_rows_.emplace_back(step, row);
    }
}

void FlowCheckpoints::write(const FlowState& state, const TetMesh& mesh, const FlowFields& fields,
                            const std::vector<std::string>& forces) {
  write_flow_vtu(series_.path(series_.snapshot_name(state.step)), mesh, fields);
  write_checkpoint(state, forces);
  series_.add_written(state.step, state.time);
}

void FlowCheckpoints::write_pieces(const FlowState& state, const std::vector<std::string>& pieces,
                                   const std::vector<std::string>& forces) {
  const std::string name = series_.snapshot_stem(state.step) + ".pvtu";
  write_flow_pvtu(series_.path(name), pieces);
  write_checkpoint(state, forces);
  series_.add_written(state.time, name);
}

void FlowCheckpoints::write_checkpoint(const FlowState& state, const std::vector<std::string>& forces) {
  if (forces_) {
    for (const std::string& row : forces) force_rows_.emplace_back(state.step, row);
    std::string text = std::string(force_csv_header()) + "\n";
    for (const auto& [step, row] : force_rows_) text += row + "\n";
    write_file_atomically((fs::path(directory_) / forces_file).string(), text);
  }
  write_flow_state((fs::path(directory_) / flow_state_name(state.step)).string(), state);
}

}  // namespace ss
