#pragma once
// The one place a fragment kernel is launched: bind inputs to texture units, attach outputs to a
// framebuffer (several = MRT), set the viewport to the output size, draw one full-screen triangle.
#include <initializer_list>
#include <vector>

#include "field/texture.hpp"
#include "gl/objects.hpp"
#include "kernels/program.hpp"

namespace ss {

struct KernelInput {
  const char* uniform;     // sampler name in the kernel
  const Texture* texture;
};

// A scalar uniform of a kernel: float or int.
struct KernelUniform {
  const char* name;
  double value;
  bool is_int;
};
inline KernelUniform uniform_float(const char* name, double value) { return {name, value, false}; }
inline KernelUniform uniform_int(const char* name, int value) { return {name, double(value), true}; }

class Launcher {
public:
  Launcher();
  // Runs `program` for every texel of `outputs` (all the same size). `valid_elements` sets ss_n,
  // the number of real elements in the outputs (the epilogue writes 0 past it).
  void draw(Program& program, const std::vector<KernelInput>& inputs, const std::vector<Texture*>& outputs,
            std::int64_t valid_elements);
  // The framebuffer the launcher renders into (also used by scatter).
  void attach(const std::vector<Texture*>& outputs);
  // Reads the whole texture back through the launcher's framebuffer (no per-call FBO).
  void read(Texture& texture, void* data);

private:
  VertexArrayName empty_vao_;
  FramebufferName framebuffer_;
};

}  // namespace ss
