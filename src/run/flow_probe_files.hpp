#pragma once
// A flow run's probe histories: probes/<name>.csv in the output directory, header
// "time,<column>..." (postprocess/flow_probes.hpp names the columns), one row per output step and one
// for the end (unless the last output step was the end). Every write rewrites the file atomically,
// before the step's checkpoint, so a restart finds the rows of every checkpoint and keeps those up
// to the one it continues from.
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "postprocess/flow_fields.hpp"
#include "postprocess/flow_probes.hpp"

namespace ss {

// The values of every probe (FlowProbes::sample_all, or gathered from the MPI ranks), per probe
// those of its columns.
using ProbeSamples = std::vector<std::vector<double>>;

class FlowProbeFiles {
public:
  FlowProbeFiles(std::string directory, std::vector<FlowProbeSpec> specs);

  // A fresh run: removes the probe files of this case's probes a previous run left.
  void clear_previous_run() const;
  // --restart: reads the rows up to `time` (the checkpoint's; later rows go at the next write),
  // changing nothing. A file whose header is not this probe's columns is an error (the case changed).
  void continue_from(double time);
  // Appends the row of `time` to every probe (none when the last row has this time) and rewrites the files.
  void write(double time, const ProbeSamples& samples);
  // flow.json "probes": per probe its file, points and the sampled values by column.
  nlohmann::json summary(const ProbeSamples& samples) const;
  size_t size() const { return specs_.size(); }

private:
  std::string path(size_t probe) const;
  std::string directory_;
  std::vector<FlowProbeSpec> specs_;
  std::vector<std::vector<std::pair<double, std::string>>> rows_;  // per probe: (time, row)
};

}  // namespace ss
