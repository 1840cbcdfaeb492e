#include "run/flow_heat_history.hpp"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "run/outputs.hpp"
#include "util/atomic_file.hpp"

namespace ss {

namespace {
const char* const kHeader = "step,time,group,heat,area,heat_flux,nusselt";
}  // namespace

std::string FlowHeatHistory::path() const { return (std::filesystem::path(directory_) / "heat.csv").string(); }

void FlowHeatHistory::clear_previous_run() {
  remove_left_file(path());
  rows_.clear();
}

void FlowHeatHistory::continue_from(int step) {
  rows_.clear();
  std::ifstream in(path());
  std::string row;
  if (!std::getline(in, row)) return;
  while (std::getline(in, row))
    if (!row.empty() && std::atoi(row.c_str()) <= step) rows_.push_back(row);
}

void FlowHeatHistory::write(const FlowState& state, const std::vector<FlowGroupHeat>& heat) {
  for (const FlowGroupHeat& g : heat) {
    char values[160], nusselt[40] = "";
    std::snprintf(values, sizeof values, "%.9e,%.9e,%.9e", g.heat, g.area, g.heat_flux);
    if (g.nusselt) std::snprintf(nusselt, sizeof nusselt, "%.9e", *g.nusselt);
    char head[64];
    std::snprintf(head, sizeof head, "%d,%.9e,", state.step, state.time);
    rows_.push_back(head + g.group + "," + values + "," + nusselt);
  }
  std::string text = std::string(kHeader) + "\n";
  for (const std::string& row : rows_) text += row + "\n";
  write_file_atomically(path(), text);
}

}  // namespace ss
