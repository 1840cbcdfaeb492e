#include "mesh/reader_io.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <fstream>

#include <zlib.h>

#include "util/error.hpp"

namespace ss::reader {

namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v'; }

// Printable excerpt of a token for messages (binary garbage must not reach the terminal).
std::string excerpt(std::string_view s) {
  std::string out;
  for (char c : s.substr(0, 40)) out += (c >= 32 && c < 127) ? c : '?';
  if (s.size() > 40) out += "...";
  return out;
}

}  // namespace

std::string load_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) SS_THROW("cannot open mesh file '" << path << "': " << std::strerror(errno));
  in.seekg(0, std::ios::end);
  const std::streamoff size = in.tellg();
  if (size < 0) SS_THROW("cannot read mesh file '" << path << "'");
  in.seekg(0);
  std::string data(static_cast<std::size_t>(size), '\0');
  if (size > 0 && !in.read(data.data(), size)) SS_THROW("cannot read mesh file '" << path << "'");
  if (is_gzip(data)) return gunzip_data(path, data);
  return data;
}

bool is_gzip(std::string_view data) {
  return data.size() >= 2 && static_cast<unsigned char>(data[0]) == 0x1f && static_cast<unsigned char>(data[1]) == 0x8b;
}

std::string gunzip_data(const std::string& name, std::string_view data) {
  std::string out;
  std::size_t pos = 0;  // start of the next member
  while (is_gzip(data.substr(pos))) {
    z_stream zs{};
    if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK) SS_THROW(name << ": cannot start gzip decompression");
    std::size_t fed = pos;  // bytes of data handed to zlib so far
    char chunk[1 << 16];
    int rc = Z_OK;
    while (rc != Z_STREAM_END) {
      if (zs.avail_in == 0 && fed < data.size()) {  // avail_in is 32-bit: feed at most 1 GiB at a time
        const std::size_t n = std::min<std::size_t>(data.size() - fed, std::size_t{1} << 30);
        zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data() + fed));
        zs.avail_in = static_cast<uInt>(n);
        fed += n;
      }
      zs.next_out = reinterpret_cast<Bytef*>(chunk);
      zs.avail_out = sizeof chunk;
      rc = inflate(&zs, Z_NO_FLUSH);
      out.append(chunk, sizeof chunk - zs.avail_out);
      const bool starved = rc == Z_BUF_ERROR || (rc == Z_OK && zs.avail_in == 0 && fed == data.size() && zs.avail_out != 0);
      if (rc != Z_OK && rc != Z_STREAM_END && !starved) {
        const std::string msg = zs.msg ? zs.msg : "error " + std::to_string(rc);
        inflateEnd(&zs);
        SS_THROW(name << ": corrupt gzip stream (" << msg << ")");
      }
      if (starved) {
        inflateEnd(&zs);
        SS_THROW(name << ": corrupt gzip stream (unexpected end of file)");
      }
    }
    pos = fed - zs.avail_in;
    inflateEnd(&zs);
  }
  return out;
}

std::string Source::where(std::size_t offset) const {
  offset = std::min(offset, data.size());
  if (binary) return name + ": byte offset " + std::to_string(offset);
  const auto line = 1 + std::count(data.begin(), data.begin() + static_cast<std::ptrdiff_t>(offset), '\n');
  return name + ":" + std::to_string(line);
}

// ---- Line --------------------------------------------------------------------------------

void Line::skip_space() {
  while (pos_ < text_.size() && is_space(text_[pos_])) ++pos_;
}

bool Line::at_end() {
  skip_space();
  return pos_ >= text_.size();
}

std::string_view Line::word(const char* what) {
  skip_space();
  if (pos_ >= text_.size()) {
    if (cut_section_)
      SS_THROW(src_->where(src_->data.size()) << ": unexpected end of file"
                                              << (cut_section_->empty() ? "" : " inside " + *cut_section_)
                                              << " (expected " << what << "); the file is truncated");
    fail(std::string("line ends where ") + what + " was expected");
  }
  const std::size_t start = pos_;
  while (pos_ < text_.size() && !is_space(text_[pos_])) ++pos_;
  return text_.substr(start, pos_ - start);
}

std::int64_t Line::integer(const char* what) {
  const std::string_view tok = word(what);
  std::int64_t value = 0;
  const char* first = tok.data();
  if (!tok.empty() && tok[0] == '+') ++first;
  auto [ptr, ec] = std::from_chars(first, tok.data() + tok.size(), value);
  if (ec == std::errc::result_out_of_range)
    fail(std::string(what) + " '" + excerpt(tok) + "' is out of range");
  if (ec != std::errc() || ptr != tok.data() + tok.size())
    fail(std::string("expected ") + what + " (an integer), found '" + excerpt(tok) + "'");
  return value;
}

std::int32_t Line::group(const char* what) {
  const std::int64_t value = integer(what);
  if (value <= INT32_MIN || value > INT32_MAX)
    fail(std::string(what) + " " + std::to_string(value) + " is out of range (group numbers are 32-bit)");
  return static_cast<std::int32_t>(value);
}

double Line::real(const char* what) {
  const std::string_view tok = word(what);
  double value = 0;
  const char* first = tok.data();
  if (!tok.empty() && tok[0] == '+') ++first;
  auto [ptr, ec] = std::from_chars(first, tok.data() + tok.size(), value);
  // Out of range (e.g. 1e999) is reported as not finite by the caller's check; accept it here.
  if (ec == std::errc::result_out_of_range) return tok[0] == '-' ? -HUGE_VAL : HUGE_VAL;
  if (ec != std::errc() || ptr != tok.data() + tok.size())
    fail(std::string("expected ") + what + " (a number), found '" + excerpt(tok) + "'");
  return value;
}

std::string Line::quoted(const char* what) {
  skip_space();
  if (pos_ < text_.size() && text_[pos_] == '"') {
    const std::size_t close = text_.find('"', pos_ + 1);
    if (close == std::string_view::npos) fail(std::string("unterminated quoted ") + what);
    std::string s(text_.substr(pos_ + 1, close - pos_ - 1));
    pos_ = close + 1;
    return s;
  }
  return std::string(word(what));
}

void Line::finish(const char* what) {
  if (!at_end()) {
    const std::string_view rest = text_.substr(pos_);
    fail(std::string("unexpected '") + excerpt(rest) + "' after " + what);
  }
}

void Line::fail(const std::string& message) const { SS_THROW(where() << ": " << message); }

// ---- Cursor ------------------------------------------------------------------------------

bool Cursor::at_end() {
  while (pos_ < src_.data.size() && is_space(src_.data[pos_])) ++pos_;
  return pos_ >= src_.data.size();
}

Line Cursor::next_line() {
  if (at_end()) fail_eof("more data");
  const std::string_view d = src_.data;
  const std::size_t start = pos_;
  std::size_t nl = d.find('\n', start);
  if (nl == std::string_view::npos) nl = d.size();
  pos_ = std::min(nl + 1, d.size());
  std::size_t stop = nl;
  while (stop > start && is_space(d[stop - 1])) --stop;
  const bool cut = nl == d.size();  // no newline: the file ends inside this line
  return Line(src_, d.substr(start, stop - start), start, cut ? &section_ : nullptr);
}

void Cursor::fail_at(std::size_t offset, const std::string& message) const {
  SS_THROW(src_.where(offset) << ": " << message);
}

void Cursor::fail_eof(const std::string& expected) const {
  std::string where_in = section_.empty() ? "" : " inside " + section_;
  SS_THROW(src_.where(src_.data.size()) << ": unexpected end of file" << where_in << " (expected "
                                        << expected << "); the file is truncated");
}

void Cursor::read_bytes(void* dst, std::size_t bytes, const char* what) {
  const std::size_t left = src_.data.size() - pos_;
  if (bytes > left)
    fail_eof(std::string(what) + ": " + std::to_string(bytes) + " bytes at byte offset " +
             std::to_string(pos_) + ", only " + std::to_string(left) + " left");
  if (bytes) std::memcpy(dst, src_.data.data() + pos_, bytes);
  pos_ += bytes;
}

void Cursor::skip_section(const std::string& end_marker) {
  const std::string needle = "\n" + end_marker;
  const std::size_t at = src_.data.find(needle, pos_ == 0 ? 0 : pos_ - 1);
  if (at == std::string_view::npos) fail_eof(end_marker);
  pos_ = at + needle.size();
  const std::size_t nl = src_.data.find('\n', pos_);
  pos_ = nl == std::string_view::npos ? src_.data.size() : nl + 1;
}

}  // namespace ss::reader
