#include "render/gl_picture.hpp"

#include <EGL/egl.h>
#include <GLFW/glfw3.h>

#include <algorithm>

#include "gl/check.hpp"
#include "util/error.hpp"

namespace ss {

bool gl_context_current() {
  if (eglGetCurrentContext() != EGL_NO_CONTEXT) return true;
  return glfwGetCurrentContext() != nullptr;  // NULL (and no side effect) when GLFW never started
}

const GLenum GlStateGuard::kCapList[kCaps] = {GL_DEPTH_TEST, GL_BLEND,       GL_CULL_FACE,
                                              GL_DITHER,     GL_MULTISAMPLE, GL_POLYGON_OFFSET_FILL};

GlStateGuard::GlStateGuard() {
  glGetIntegerv(GL_DRAW_FRAMEBUFFER_BINDING, &draw_framebuffer_);
  glGetIntegerv(GL_READ_FRAMEBUFFER_BINDING, &read_framebuffer_);
  glGetIntegerv(GL_RENDERBUFFER_BINDING, &renderbuffer_);
  glGetIntegerv(GL_VIEWPORT, viewport_);
  glGetIntegerv(GL_CURRENT_PROGRAM, &program_);
  glGetIntegerv(GL_VERTEX_ARRAY_BINDING, &vertex_array_);
  glGetIntegerv(GL_ARRAY_BUFFER_BINDING, &array_buffer_);
  glGetIntegerv(GL_PACK_ALIGNMENT, &pack_alignment_);
  glGetFloatv(GL_COLOR_CLEAR_VALUE, clear_colour_);
  glGetBooleanv(GL_DEPTH_WRITEMASK, &depth_mask_);
  glGetIntegerv(GL_DEPTH_FUNC, &depth_func_);
  for (int i = 0; i < kCaps; ++i) enabled_[i] = glIsEnabled(kCapList[i]);
}

GlStateGuard::~GlStateGuard() {
  for (int i = 0; i < kCaps; ++i) (enabled_[i] ? glEnable : glDisable)(kCapList[i]);
  glDepthFunc(GLenum(depth_func_));
  glDepthMask(depth_mask_);
  glClearColor(clear_colour_[0], clear_colour_[1], clear_colour_[2], clear_colour_[3]);
  glPixelStorei(GL_PACK_ALIGNMENT, pack_alignment_);
  glBindBuffer(GL_ARRAY_BUFFER, GLuint(array_buffer_));
  glBindVertexArray(GLuint(vertex_array_));
  // A program deleted while current (its owner is gone) stops existing once unbound: keep 0 then.
  glUseProgram(program_ && glIsProgram(GLuint(program_)) ? GLuint(program_) : 0);
  glViewport(viewport_[0], viewport_[1], viewport_[2], viewport_[3]);
  glBindRenderbuffer(GL_RENDERBUFFER, GLuint(renderbuffer_));
  glBindFramebuffer(GL_READ_FRAMEBUFFER, GLuint(read_framebuffer_));
  glBindFramebuffer(GL_DRAW_FRAMEBUFFER, GLuint(draw_framebuffer_));
}

void check_picture_size(int width, int height) {
  GLint max_size = 0;
  glGetIntegerv(GL_MAX_RENDERBUFFER_SIZE, &max_size);
  SS_REQUIRE(width > 0 && height > 0 && width <= max_size && height <= max_size,
             "picture size " << width << "x" << height << " is outside 1.." << max_size << " (GL_MAX_RENDERBUFFER_SIZE)");
}

MsaaTarget::MsaaTarget(int samples) {
  GLint max_samples = 0;
  glGetIntegerv(GL_MAX_SAMPLES, &max_samples);
  samples_ = std::min(samples, int(max_samples));
  if (samples_ <= 1) samples_ = 0;
}

void MsaaTarget::bind(int width, int height) {
  if (!framebuffer_ || width != width_ || height != height_) {
    check_picture_size(width, height);
    GLuint ids[2] = {0, 0};
    glGenRenderbuffers(2, ids);
    colour_ = RenderbufferName(ids[0]);
    depth_ = RenderbufferName(ids[1]);
    glBindRenderbuffer(GL_RENDERBUFFER, colour_.id());
    glRenderbufferStorageMultisample(GL_RENDERBUFFER, samples_, GL_RGBA8, width, height);
    glBindRenderbuffer(GL_RENDERBUFFER, depth_.id());
    glRenderbufferStorageMultisample(GL_RENDERBUFFER, samples_, GL_DEPTH_COMPONENT24, width, height);
    if (!framebuffer_) framebuffer_ = make_framebuffer();
    glBindFramebuffer(GL_FRAMEBUFFER, framebuffer_.id());
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, colour_.id());
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_RENDERBUFFER, depth_.id());
    const GLenum status = glCheckFramebufferStatus(GL_FRAMEBUFFER);
    SS_REQUIRE(status == GL_FRAMEBUFFER_COMPLETE, "picture framebuffer " << width << "x" << height << " with " << samples_
                                                                        << " samples is incomplete (status 0x" << std::hex
                                                                        << status << ")");
    width_ = width;
    height_ = height;
    SS_GL_CHECK("creating the picture framebuffer");
  }
  glBindFramebuffer(GL_FRAMEBUFFER, framebuffer_.id());
  glViewport(0, 0, width, height);
}

void MsaaTarget::resolve_into(GLuint framebuffer) {
  glBindFramebuffer(GL_READ_FRAMEBUFFER, framebuffer_.id());
  glBindFramebuffer(GL_DRAW_FRAMEBUFFER, framebuffer);
  glBlitFramebuffer(0, 0, width_, height_, 0, 0, width_, height_, GL_COLOR_BUFFER_BIT, GL_NEAREST);
}

RgbaImage read_back_picture(int width, int height, const std::function<void(GLuint framebuffer)>& draw) {
  GlStateGuard guard;
  check_picture_size(width, height);  // before anything is made
  GLuint id = 0;
  glGenRenderbuffers(1, &id);
  RenderbufferName colour(id);
  glBindRenderbuffer(GL_RENDERBUFFER, colour.id());
  glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, width, height);
  FramebufferName resolve = make_framebuffer();
  glBindFramebuffer(GL_FRAMEBUFFER, resolve.id());
  glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, colour.id());
  SS_REQUIRE(glCheckFramebufferStatus(GL_FRAMEBUFFER) == GL_FRAMEBUFFER_COMPLETE, "picture resolve framebuffer is incomplete");
  draw(resolve.id());

  RgbaImage image;
  image.width = width;
  image.height = height;
  image.pixels.resize(std::size_t(width) * std::size_t(height) * 4);
  std::vector<std::uint8_t> bottom_up(image.pixels.size());
  glBindFramebuffer(GL_READ_FRAMEBUFFER, resolve.id());
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadPixels(0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE, bottom_up.data());
  SS_GL_CHECK("reading the picture back");
  const std::size_t row = std::size_t(width) * 4;
  for (int y = 0; y < height; ++y)
    std::copy_n(bottom_up.data() + std::size_t(height - 1 - y) * row, row, image.pixels.data() + std::size_t(y) * row);
  return image;
}

}  // namespace ss
