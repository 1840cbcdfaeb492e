#pragma once
// GL plumbing every picture shares (surface and slice): saving and restoring the GL state the
// solver's kernels rely on, the multisampled drawing target, and reading a picture back.
#include <functional>

#include <GL/glew.h>

#include "gl/objects.hpp"
#include "render/png_io.hpp"

namespace ss {

namespace gl_delete {
inline void renderbuffer(GLuint id) { glDeleteRenderbuffers(1, &id); }
}  // namespace gl_delete
using RenderbufferName = GlName<gl_delete::renderbuffer>;

// Whether some GL context (our EGL one or a GLFW window's) is current on this thread.
bool gl_context_current();

// Saves the GL state a picture touches and puts it back, so the solver's kernels (which set their
// own framebuffer, viewport and program per launch and expect blending/depth off) are unaffected.
class GlStateGuard {
public:
  GlStateGuard();
  ~GlStateGuard();
  GlStateGuard(const GlStateGuard&) = delete;
  GlStateGuard& operator=(const GlStateGuard&) = delete;

private:
  static constexpr int kCaps = 6;
  static const GLenum kCapList[kCaps];
  GLint draw_framebuffer_ = 0, read_framebuffer_ = 0, renderbuffer_ = 0, viewport_[4] = {0, 0, 0, 0};
  GLint program_ = 0, vertex_array_ = 0, array_buffer_ = 0, pack_alignment_ = 4, depth_func_ = GL_LESS;
  GLfloat clear_colour_[4] = {0, 0, 0, 0};
  GLboolean depth_mask_ = GL_TRUE;
  GLboolean enabled_[kCaps] = {};
};

// Throws ss::Error unless a width x height picture fits GL_MAX_RENDERBUFFER_SIZE.
void check_picture_size(int width, int height);

// A multisampled colour + depth framebuffer, reallocated when the size changes.
class MsaaTarget {
public:
  explicit MsaaTarget(int samples);  // clamped to GL_MAX_SAMPLES; <= 1: no multisampling
  // Binds the target as GL_FRAMEBUFFER at width x height (checked against the driver's limits).
  void bind(int width, int height);
  // Resolves the picture into `framebuffer` (0: the window's back buffer).
  void resolve_into(GLuint framebuffer);

private:
  FramebufferName framebuffer_;
  RenderbufferName colour_, depth_;
  int width_ = 0, height_ = 0, samples_ = 0;
};

// Makes an RGBA8 framebuffer of width x height, calls draw(framebuffer) and reads the pixels back
// (rows top first). Restores the GL state it changes.
RgbaImage read_back_picture(int width, int height, const std::function<void(GLuint framebuffer)>& draw);

}  // namespace ss
