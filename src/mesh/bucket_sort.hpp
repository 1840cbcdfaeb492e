#pragma once
// Internal: stable parallel counting sort ("bucket scatter") of K items per element by a node key,
// the building block of the topology tables and the renumbering graph. Each thread counts and
// scatters a contiguous range of elements, so the result equals the serial, stable order (items of
// a bucket in element order, then item order). Output buffers are left uninitialised until written.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <new>
#include <vector>

#include <omp.h>

namespace ss::detail {

// new T[n] without value-initialisation (T trivial): saves a serial memset of big scratch arrays.
template <class T>
std::unique_ptr<T[]> uninitialized_array(std::size_t n) {
  return std::unique_ptr<T[]>(new T[n]);
}

// Runs f() inside an OpenMP region, where an exception must not escape (it would end the program):
// a failed allocation sets `failed` (reported by the caller after the region) and returns false.
template <class F>
bool allocating(F f, bool& failed) {
  try {
    f();
    return true;
  } catch (const std::bad_alloc&) {
#pragma omp atomic write
    failed = true;
    return false;
  }
}

// key(e, k) -> bucket in [0, buckets) for item k of element e; emit(pos, e, k) writes the item to
// output slot pos. Returns start offsets (buckets + 1 entries).
template <int K, class Key, class Emit>
std::vector<std::int32_t> bucket_scatter(std::int32_t elements, std::int32_t buckets, Key key, Emit emit) {
  std::vector<std::int32_t> start(static_cast<std::size_t>(buckets) + 1, 0);
  const int threads = std::max(1, std::min(omp_get_max_threads(), elements / 65536 + 1));
  std::vector<std::vector<std::int32_t>> counts(static_cast<std::size_t>(threads));
  std::vector<std::int64_t> block_totals(static_cast<std::size_t>(threads), 0);
  bool out_of_memory = false;  // a thread's counts could not be had: no exception may leave the region
#pragma omp parallel num_threads(threads) if (threads > 1)
  {
    const int t = omp_get_thread_num(), nt = omp_get_num_threads();
    const std::int32_t lo = static_cast<std::int32_t>(std::int64_t(elements) * t / nt);
    const std::int32_t hi = static_cast<std::int32_t>(std::int64_t(elements) * (t + 1) / nt);
    std::vector<std::int32_t>& c = counts[static_cast<std::size_t>(t)];
    allocating([&] { c.assign(static_cast<std::size_t>(buckets), 0); }, out_of_memory);
#pragma omp barrier
    bool failed;
#pragma omp atomic read
    failed = out_of_memory;
    if (!failed) {  // the same branch on every thread: the barriers inside stay matched
      for (std::int32_t e = lo; e < hi; ++e)
        for (int k = 0; k < K; ++k) ++c[key(e, k)];
#pragma omp barrier
      // Bucket b starts after all smaller buckets; within it, thread t after threads < t. Each thread
      // numbers one block of buckets, from the total of the blocks before it (parallel: the buckets
      // are the nodes, tens of millions, times the threads).
      const std::int32_t b_lo = static_cast<std::int32_t>(std::int64_t(buckets) * t / nt);
      const std::int32_t b_hi = static_cast<std::int32_t>(std::int64_t(buckets) * (t + 1) / nt);
      std::int64_t block = 0;
      for (std::int32_t b = b_lo; b < b_hi; ++b)
        for (int u = 0; u < nt; ++u) block += counts[u][b];
      block_totals[static_cast<std::size_t>(t)] = block;
#pragma omp barrier
      std::int64_t before = 0;
      for (int u = 0; u < t; ++u) before += block_totals[static_cast<std::size_t>(u)];
      std::int32_t sum = static_cast<std::int32_t>(before);
      for (std::int32_t b = b_lo; b < b_hi; ++b) {
        start[b] = sum;
        for (int u = 0; u < nt; ++u) {
          const std::int32_t n = counts[u][b];
          counts[u][b] = sum;
          sum += n;
        }
      }
      if (t == nt - 1) start[buckets] = sum;
#pragma omp barrier
      for (std::int32_t e = lo; e < hi; ++e)
        for (int k = 0; k < K; ++k) emit(c[key(e, k)]++, e, k);
    }
  }
  if (out_of_memory) throw std::bad_alloc();
  return start;
}

}  // namespace ss::detail
