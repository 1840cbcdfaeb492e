// libFuzzer main of one fuzz target (SS_FUZZ builds, clang): SS_FUZZ_ENTRY names its entry function.
#include <cstddef>
#include <cstdint>

#include "fuzz_entries.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return ss::fuzz::SS_FUZZ_ENTRY(data, size);
}
