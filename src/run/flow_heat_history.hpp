#pragma once
// heat.csv of a [heat] flow run: each thermal group's heat at every output step (one row per group
// and step, postprocess/flow_heat_flux.hpp), rewritten atomically before each checkpoint so that a
// restart finds the rows up to it — the shape of forces.csv.
//   step,time,group,heat,area,heat_flux,nusselt      (nusselt empty without the [heat] references)
#include <string>
#include <utility>
#include <vector>

#include "postprocess/flow_heat_flux.hpp"

namespace ss {

class FlowHeatHistory {
public:
  explicit FlowHeatHistory(std::string directory) : directory_(std::move(directory)) {}
  // A fresh run: the previous run's heat.csv goes.
  void clear_previous_run();
  // --restart from the checkpoint of `step`: the rows up to it are kept.
  void continue_from(int step);
  // Adds the state's rows and rewrites the file.
  void write(const FlowState& state, const std::vector<FlowGroupHeat>& heat);

private:
  std::string path() const;
  std::string directory_;
  std::vector<std::string> rows_;
};

}  // namespace ss
