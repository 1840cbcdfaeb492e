#include "run/flow_histories.hpp"

#include <cstdio>
#include <filesystem>

namespace ss {

FlowHeatHistory::FlowHeatHistory(const std::string& directory)
    : csv_((std::filesystem::path(directory) / "heat.csv").string(), "step,time,group,heat,area,heat_flux,nusselt") {}

void FlowHeatHistory::write(const FlowState& state, const std::vector<FlowGroupHeat>& heat) {
  for (const FlowGroupHeat& g : heat) {
    char values[160], nusselt[40] = "";
    std::snprintf(values, sizeof values, "%.9e,%.9e,%.9e", g.heat, g.area, g.heat_flux);
    if (g.nusselt) std::snprintf(nusselt, sizeof nusselt, "%.9e", *g.nusselt);
    char head[64];
    std::snprintf(head, sizeof head, "%d,%.9e,", state.step, state.time);
    csv_.add(head + g.group + "," + values + "," + nusselt);
  }
  csv_.write();
}

FlowEnergyHistory::FlowEnergyHistory(const std::string& directory)
    : csv_((std::filesystem::path(directory) / "energy.csv").string(),
           "step,time,dt,kinetic_energy,cell_kinetic_energy,max_divergence") {}

void FlowEnergyHistory::add(const FlowStepInfo& step) {
  char row[160];
  std::snprintf(row, sizeof row, "%d,%.12e,%.9e,%.12e,%.12e,%.3e", step.step, step.time, step.dt, step.kinetic_energy,
                step.cell_kinetic_energy, step.max_divergence);
  csv_.add(row);
}

}  // namespace ss
