#include "util/host_memory.hpp"

#include <sys/resource.h>

namespace ss {

std::int64_t peak_host_memory_bytes() {
  rusage usage{};
  if (getrusage(RUSAGE_SELF, &usage) != 0) return 0;
  return std::int64_t(usage.ru_maxrss) * 1024;  // ru_maxrss is in kilobytes on Linux
}

}  // namespace ss
