#pragma once
// Kernel sources. A kernel file in shaders/ holds only the kernel body:
//
//     uniform float a; uniform sampler2D x; uniform sampler2D y;
//     SS_VALUE kernel(ivec2 texel) { return ss_load(y, texel) + a * ss_load(x, texel); }
//
// (or, for k > 1 outputs, `void kernel(ivec2 texel, out SS_VALUE out0, ..., out SS_VALUE out{k-1})`).
// `fragment_program_source` puts the generated prelude (index↔texel helpers, guarded fetches, the
// value type of the packing) before it and a launch epilogue (main) after it. The same KernelSpec
// builds the prelude and is the program cache key, so the two can never disagree.
//
// The same body runs on either launch path (`LaunchPath`): a fragment shader drawn over the output
// (the thesis' method, the default) or a compute shader with one invocation per output texel that
// writes the outputs with imageStore (`compute_program_source`). Only the generated epilogue differs.
#include <map>
#include <string>

namespace ss {

// How a kernel is launched. fragment: one full-screen triangle, outputs are render targets.
// compute: glDispatchCompute over the output, outputs are images (on H100/H200 only a small part
// of the chip runs fragment shaders, so this is the path to full memory bandwidth there).
enum class LaunchPath { fragment, compute };
LaunchPath parse_launch_path(const std::string& name);  // "fragment" or "compute"; else ss::Error
const char* to_string(LaunchPath path);

// A reduction pass on the compute path: the invocations of a work group combine their kernel()
// values in shared memory (sum, min or max) and the group writes one output texel, so one
// pass folds f×f texels per invocation times the group's invocations.
enum class GroupReduce { none, sum, min, max };

struct KernelSpec {
  std::string kernel;           // file name in shaders/, e.g. "axpy.glsl"
  int elements_per_texel = 1;   // 1: R32F fields (float values), 4: RGBA32F (vec4 values)
  int outputs = 1;              // render targets / images written (MRT when > 1)
  LaunchPath launch = LaunchPath::fragment;
  int local_size_x = 16, local_size_y = 16;  // compute work-group size (ignored by fragment)
  // Outputs are vec4 / RGBA32F whatever the packing, written unmasked (`vec4 kernel(ivec2)`): the
  // first pass of a multi-output reduction (reduce_dots.glsl) puts one partial sum per channel.
  bool vec4_output = false;
  // Outputs are integer fields (R32I / RGBA32I, IndexField): the kernel returns SS_IVALUE (or, for
  // k > 1 outputs, writes `out SS_IVALUE`), padding is written as 0. Mesh connectivity made on the
  // GPU (refinement) is written this way.
  bool int_output = false;
  // Compute only, one output: output texel (i, j) is work group (i, j)'s combined value; ss_size is
  // the grid of invocations (one per partial value), not the output's size.
  GroupReduce group_reduce = GroupReduce::none;

  std::string key() const;
};

// Embedded at build time (cmake/EmbedShaders.cmake).
const std::map<std::string, std::string>& embedded_shaders();

// The text of shaders/<name>: from $STREAMSOLVE_SHADER_DIR if that variable is set (for shader
// development without rebuilding), otherwise the copy embedded in the binary.
std::string shader_file(const std::string& name);
// shader_file(name) with its `#include "other.glsl"` lines expanded (one level).
std::string kernel_body(const std::string& name);

std::string prelude_source(const KernelSpec& spec);
std::string fragment_program_source(const KernelSpec& spec);
std::string compute_program_source(const KernelSpec& spec);
std::string fullscreen_vertex_source();

}  // namespace ss
