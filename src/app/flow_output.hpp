#pragma once
// The flow command's files in its output directory: snapshots flow_NNNNNN.vtu with the index
// flow.pvd, and beside each snapshot the checkpoint flow_NNNNNN.state (physics/flow_state_file.hpp)
// that --restart continues from. Every file is written atomically, the state after its VTU, so the
// last state is always the last complete output step.
#include <string>

#include "app/solve_command.hpp"
#include "mesh/load_mesh.hpp"
#include "physics/flow_fields.hpp"
#include "physics/flow_state_file.hpp"

namespace ss {

class FlowCheckpoints {
public:
  explicit FlowCheckpoints(std::string directory) : directory_(std::move(directory)), series_(directory_, "flow") {}

  // A fresh run: removes the snapshots, checkpoints, temporaries and final files (flow.vtu/json/png
  // under their default names) a previous run left here, so a later --restart cannot pick up a
  // checkpoint of another run and a failed run leaves no older result that looks like its own.
  void clear_previous_run();
  // --restart: the last checkpoint (an error when there is none); the series keeps the snapshots up
  // to it; later snapshots (written before a kill, without their checkpoint) and temporaries go.
  FlowState resume();
  // Snapshot, checkpoint, index — in that order.
  void write(const FlowState& state, const LoadedMesh& mesh, const FlowFields& fields);
  // The checkpoint alone (--no-vtu): restartable, no snapshot in the series.
  void write_checkpoint(const FlowState& state);

private:
  std::string directory_;
  TimeSeries series_;
};

}  // namespace ss
