#include "util/atomic_file.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
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

void AtomicFile::commit() {
  out_.flush();
  SS_REQUIRE(out_.good(), "write to '" << path_ << "' failed (disk full?)");
  out_.close();
  SS_REQUIRE(!out_.fail(), "closing '" << path_ << "' failed");
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
