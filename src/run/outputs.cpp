#include "run/outputs.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "parallel/piece_files.hpp"
#include "util/error.hpp"
#include "util/host_memory.hpp"

namespace ss {

namespace fs = std::filesystem;

namespace {

// "<stem>_piece_<rank>.vtu" (a piece of "<stem>.pvtu")?
bool is_piece_of(const std::string& name, const std::string& stem) {
  int rank = -1, consumed = 0;
  return name.compare(0, stem.size(), stem) == 0 &&
         std::sscanf(name.c_str() + stem.size(), "_piece_%d.vtu%n", &rank, &consumed) == 1 && rank >= 0 &&
         name == piece_name(stem, rank);
}

}  // namespace

std::string prepare_output_directory(const std::string& out_option, const std::string& case_directory) {
  const std::string dir = out_option.empty() ? case_directory : out_option;
  std::error_code ec;
  fs::create_directories(dir, ec);
  SS_REQUIRE(!ec, "cannot create output directory '" << dir << "': " << ec.message());
  return dir;
}

std::string output_path(const std::string& option, const std::string& out_dir, const std::string& default_name) {
  return option.empty() ? (fs::path(out_dir) / default_name).string() : option;
}

void describe_backend(nlohmann::json& summary, const std::string& backend, const std::string& device,
                      const std::optional<LaunchChoice>& launch) {
  summary["backend"] = backend;
  summary["device"] = device;
  if (backend == "gpu") {
    SS_REQUIRE(launch, "a GPU run's summary without its launch path");
    summary["launch"] = to_string(launch->path());
    summary["launch_choice"] = launch_choice_json(*launch);
  }
}

LaunchChoice resolve_run_launch(const GlContext& context, const RunOptions& o) {
  return resolve_launch(context, o.gpu, o.launch_auto, launch_settings_from_environment(o.gl.verbose));
}

void StageTimings::add(const std::string& stage, double seconds) {
  for (auto& [name, total] : stages_)
    if (name == stage) {
      total += seconds;
      return;
    }
  stages_.emplace_back(stage, seconds);
}

nlohmann::json StageTimings::json() const {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [name, seconds] : stages_) j[name] = seconds;
  j["total"] = std::chrono::duration<double>(now() - start_).count();
  return j;
}

void StageTimings::print(const std::string& name) const {
  std::string line;
  for (const auto& [stage, seconds] : stages_) {
    char part[96];
    std::snprintf(part, sizeof part, "%s%s %.3f s", line.empty() ? "" : ", ", stage.c_str(), seconds);
    line += part;
  }
  std::fprintf(stderr, "streamsolve: %s: timings %s, total %.3f s; peak host memory %lld MB\n", name.c_str(), line.c_str(),
               std::chrono::duration<double>(now() - start_).count(),
               static_cast<long long>(peak_host_memory_bytes() >> 20));
}

void add_mesh_timings(StageTimings& timings, const LoadReport& report, double load_seconds, bool hierarchy) {
  const std::pair<const char*, double> stages[] = {{"read", report.read_seconds},         {"validate", report.validate_seconds},
                                                   {"refine", report.refine_seconds},     {"renumber", report.renumber_seconds},
                                                   {"topology", report.topology_seconds}, {"geometry", report.geometry_seconds}};
  double listed = 0;
  for (const auto& [stage, seconds] : stages) {
    timings.add(stage, seconds);
    listed += seconds;
  }
  if (hierarchy) timings.add("coarse_levels", std::max(0.0, load_seconds - listed));
}

std::string TimeSeries::snapshot_stem(int step) const {
  char number[16];
  std::snprintf(number, sizeof number, "_%06d", step);
  return prefix_ + number;
}

std::string TimeSeries::snapshot_name(int step) const { return snapshot_stem(step) + ".vtu"; }

std::string TimeSeries::path(const std::string& name) const { return (fs::path(directory_) / name).string(); }

void TimeSeries::add(int step, double time, const TetMesh& mesh, const std::vector<VtuArray>& point_data,
                     const std::vector<VtuArray>& cell_data) {
  write_vtu(path(snapshot_name(step)), mesh, point_data, cell_data);
  add_written(step, time);
}

void TimeSeries::add_pieces(int step, double time, const std::vector<std::string>& pieces,
                            const std::vector<VtuArray>& point_data, const std::vector<VtuArray>& cell_data) {
  const std::string name = snapshot_stem(step) + ".pvtu";
  write_pvtu(path(name), pieces, point_data, cell_data);
  add_written(time, name);
}

void TimeSeries::add_written(int step, double time) { add_written(time, snapshot_name(step)); }

void TimeSeries::add_written(double time, const std::string& name) {
  entries_.push_back({time, name});
  write_pvd(path(prefix_ + ".pvd"), entries_);
}

int TimeSeries::snapshot_step(const std::string& name) const {
  int step = -1, consumed = 0;
  if (std::sscanf(name.c_str(), (prefix_ + "_%d%n").c_str(), &step, &consumed) != 1 || step < 0) return -1;
  const std::string stem = snapshot_stem(step);
  if (name.compare(0, stem.size(), stem) != 0) return -1;
  const std::string rest = name.substr(stem.size());
  return rest == ".vtu" || rest == ".pvtu" || is_piece_of(name, stem) ? step : -1;
}

void remove_left_file(const std::string& path) {
  std::error_code ec;
  fs::remove(path, ec);
  SS_REQUIRE(!ec, "cannot remove '" << path << "' left by a previous run: " << ec.message());
}

// AtomicFile's temporaries are "<final name>.tmp.<pid>": any in the output folder is a killed run's,
// whichever file it was writing (the series, flow.json, energy.csv, forces.csv, heat.csv).
static bool is_atomic_temporary(const std::string& name) {
  const size_t at = name.rfind(".tmp.");
  if (at == std::string::npos || at + 5 == name.size()) return false;
  return std::all_of(name.begin() + std::ptrdiff_t(at + 5), name.end(), [](char c) { return c >= '0' && c <= '9'; });
}

void TimeSeries::remove_temporaries() const {
  std::error_code ec;
  for (const fs::directory_entry& entry : fs::directory_iterator(directory_, ec))
    if (is_atomic_temporary(entry.path().filename().string())) remove_left_file(entry.path().string());
}

void TimeSeries::remove_finals(const std::vector<std::string>& finals) const {
  for (const std::string& name : finals) remove_left_file(path(name));
  std::error_code ec;
  for (const fs::directory_entry& entry : fs::directory_iterator(directory_, ec)) {
    const std::string name = entry.path().filename().string();
    for (const std::string& final_name : finals)  // the pieces of a final .pvtu
      if (final_name.size() > 5 && final_name.compare(final_name.size() - 5, 5, ".pvtu") == 0 &&
          is_piece_of(name, final_name.substr(0, final_name.size() - 5)))
        remove_left_file(entry.path().string());
  }
}

void TimeSeries::remove_previous_run(const std::vector<std::string>& finals) const {
  remove_finals(finals);
  remove_left_file(path(prefix_ + ".pvd"));
  std::error_code ec;
  for (const fs::directory_entry& entry : fs::directory_iterator(directory_, ec))
    if (snapshot_step(entry.path().filename().string()) >= 0) remove_left_file(entry.path().string());
  remove_temporaries();
}

}  // namespace ss
