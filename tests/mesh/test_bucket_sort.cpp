// The stable parallel counting sort under every table (mesh/bucket_sort.hpp) against a serial
// stable sort, for 1..5 threads, few and many buckets, empty buckets and sizes around the
// one-thread-per-65536-elements split.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <vector>

#include "mesh/bucket_sort.hpp"
#include "mesh_test_util.hpp"

namespace ss {
namespace {

constexpr int kItems = 3;  // items per element, like the 4 faces or 6 edges of a tet

// Item k of element e goes to a pseudo-random bucket (a fixed hash: the same on every run).
std::int32_t bucket_of(std::int32_t e, int k, std::int32_t buckets) {
  std::uint64_t h = (std::uint64_t(e) * kItems + std::uint64_t(k) + 1) * 0x9E3779B97F4A7C15ull;
  h ^= h >> 29;
  return std::int32_t(h % std::uint64_t(buckets));
}

struct Scatter {
  std::vector<std::int32_t> start;
  std::vector<std::int64_t> items;  // e * kItems + k in output order
};

Scatter parallel_scatter(std::int32_t elements, std::int32_t buckets) {
  Scatter s;
  s.items.assign(size_t(elements) * kItems, -1);
  s.start = detail::bucket_scatter<kItems>(
      elements, buckets, [buckets](std::int32_t e, int k) { return bucket_of(e, k, buckets); },
      [&s](std::int32_t pos, std::int32_t e, int k) { s.items[size_t(pos)] = std::int64_t(e) * kItems + k; });
  return s;
}

// The reference: items in element order, then item order, stably sorted by bucket.
Scatter serial_scatter(std::int32_t elements, std::int32_t buckets) {
  Scatter s;
  s.items.resize(size_t(elements) * kItems);
  std::iota(s.items.begin(), s.items.end(), std::int64_t(0));
  const auto key = [buckets](std::int64_t item) { return bucket_of(std::int32_t(item / kItems), int(item % kItems), buckets); };
  std::stable_sort(s.items.begin(), s.items.end(), [&](std::int64_t a, std::int64_t b) { return key(a) < key(b); });
  s.start.assign(size_t(buckets) + 1, 0);
  for (std::int64_t item : s.items) ++s.start[size_t(key(item)) + 1];
  for (std::int32_t b = 0; b < buckets; ++b) s.start[size_t(b) + 1] += s.start[size_t(b)];
  return s;
}

TEST(BucketScatter, IsTheSerialStableSortForAnyNumberOfThreads) {
  for (std::int32_t elements : {0, 1, 2, 13, 65535, 65537, 200003})
    for (std::int32_t buckets : {1, 2, 7, 4099, 300007}) {
      const Scatter expected = serial_scatter(elements, buckets);
      for (int threads = 1; threads <= 5; ++threads) {
        const Scatter got = test::with_threads(threads, [&] { return parallel_scatter(elements, buckets); });
        ASSERT_EQ(got.start, expected.start) << elements << " elements, " << buckets << " buckets, " << threads << " threads";
        ASSERT_EQ(got.items, expected.items) << elements << " elements, " << buckets << " buckets, " << threads << " threads";
      }
    }
}

}  // namespace
}  // namespace ss
