#pragma once
// A flow run's histories, one row per step or output step, written before each checkpoint.
//
// heat.csv of a [heat] flow run: each thermal group's heat at every output step (one row per group
// and step, postprocess/flow_heat_flux.hpp), rewritten atomically before each checkpoint so that a
// restart finds the rows up to it — the shape of forces.csv.
//   step,time,group,heat,area,heat_flux,nusselt      (nusselt empty without the [heat] references)
#include <string>
#include <vector>

#include "postprocess/flow_heat_flux.hpp"
#include "run/step_csv.hpp"

namespace ss {

class FlowHeatHistory {
public:
  explicit FlowHeatHistory(const std::string& directory);
  // A fresh run: the previous run's heat.csv goes.
  void clear_previous_run() { csv_.clear_previous_run(); }
  // --restart from the checkpoint of `step`: the rows up to it are kept.
  void continue_from(int step) { csv_.continue_from(step); }
  // Adds the state's rows and rewrites the file.
  void write(const FlowState& state, const std::vector<FlowGroupHeat>& heat);

private:
  StepCsv csv_;
};

// energy.csv of a flow run: the kinetic energies ½ Σ_f H_f U_f² and ½ Σ_c V_c |u_c|² (FlowStepInfo)
// and the largest divergence after every step (a decaying flow's dissipation rate is −dE/dt of its
// rows: tools/taylor_green.py), written at every output step and at the end.
//   step,time,dt,kinetic_energy,cell_kinetic_energy,max_divergence
class FlowEnergyHistory {
public:
  explicit FlowEnergyHistory(const std::string& directory);
  void clear_previous_run() { csv_.clear_previous_run(); }
  void continue_from(int step) { csv_.continue_from(step); }
  void add(const FlowStepInfo& step);
  void write() const { csv_.write(); }

private:
  StepCsv csv_;
};

}  // namespace ss
