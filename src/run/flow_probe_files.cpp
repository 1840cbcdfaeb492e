#include "run/flow_probe_files.hpp"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "util/atomic_file.hpp"
#include "util/error.hpp"

namespace ss {

namespace fs = std::filesystem;

namespace {

std::string header(const std::vector<std::string>& columns) {
  std::string text = "time";
  for (const std::string& c : columns) text += "," + c;
  return text;
}

}  // namespace

FlowProbeFiles::FlowProbeFiles(std::string directory, std::vector<FlowProbeSpec> specs)
    : directory_(std::move(directory)), specs_(std::move(specs)), rows_(specs_.size()) {}

std::string FlowProbeFiles::path(size_t probe) const {
  return (fs::path(directory_) / "probes" / (specs_[probe].name + ".csv")).string();
}

void FlowProbeFiles::clear_previous_run() const {
  for (size_t i = 0; i < specs_.size(); ++i) {
    std::error_code ec;
    fs::remove(path(i), ec);
  }
}

void FlowProbeFiles::continue_from(double time) {
  for (size_t i = 0; i < specs_.size(); ++i) {
    rows_[i].clear();
    std::ifstream in(path(i));
    std::string row;
    if (!std::getline(in, row)) continue;  // no file yet: the run it continues had no such probe
    SS_REQUIRE(row == header(probe_columns(specs_[i])),
               "--restart: " << path(i) << " has other columns than probe '" << specs_[i].name
                             << "' of the case (its points or fields changed); remove the file to start it afresh");
    while (std::getline(in, row)) {
      const double t = std::strtod(row.c_str(), nullptr);
      if (t <= time) rows_[i].emplace_back(t, row);
    }
  }
}

void FlowProbeFiles::write(double time, const ProbeSamples& samples) {
  SS_REQUIRE(samples.size() == specs_.size(), "probes: " << samples.size() << " sampled of " << specs_.size());
  if (specs_.size() == 0) return;
  fs::create_directories(fs::path(directory_) / "probes");
  for (size_t i = 0; i < specs_.size(); ++i) {
    if (rows_[i].empty() || rows_[i].back().first != time) {
      char number[40];
      std::snprintf(number, sizeof number, "%.17g", time);
      std::string row = number;
      for (double v : samples[i]) {
        std::snprintf(number, sizeof number, ",%.9e", v);
        row += number;
      }
      rows_[i].emplace_back(time, row);
    }
    std::string text = header(probe_columns(specs_[i])) + "\n";
    for (const auto& [t, row] : rows_[i]) text += row + "\n";
    write_file_atomically(path(i), text);
  }
}

nlohmann::json FlowProbeFiles::summary(const ProbeSamples& samples) const {
  nlohmann::json all = nlohmann::json::object();
  for (size_t i = 0; i < specs_.size(); ++i) {
    const FlowProbeSpec& s = specs_[i];
    nlohmann::json points = nlohmann::json::array(), values = nlohmann::json::object();
    for (const glm::dvec3& x : s.points) points.push_back({x.x, x.y, x.z});
    const std::vector<std::string> columns = probe_columns(s);
    const std::vector<double>& v = samples[i];
    for (size_t k = 0; k < columns.size(); ++k) values[columns[k]] = v[k];
    all[s.name] = {{"file", "probes/" + s.name + ".csv"}, {"points", points}, {"values", values}};
  }
  return all;
}

}  // namespace ss
