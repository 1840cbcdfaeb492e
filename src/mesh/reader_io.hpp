#pragma once
// Internal helpers shared by the mesh readers: the whole file in memory, a line-oriented ASCII
// cursor that can switch to bulk binary reads, and error locations ("file:line" for text,
// "file: byte offset N" for binary files).
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ss::reader {

// Reads a whole file (transparently gunzipping a .gz stream). Throws ss::Error naming the path.
std::string load_file(const std::string& path);

// gzip magic (1f 8b) at the start of `data`.
bool is_gzip(std::string_view data);
// Decompresses one or more concatenated gzip members (bytes after the last member that are not a
// gzip member are ignored, as gzread does). A corrupt or truncated stream throws ss::Error
// "<name>: corrupt gzip stream (...)".
std::string gunzip_data(const std::string& name, std::string_view data);

// A mesh file in memory plus what is needed to say where something is in it.
struct Source {
  std::string name;        // the path as the user gave it
  std::string_view data;
  bool binary = false;     // locations as byte offsets instead of line numbers

  // "name:LINE" (text) or "name: byte offset N" (binary) for a position in data.
  std::string where(std::size_t offset) const;
};

class Cursor;

// One line of text; numbers are parsed in place (std::from_chars), errors name the line.
class Line {
public:
  // `cut_section` non-null: the line was cut off by the end of the file inside that section.
  Line(const Source& src, std::string_view text, std::size_t offset, const std::string* cut_section = nullptr)
      : src_(&src), text_(text), offset_(offset), cut_section_(cut_section) {}
  std::string_view text() const { return text_; }
  std::size_t offset() const { return offset_; }
  bool cut() const { return cut_section_ != nullptr; }  // the file ends inside this line
  bool starts_with(std::string_view s) const { return text_.substr(0, s.size()) == s; }

  bool at_end();                               // only whitespace left
  std::string_view word(const char* what);     // next whitespace-delimited token
  std::int64_t integer(const char* what);      // next token as an integer
  std::int32_t group(const char* what);        // an integer that names a group: |value| < 2^31
  double real(const char* what);               // next token as a finite-or-not double
  std::string quoted(const char* what);        // "a name" (or a bare word)
  void finish(const char* what);               // error if anything is left on the line

  [[noreturn]] void fail(const std::string& message) const;
  std::string where() const { return src_->where(offset_); }

private:
  void skip_space();
  const Source* src_;
  std::string_view text_;
  std::size_t offset_;
  const std::string* cut_section_;
  std::size_t pos_ = 0;
};

// Walks a Source. `section` names where we are ("$Nodes") for end-of-file messages.
class Cursor {
public:
  explicit Cursor(const Source& src) : src_(src) {}

  const Source& source() const { return src_; }
  std::size_t offset() const { return pos_; }
  bool at_end();                 // only whitespace left
  Line next_line();              // next non-blank line; error at end of file
  void set_section(std::string s) { section_ = std::move(s); }
  const std::string& section() const { return section_; }
  [[noreturn]] void fail_at(std::size_t offset, const std::string& message) const;
  [[noreturn]] void fail_eof(const std::string& expected) const;

  // Binary reads from the current position; `swap` reverses byte order of each value.
  bool swap = false;
  void read_bytes(void* dst, std::size_t bytes, const char* what);
  template <class T>
  T bin(const char* what) {
    T value;
    read_array(&value, 1, what);
    return value;
  }
  template <class T>
  void read_array(T* dst, std::size_t count, const char* what) {
    read_bytes(dst, count * sizeof(T), what);
    if (swap) swap_bytes(dst, count);
  }
  // Skip to just after the line that starts with `end_marker` (for sections we do not read).
  void skip_section(const std::string& end_marker);

  template <class T>
  static void swap_bytes(T* values, std::size_t count) {
    for (std::size_t i = 0; i < count; ++i) {
      unsigned char b[sizeof(T)];
      std::memcpy(b, &values[i], sizeof(T));
      for (std::size_t k = 0; k < sizeof(T) / 2; ++k) std::swap(b[k], b[sizeof(T) - 1 - k]);
      std::memcpy(&values[i], b, sizeof(T));
    }
  }

private:
  const Source& src_;
  std::size_t pos_ = 0;
  std::string section_;
};

}  // namespace ss::reader
