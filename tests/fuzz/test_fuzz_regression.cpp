// fuzz_regression: every fuzz target's seeds (seeds.txt and seeds/<target>/) and every input that
// ever made a target fail (regressions/<target>/) go through the target's entry function again.
// A crash, a sanitizer report (sanitizer builds), an exception other than ss::Error, or an input
// its target rejects (a seed filed under the wrong target) fails the test.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "fuzz_entries.hpp"

namespace fs = std::filesystem;

namespace {

const fs::path kFuzzDir = SS_FUZZ_DIR;
const fs::path kSourceDir = SS_SOURCE_DIR;

std::vector<fs::path> files_in(const fs::path& dir) {
  std::vector<fs::path> out;
  if (fs::is_directory(dir))
    for (const auto& e : fs::directory_iterator(dir))
      if (e.is_regular_file() && e.path().filename().string()[0] != '.') out.push_back(e.path());
  return out;
}

std::vector<fs::path> seed_list(const std::string& target) {
  std::vector<fs::path> out;
  std::ifstream in(kFuzzDir / "seeds.txt");
  EXPECT_TRUE(in) << "cannot read " << (kFuzzDir / "seeds.txt");
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::string name, path;
    if (!(words >> name >> path) || name[0] == '#') continue;
    if (name == target) out.push_back(kSourceDir / path);
  }
  return out;
}

class FuzzRegression : public testing::TestWithParam<ss::fuzz::Target> {};

TEST_P(FuzzRegression, ReplaysSeedsAndCrashers) {
  const ss::fuzz::Target target = GetParam();
  std::vector<fs::path> inputs = seed_list(target.name);
  const std::size_t listed = inputs.size();
  for (const char* dir : {"seeds", "regressions"})
    for (const fs::path& p : files_in(kFuzzDir / dir / target.name)) inputs.push_back(p);
  EXPECT_GT(inputs.size(), listed) << "no seeds under tests/fuzz/seeds/" << target.name;
  for (const fs::path& path : inputs) {
    SCOPED_TRACE(path.string());
    std::ifstream in(path, std::ios::binary);
    ASSERT_TRUE(in) << "cannot read " << path;
    const std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const auto* data = reinterpret_cast<const std::uint8_t*>(bytes.data());
    EXPECT_EQ(target.entry(data, bytes.size()), 0) << path << " is not an input of the " << target.name << " target";
  }
}

INSTANTIATE_TEST_SUITE_P(Targets, FuzzRegression, testing::ValuesIn(ss::fuzz::kTargets),
                         [](const testing::TestParamInfo<ss::fuzz::Target>& info) { return std::string(info.param.name); });

}  // namespace
