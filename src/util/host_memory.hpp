#pragma once
// The process's peak resident host memory so far (getrusage: Linux's high-water mark of RSS).
#include <cstdint>

namespace ss {

std::int64_t peak_host_memory_bytes();

// Keeps freed memory in the process for reuse (glibc: no mmap for big blocks, no trimming), so the
// set-up's many large temporary arrays are faulted in once instead of once per allocation (crankshaft
// refine 5 heat with --no-vtu on the H200 machine, whose page faults are costly: 42.7 -> 34.3 s).
// The peak (what the host must hold) is unchanged; memory goes back to the system at exit. Under
// ulimit -v an allocation that does not fit still fails cleanly (tests/fault, scenario memory).
void keep_freed_memory_for_reuse();

}  // namespace ss
