#pragma once
// The fuzz targets' entry functions, shared by the libFuzzer mains (fuzz_main.cpp, clang, SS_FUZZ)
// and the replay test (test_fuzz_regression.cpp, the normal build). Each feeds the bytes to the
// entry point the program uses (read_mesh_data + prepare_mesh for meshes, parse_*_case for case
// files), treats ss::Error as the normal outcome for a bad file and lets anything else escape.
// Returns 0, or -1 when a Gmsh or gzip target is given another kind of input than its own: it is not
// parsed (adds no coverage, so libFuzzer does not keep it; libFuzzer >= 15 also drops it on -1).
// The replay test requires 0 for every file.
#include <cstddef>
#include <cstdint>

namespace ss::fuzz {

using Entry = int (*)(const std::uint8_t* data, std::size_t size);

int fuzz_gmsh22_ascii(const std::uint8_t* data, std::size_t size);
int fuzz_gmsh22_binary(const std::uint8_t* data, std::size_t size);
int fuzz_gmsh41_ascii(const std::uint8_t* data, std::size_t size);
int fuzz_gmsh41_binary(const std::uint8_t* data, std::size_t size);
int fuzz_netgen(const std::uint8_t* data, std::size_t size);  // any content (format detection too)
int fuzz_gzip(const std::uint8_t* data, std::size_t size);    // gzip-compressed mesh files
int fuzz_heat_case(const std::uint8_t* data, std::size_t size);
int fuzz_flow_case(const std::uint8_t* data, std::size_t size);

struct Target {
  const char* name;  // fuzz_<name> is the libFuzzer binary; seeds/<name>, regressions/<name>, <name>.dict
  Entry entry;
};
inline constexpr Target kTargets[] = {
    {"gmsh22_ascii", fuzz_gmsh22_ascii}, {"gmsh22_binary", fuzz_gmsh22_binary},
    {"gmsh41_ascii", fuzz_gmsh41_ascii}, {"gmsh41_binary", fuzz_gmsh41_binary},
    {"netgen", fuzz_netgen},             {"gzip", fuzz_gzip},
    {"heat_case", fuzz_heat_case},       {"flow_case", fuzz_flow_case},
};

}  // namespace ss::fuzz
