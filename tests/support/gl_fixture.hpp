#pragma once
// The one GL fixture of every GL test: one headless EGL context for the whole test process (llvmpipe
// in CI, a GPU on the device machine), created on first use. GL tests never skip: no context is a
// test failure.
#include <gtest/gtest.h>

#include <memory>

#include "gl/context.hpp"
#include "kernels/gpu_backend.hpp"

namespace ss::test {

inline GlContext& shared_gl_context() {
  static std::unique_ptr<GlContext> context = std::make_unique<GlContext>(GlContextOptions{});
  return *context;
}

class GlTest : public ::testing::Test {
protected:
  void SetUp() override { ASSERT_NO_THROW(shared_gl_context()) << "cannot create the headless GL context"; }
  GpuBackend make_gpu(LayoutOptions options = {}, GpuOptions gpu_options = {}) {
    return GpuBackend(shared_gl_context(), options, gpu_options);
  }
  GpuBackend make_gpu(Packing packing, LaunchPath launch) {
    LayoutOptions layout;
    layout.packing = packing;
    GpuOptions options;
    options.launch = launch;
    return make_gpu(layout, options);
  }
  static GpuOptions compute_launch() {
    GpuOptions o;
    o.launch = LaunchPath::compute;
    return o;
  }
};

}  // namespace ss::test
