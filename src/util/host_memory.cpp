#include "util/host_memory.hpp"

#include <malloc.h>
#include <sys/resource.h>

namespace ss {

std::int64_t peak_host_memory_bytes() {
  rusage usage{};
  if (getrusage(RUSAGE_SELF, &usage) != 0) return 0;
  return std::int64_t(usage.ru_maxrss) * 1024;  // ru_maxrss is in kilobytes on Linux
}

void keep_freed_memory_for_reuse() {
  mallopt(M_MMAP_MAX, 0);                  // large blocks from the heap too (their pages stay mapped)
  mallopt(M_TRIM_THRESHOLD, 0x7fffffff);   // never give the top of the heap back mid-run
}

}  // namespace ss
