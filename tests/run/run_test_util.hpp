#pragma once
// What the run-layer tests share: a fresh folder per test for its case files and outputs, reading
// back what a run wrote, matching nodes or cells of two runs by position, and MPI finalised at exit
// (a distributed run initialises MPI on one rank itself).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include <glm/vec3.hpp>
#include <nlohmann/json.hpp>

#include "parallel/mpi_env.hpp"

namespace ss::test {

namespace fs = std::filesystem;

// <build>/test_output/run/<suite>.<test>, emptied.
inline std::string fresh_test_dir() {
  const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
  const fs::path dir = fs::path(SS_BINARY_DIR) / "test_output" / "run" /
                       (std::string(info->test_suite_name()) + "." + info->name());
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir.string();
}

inline std::string write_text(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
  return path;
}

inline std::string project_file(const std::string& relative) { return std::string(SS_SOURCE_DIR) + "/" + relative; }

inline nlohmann::json read_json(const std::string& path) {
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << path;
  return nlohmann::json::parse(in);
}

inline bool non_empty_file(const std::string& path) {
  std::error_code ec;
  return fs::is_regular_file(path, ec) && fs::file_size(path, ec) > 0;
}

// The names of the files in `dir` (empty when it does not exist).
inline std::vector<std::string> files_in(const std::string& dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(dir, ec)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

// A point's key, rounded well below the mesh spacing (the same mesh made two ways has the same
// coordinates to the last bits; rounding absorbs a difference in the last one).
inline std::tuple<long long, long long, long long> position_key(const glm::dvec3& p) {
  return {std::llround(p.x * 1e9), std::llround(p.y * 1e9), std::llround(p.z * 1e9)};
}

// For each point of `b`, its index in `a` (-1 where `a` has none).
inline std::vector<int> match_points(const std::vector<glm::dvec3>& a, const std::vector<glm::dvec3>& b) {
  std::map<std::tuple<long long, long long, long long>, int> index;
  for (size_t i = 0; i < a.size(); ++i) index[position_key(a[i])] = int(i);
  std::vector<int> match;
  for (const glm::dvec3& p : b) {
    const auto it = index.find(position_key(p));
    match.push_back(it == index.end() ? -1 : it->second);
  }
  return match;
}

// Finalises MPI after the last test when a distributed run initialised it.
class MpiFinalizer : public ::testing::Environment {
public:
  void TearDown() override { ss::mpi::finalize(); }
};

}  // namespace ss::test
