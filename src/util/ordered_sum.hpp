#pragma once
// A parallel sum whose result does not depend on the number of OpenMP threads: fixed blocks, each
// summed in order, then the block sums in order (an OpenMP reduction(+) adds in thread order, so
// 1 and 2 threads round differently).
#include <algorithm>
#include <cstdint>
#include <vector>

namespace ss {

inline double ordered_sum(const std::vector<double>& v) {
  constexpr std::int64_t kBlock = 16384;
  const std::int64_t n = std::int64_t(v.size()), blocks = (n + kBlock - 1) / kBlock;
  std::vector<double> partial(static_cast<size_t>(blocks), 0.0);
#pragma omp parallel for schedule(static)
  for (std::int64_t b = 0; b < blocks; ++b) {
    double s = 0;
    for (std::int64_t i = b * kBlock; i < std::min(n, (b + 1) * kBlock); ++i) s += v[size_t(i)];
    partial[size_t(b)] = s;
  }
  double total = 0;
  for (double s : partial) total += s;
  return total;
}

}  // namespace ss
