#pragma once
// A flow run's files in its output directory: snapshots flow_NNNNNN.vtu (under MPI
// flow_NNNNNN.pvtu over one piece per rank) with the index flow.pvd, beside each snapshot the
// checkpoint flow_NNNNNN.state (postprocess/flow_state_file.hpp) that a restart continues from, and with
// [[force]] groups the history forces.csv (one row per group and output step). Every file is written atomically, the state after its VTU and force rows,
// so the last state is always the last complete output step.
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "run/outputs.hpp"
#include "mesh/load_mesh.hpp"
#include "postprocess/flow_fields.hpp"
#include "postprocess/flow_forces.hpp"
#include "postprocess/flow_state_file.hpp"

namespace ss {

// The force on each of the problem's [[force]] groups, as forces.csv rows
// "step,time,group,fx,fy,fz,fx_pressure,...,fz_viscous,cx,cy,cz" (coefficients empty without a reference).
std::vector<std::string> force_rows(const FlowForceMeter& meter, const FlowProblem& problem, const FlowState& state);
const char* force_csv_header();

// --restart: `state` must hold one flux per face and one pressure per cell of the mesh it continues
// on (another mesh or --refine is an error naming both sizes; callers check before the folder changes).
void require_checkpoint_fits(const FlowState& state, std::int64_t faces, std::int64_t cells, const std::string& directory);

class FlowCheckpoints {
public:
  // `forces`: write forces.csv (the problem has [[force]] groups).
  FlowCheckpoints(std::string directory, bool forces)
      : directory_(std::move(directory)), series_(directory_, "flow"), forces_(forces) {}

  // A fresh run: removes the snapshots, checkpoints, temporaries and final files (flow.vtu/json/png
  // under their default names) a previous run left here, so a later --restart cannot pick up a
  // checkpoint of another run and a failed run leaves no older result that looks like its own.
  void clear_previous_run();
  // --restart: the last checkpoint (an error when there is none); the series and forces.csv keep
  // what came up to it; the final files of the run it continues go (as for a fresh run); later snapshots (written before a kill, without their checkpoint), force
  // rows and temporaries go. `check` sees the checkpoint before anything in the folder changes (a
  // checkpoint this run cannot continue is an error that leaves the folder as it was).
  FlowState resume(const std::function<void(const FlowState&)>& check);
  // resume() in two steps, for a run that learns the mesh's size only after reading the checkpoint
  // (MPI: the checkpoint names the base level to partition at): last_checkpoint reads it and changes
  // nothing; continue_from(state) then does what resume does to the folder.
  FlowState last_checkpoint() const;
  void continue_from(const FlowState& state);
  // Snapshot, force rows, checkpoint, index — in that order.
  void write(const FlowState& state, const TetMesh& mesh, const FlowFields& fields,
             const std::vector<std::string>& forces);
  // The same for a snapshot whose pieces every rank wrote already (`pieces`: their file names): the
  // .pvtu over them, force rows, checkpoint, index.
  void write_pieces(const FlowState& state, const std::vector<std::string>& pieces,
                    const std::vector<std::string>& forces);
  // Force rows and the checkpoint alone (--no-vtu): restartable, no snapshot in the series.
  void write_checkpoint(const FlowState& state, const std::vector<std::string>& forces);

private:
  std::string directory_;
  TimeSeries series_;
  bool forces_ = false;
  std::vector<std::pair<int, std::string>> force_rows_;  // (step, row) of forces.csv
};

}  // namespace ss
