#pragma once
// Timing helper shared by the `bench` subcommands.
#include <chrono>
#include <functional>

namespace ss {

// Seconds per call of `op`: repeated until at least `min_seconds` have passed (at least 3 calls),
// after one untimed warm-up call. `sync` waits for the device (glFinish for the GPU).
inline double time_per_call(const std::function<void()>& op, const std::function<void()>& sync, double min_seconds) {
  using Clock = std::chrono::steady_clock;
  op();
  sync();
  int calls = 0;
  const auto start = Clock::now();
  double elapsed = 0.0;
  do {
    op();
    ++calls;
    if (calls % 4 == 0 || calls < 4) {
      sync();
      elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    }
  } while (calls < 3 || elapsed < min_seconds);
  sync();
  elapsed = std::chrono::duration<double>(Clock::now() - start).count();
  return elapsed / calls;
}

}  // namespace ss
