#pragma once
// One exception type for everything the library reports to the user. `main` catches it once and
// prints `streamsolve: error: <what> (<file>:<line>)`, where file:line is the throwing call site.
#include <sstream>
#include <stdexcept>
#include <string>

namespace ss {

class Error : public std::runtime_error {
public:
  Error(const std::string& what, const char* file, int line)
      : std::runtime_error(what), file_(file), line_(line) {}
  const char* file() const { return file_; }
  int line() const { return line_; }

private:
  const char* file_;
  int line_;
};

// The source file's name without its directory, for error lines.
constexpr const char* source_basename(const char* path) {
  const char* base = path;
  for (const char* p = path; *p; ++p)
    if (*p == '/') base = p + 1;
  return base;
}

}  // namespace ss

// SS_THROW("count " << n << " too large") — stream-style message, throws ss::Error at the call site.
#define SS_THROW(message_stream)                                                        \
  do {                                                                                  \
    std::ostringstream ss_throw_os_;                                                    \
    ss_throw_os_ << message_stream;                                                     \
    throw ::ss::Error(ss_throw_os_.str(), ::ss::source_basename(__FILE__), __LINE__);   \
  } while (0)

#define SS_REQUIRE(condition, message_stream) \
  do {                                        \
    if (!(condition)) SS_THROW(message_stream); \
  } while (0)
