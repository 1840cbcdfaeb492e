#pragma once
#include <chrono>

namespace ss {

// Decides when a progress line is worth printing: at most four a second, and always when forced
// (first and last lines, output steps).
class ProgressThrottle {
public:
  // At most one line per 0.25 s of wall time, whatever clock the caller's solves keep (a transient
  // run of many one-iteration solves must not flood stderr), unless `force`; the first line is due.
  bool due(bool force) {
    const auto now = std::chrono::steady_clock::now();
    if (!force && printed_ && now - last_ < std::chrono::milliseconds(250)) return false;
    last_ = now;
    printed_ = true;
    return true;
  }
  void reset() { printed_ = false; }

private:
  std::chrono::steady_clock::time_point last_;
  bool printed_ = false;
};

}  // namespace ss
