#pragma once
// Global -> local ids of one rank's entities (sorted pairs: no global-size array per rank).
#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "util/error.hpp"

namespace ss {

class GlobalToLocal {
public:
  GlobalToLocal(const std::vector<std::int64_t>& global, int rank) : pairs_(global.size()), rank_(rank) {
    for (size_t i = 0; i < global.size(); ++i) pairs_[i] = {global[i], std::int32_t(i)};
    std::sort(pairs_.begin(), pairs_.end());
  }
  std::int32_t operator()(std::int64_t g) const {
    auto it = std::lower_bound(pairs_.begin(), pairs_.end(), std::make_pair(g, std::int32_t(-1)));
    SS_REQUIRE(it != pairs_.end() && it->first == g, "partition: entity " << g << " missing from rank " << rank_);
    return it->second;
  }

private:
  std::vector<std::pair<std::int64_t, std::int32_t>> pairs_;
  int rank_;
};

}  // namespace ss
