#pragma once
// The process's peak resident host memory so far (getrusage: Linux's high-water mark of RSS).
#include <cstdint>

namespace ss {

std::int64_t peak_host_memory_bytes();

}  // namespace ss
