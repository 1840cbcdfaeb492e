#pragma once
// What the runs (heat, flow) share above the physics: the output folder and file names, the device
// line of the JSON summary, progress throttling on stderr, stage timings, and VTU time series with
// their PVD index.
#include <chrono>
#include <cstdio>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "kernels/gpu_backend.hpp"
#include "kernels/launch_choice.hpp"
#include "mesh/load_mesh.hpp"
#include "mesh/vtu.hpp"
#include "run/run_options.hpp"
#include "util/progress_throttle.hpp"

namespace ss {

// `out_option` if given, else the case file's output directory; created (an error names it when it cannot be).
std::string prepare_output_directory(const std::string& out_option, const std::string& case_directory);
// Removes `path` if it is there; an error names it when it cannot be removed.
void remove_left_file(const std::string& path);
// `option` if given, else <out_dir>/<default_name>.
std::string output_path(const std::string& option, const std::string& out_dir, const std::string& default_name);

// summary["backend"], ["device"] and, for the GPU, ["launch"] (the resolved path: "fragment" or
// "compute") and ["launch_choice"] (what was asked and why this path: launch_choice_json).
void describe_backend(nlohmann::json& summary, const std::string& backend, const std::string& device,
                      const std::optional<LaunchChoice>& launch);

// The launch path of a run's GPU backend on `context`: o.gpu, or with o.launch_auto the device's
// own choice (its -v line on stderr with o.gl.verbose). Every MPI rank resolves for its own device.
LaunchChoice resolve_run_launch(const GlContext& context, const RunOptions& o);

// CG progress on stderr at most four times a second (over all solves of a run):
// "streamsolve: LABEL: CG iteration K, relative residual R, S s".
class CgProgressPrinter {
public:
  explicit CgProgressPrinter(std::string label) : label_(std::move(label)) {}
  void operator()(int iteration, double residual, double seconds) {
    if (!throttle_.due(false)) return;
    std::fprintf(stderr, "streamsolve: %s: CG iteration %d, relative residual %.3e, %.2f s\n", label_.c_str(), iteration,
                 residual, seconds);
  }

private:
  std::string label_;
  ProgressThrottle throttle_;
};

// Where a run's wall time went, stage by stage in run order (read, refine, ..., solve, write), and
// its peak host memory: the JSON's "timings" and "peak_host_memory_bytes", printed with -v.
class StageTimings {
public:
  using Clock = std::chrono::steady_clock;
  static Clock::time_point now() { return Clock::now(); }
  // Adds `seconds` to `stage` (a stage met again accumulates).
  void add(const std::string& stage, double seconds);
  void add_since(const std::string& stage, Clock::time_point start) {
    add(stage, std::chrono::duration<double>(now() - start).count());
  }
  // {"read": s, ..., "total": wall seconds since this object was made}
  nlohmann::json json() const;
  // One line on stderr: "streamsolve: NAME: timings read 0.12 s, ..., total 3.4 s; peak host memory 812 MB".
  void print(const std::string& name) const;

private:
  std::vector<std::pair<std::string, double>> stages_;
  Clock::time_point start_ = now();
};

// The mesh stages of a load (read, validate, refine, renumber, topology, geometry: the finest
// level's) into `timings`. For a multigrid hierarchy (`hierarchy`), what they leave of the load's
// wall time `load_seconds` (the coarser levels' renumbering, topology and geometry, the level maps)
// goes to "coarse_levels".
void add_mesh_timings(StageTimings& timings, const LoadReport& report, double load_seconds, bool hierarchy);

// <dir>/<prefix>_NNNNNN.vtu snapshots and <dir>/<prefix>.pvd listing them, all written atomically.
// Under MPI a snapshot may be a .pvtu over one piece per rank, "<prefix>_NNNNNN_piece_<rank>.vtu".
class TimeSeries {
public:
  TimeSeries(std::string directory, std::string prefix) : directory_(std::move(directory)), prefix_(std::move(prefix)) {}
  std::string snapshot_stem(int step) const;  // "<prefix>_000120"
  std::string snapshot_name(int step) const;  // "<prefix>_000120.vtu"
  std::string path(const std::string& name) const;
  // Writes the snapshot of `step`, then the index with it.
  void add(int step, double time, const TetMesh& mesh, const std::vector<VtuArray>& point_data,
           const std::vector<VtuArray>& cell_data);
  // Records a snapshot written elsewhere (its .vtu, or `name`: a .pvtu), then the index with it.
  void add_written(int step, double time);
  void add_written(double time, const std::string& name);
  // Writes "<prefix>_NNNNNN.pvtu" over `pieces` (written already; arrays: their names and types),
  // then the index with it.
  void add_pieces(int step, double time, const std::vector<std::string>& pieces, const std::vector<VtuArray>& point_data,
                  const std::vector<VtuArray>& cell_data);
  // Entries a previous run wrote (restart); the index is written with the next add.
  void keep(std::vector<PvdEntry> entries) { entries_ = std::move(entries); }
  // Step of a snapshot file "<prefix>_NNNNNN.vtu" (or ".pvtu", or a piece "_piece_<rank>.vtu"), or -1.
  int snapshot_step(const std::string& name) const;
  // Removes what a previous run left: `finals` (default-named summary and fields, in that order: the
  // summary goes first so a run killed meanwhile never leaves one describing files that are gone),
  // the index, then the snapshots (and the pieces of snapshots and of `finals` ending in .pvtu) and
  // temporaries "<prefix>*.tmp.*". An error names a file that stays.
  void remove_previous_run(const std::vector<std::string>& finals) const;
  // Removes `finals` and, for those ending in .pvtu, their pieces.
  void remove_finals(const std::vector<std::string>& finals) const;
  // Removes the temporaries "<any final name>.tmp.<pid>" that killed runs left in the folder.
  void remove_temporaries() const;

private:
  std::string directory_, prefix_;
  std::vector<PvdEntry> entries_;
};

}  // namespace ss
