#pragma once
// The one place a kernel is launched. Both paths bind the inputs to texture units and set ss_n and
// ss_size; then
//   fragment (draw):     attach the outputs to a framebuffer (several = MRT), set the viewport to
//                        the output size, draw one full-screen triangle;
//   compute (dispatch):  bind output k to image unit k, dispatch ceil(W/lx) × ceil(H/ly) work
//                        groups, and put a memory barrier behind it so every later read (kernels,
//                        scatter draws, readbacks, texture updates) sees the image stores.
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
  // the number of real elements in the outputs (the epilogue writes 0 past it). Draws a fragment
  // program, dispatches a compute program (Program::is_compute).
  void run(Program& program, const std::vector<KernelInput>& inputs, const std::vector<Texture*>& outputs,
           std::int64_t valid_elements);
  void draw(Program& program, const std::vector<KernelInput>& inputs, const std::vector<Texture*>& outputs,
            std::int64_t valid_elements);
  void dispatch(Program& program, const std::vector<KernelInput>& inputs, const std::vector<Texture*>& outputs,
                std::int64_t valid_elements);
  // A work-group reduction pass (KernelSpec::group_reduce): `grid` invocations (ss_size), one work
  // group per texel of `output` (its size is ceil(grid / work-group size)).
  void dispatch_reduction(Program& program, const std::vector<KernelInput>& inputs, Texture& output, glm::ivec2 grid);
  // The framebuffer the launcher renders into (also used by scatter).
  void attach(const std::vector<Texture*>& outputs);
  // Call after drawing into textures outside draw() (scatter): the next dispatch then waits for
  // those writes before its image stores (glMemoryBarrier orders image stores only after it).
  void note_draw() { draws_since_dispatch_ = true; }
  // Reads the whole texture back through the launcher's framebuffer (no per-call FBO).
  void read(Texture& texture, void* data);
  // Counts since construction: kernel passes (draws and dispatches, scatter's included) and
  // blocking read-backs (read()) — a pass's fixed cost and a read-back's wait do not shrink with
  // the piece a rank holds.
  std::int64_t passes() const { return passes_; }
  std::int64_t blocking_reads() const { return reads_; }
  void count_pass() { ++passes_; }

private:
  void bind(Program& program, const std::vector<KernelInput>& inputs, const std::vector<Texture*>& outputs,
            std::int64_t valid_elements);
  // Binds the outputs as images, dispatches the groups and puts the barrier behind them.
  void dispatch_groups(Program& program, const std::vector<Texture*>& outputs, GLuint groups_x, GLuint groups_y);

  VertexArrayName empty_vao_;
  FramebufferName framebuffer_;
  bool draws_since_dispatch_ = true;
  std::int64_t passes_ = 0, reads_ = 0;
};

}  // namespace ss
