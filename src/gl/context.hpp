#pragma once
// The OpenGL 4.3 core context every GPU computation runs in.
// Headless EGL by default: enumerate devices (EGL_EXT_device_enumeration + EGL_EXT_platform_device),
// take device `gpu`; if the driver offers no device platform, fall back to Mesa's surfaceless
// platform. The other path is a GLFW window (hidden, or visible with `window`) where a display exists.
// On start-up the context checks what streamsolve needs (GL >= 4.3 core, float colour-renderable
// textures, texture size) and throws one clear ss::Error if anything is missing.
#include <memory>
#include <string>

namespace ss {

struct GlContextOptions {
  int gpu = 0;            // EGL device index
  bool use_glfw = false;  // GLFW hidden window instead of EGL
  bool window = false;    // GLFW visible window (implies use_glfw)
  bool verbose = false;   // print vendor, renderer, version, device on stderr
};

struct GlInfo {
  std::string vendor, renderer, version;
  std::string device;     // how the context was made, e.g. "EGL device 0 of 2 (/dev/dri/card1)"
  int max_texture_size = 0;
  int max_draw_buffers = 0;
};

class GlContext {
public:
  explicit GlContext(const GlContextOptions& options = {});
  ~GlContext();
  GlContext(const GlContext&) = delete;
  GlContext& operator=(const GlContext&) = delete;

  const GlInfo& info() const { return info_; }

  struct Platform;  // EGL or GLFW state (context.cpp)

private:
  std::unique_ptr<Platform> platform_;
  GlInfo info_;
};

}  // namespace ss
