#include "util/atomic_file.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "util/error.hpp"

namespace ss {

AtomicFile::AtomicFile(std::string path)
    : path_(std::move(path)), temp_path_(path_ + ".tmp." + std::to_string(::getpid())) {
  out_.open(temp_path_, std::ios::binary | std::ios::trunc);
  SS_REQUIRE(out_.is_open(), "cannot open '" << path_ << "' for writing: " << std::strerror(errno));
}

AtomicFile::~AtomicFile() {
  if (!committed_) {
    out_.close();
    std::remove(temp_path_.c_str());
  }
}

// Why a write to `temp_path` failed. The stream keeps no errno, so the two common causes are checked
// directly (the file reached the size limit; the file system has no block left), then errno.
static std::string write_failure_reason(const std::string& temp_path, int saved_errno) {
  struct stat st{};
  rlimit fsize{};
  if (::stat(temp_path.c_str(), &st) == 0 && getrlimit(RLIMIT_FSIZE, &fsize) == 0 && fsize.rlim_cur != RLIM_INFINITY &&
      static_cast<rlim_t>(st.st_size) + 65536 >= fsize.rlim_cur)
    return "the file reached the file-size limit of " + std::to_string(fsize.rlim_cur) + " bytes (ulimit -f)";
  struct statvfs fs{};
  const std::string dir = temp_path.substr(0, temp_path.find_last_of('/') + 1);
  if (::statvfs(dir.empty() ? "." : dir.c_str(), &fs) == 0 && fs.f_bavail == 0)
    return "no space left on the file system";
  return saved_errno ? std::strerror(saved_errno) : "I/O error";
}

void AtomicFile::commit() {
  out_.flush();
  SS_REQUIRE(out_.good(), "write to '" << path_ << "' failed: " << write_failure_reason(temp_path_, errno)
                                       << "; nothing was written under that name");
  out_.close();
  SS_REQUIRE(!out_.fail(), "closing '" << path_ << "' failed: " << write_failure_reason(temp_path_, errno)
                                         << "; nothing was written under that name");
  SS_REQUIRE(std::rename(temp_path_.c_str(), path_.c_str()) == 0,
             "cannot rename '" << temp_path_ << "' to '" << path_ << "': " << std::strerror(errno));
  committed_ = true;
}

void write_file_atomically(const std::string& path, const std::string& text) {
  AtomicFile file(path);
  file.stream() << text;
  file.commit();
}

}  // namespace ss
