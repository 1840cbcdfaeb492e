#include "util/host_memory.hpp"

#include <malloc.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
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

void use_huge_pages_for_large_arrays(char** argv) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  (void)argv;  // the sanitizers' allocators replace glibc's malloc: nothing to ask
#else
  const char* asked = std::getenv("STREAMSOLVE_HUGE_PAGES");
  if (!asked || std::strcmp(asked, "1") != 0) return;
  const char* tunables = std::getenv("GLIBC_TUNABLES");
  const std::string current = tunables ? tunables : "";
  if (current.find("glibc.malloc.hugetlb") != std::string::npos) return;  // set (by us or the user)
  std::ifstream thp("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string mode;
  std::getline(thp, mode);
  if (mode.find("[madvise]") == std::string::npos) return;  // "always" gives them anyway, "never" not at all
  const std::string value = current.empty() ? "glibc.malloc.hugetlb=1" : current + ":glibc.malloc.hugetlb=1";
  if (setenv("GLIBC_TUNABLES", value.c_str(), 1) != 0) return;
  execv("/proc/self/exe", argv);
  // exec failed (no /proc): run on as we are, without the tunable in the environment.
  if (tunables) setenv("GLIBC_TUNABLES", tunables, 1);
  else unsetenv("GLIBC_TUNABLES");
#endif
}

}  // namespace ss
