#pragma once
// The process's peak resident host memory so far (getrusage: Linux's high-water mark of RSS).
#include <cstdint>

namespace ss {

std::int64_t peak_host_memory_bytes();

// Keeps freed memory in the process for reuse (glibc: no mmap for big blocks, no trimming), so the
// set-up's many large temporary arrays are faulted in once instead of once per allocation (this
// matters on machines whose page faults are costly).
// The peak (what the host must hold) is unchanged; memory goes back to the system at exit. Under
// ulimit -v an allocation that does not fit still fails cleanly (tests/app/check_faults.py, scenario memory).
void keep_freed_memory_for_reuse();

// With STREAMSOLVE_HUGE_PAGES=1: large host arrays on transparent huge pages (2 MB) where the
// kernel gives them only on request (/sys/kernel/mm/transparent_hugepage/enabled = "madvise"): the
// program re-executes itself once with GLIBC_TUNABLES=glibc.malloc.hugetlb=1, which makes glibc's
// malloc ask for them (glibc >= 2.35; older ones ignore the tunable). Off by default because the
// gain depends on the machine: where first-touch page faults are costly, huge pages cut the set-up
// time; where the kernel compacts memory at fault time they make it slower (docs/performance.md
// has both measurements). Call first thing
// in main(); returns when it does not re-execute (not asked, already set, THP "always"/"never", a
// sanitizer build, or exec failed).
void use_huge_pages_for_large_arrays(char** argv);

}  // namespace ss
