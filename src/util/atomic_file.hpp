#pragma once
// Output files are written under a temporary name next to the target and renamed when complete,
// so a crash or an error never leaves a truncated file under the final name.
#include <fstream>
#include <string>

namespace ss {

class AtomicFile {
public:
  // Opens `<path>.tmp.<pid>` for binary writing; throws ss::Error if it cannot.
  explicit AtomicFile(std::string path);
  // Removes the temporary if commit() was never called.
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  std::ostream& stream() { return out_; }
  // Flushes, closes and renames the temporary onto the final path; throws on any I/O failure.
  void commit();

private:
  std::string path_;
  std::string temp_path_;
  std::ofstream out_;
  bool committed_ = false;
};

// Writes `text` to `path` atomically.
void write_file_atomically(const std::string& path, const std::string& text);

}  // namespace ss
