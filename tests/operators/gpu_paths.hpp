#pragma once
// The four GPU settings the refinement tests run on: both packings × both launch paths, as
// GoogleTest parameters (INSTANTIATE_TEST_SUITE_P(Paths, Fixture, kGpuPaths, gpu_path_name)).
#include <string>

#include <gtest/gtest.h>

#include "field/layout.hpp"
#include "kernels/gpu_backend.hpp"

namespace ss::test {

struct GpuPath {
  Packing packing;
  LaunchPath launch;
};

inline const auto kGpuPaths =
    ::testing::Values(GpuPath{Packing::r32f, LaunchPath::fragment}, GpuPath{Packing::rgba32f, LaunchPath::fragment},
                      GpuPath{Packing::r32f, LaunchPath::compute}, GpuPath{Packing::rgba32f, LaunchPath::compute});

inline std::string gpu_path_name(const ::testing::TestParamInfo<GpuPath>& info) {
  return std::string(to_string(info.param.packing)) + "_" + to_string(info.param.launch);
}

}  // namespace ss::test
