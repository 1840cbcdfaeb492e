#pragma once
// A fresh folder under the system's temporary directory for one test, removed with everything in it
// when the test ends.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <system_error>

#include <unistd.h>

namespace ss::test {

class TempFolder {
public:
  explicit TempFolder(const std::string& prefix = "ss_test") {
    std::string pattern = (std::filesystem::temp_directory_path() / (prefix + "_XXXXXX")).string();
    EXPECT_NE(mkdtemp(pattern.data()), nullptr) << "cannot make a temporary folder";
    path_ = pattern;
  }
  ~TempFolder() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempFolder(const TempFolder&) = delete;
  TempFolder& operator=(const TempFolder&) = delete;
  std::string path() const { return path_; }

private:
  std::string path_;
};

}  // namespace ss::test
