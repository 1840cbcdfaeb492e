#include "gl/context.hpp"

#include <GL/glew.h>
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GLFW/glfw3.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <sys/resource.h>
#include <vector>

#include "gl/check.hpp"
#include "gl/objects.hpp"
#include "util/error.hpp"

namespace ss {

struct GlContext::Platform {
  EGLDisplay display = EGL_NO_DISPLAY;
  EGLContext context = EGL_NO_CONTEXT;
  GLFWwindow* window = nullptr;

  ~Platform() {
    if (context != EGL_NO_CONTEXT) {
      eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
      eglDestroyContext(display, context);
    }
    if (display != EGL_NO_DISPLAY) eglTerminate(display);
    if (window) {
      glfwDestroyWindow(window);
      glfwTerminate();
    }
  }
};

namespace {

bool has_extension(const char* list, const char* name) {
  if (!list) return false;
  const size_t len = std::strlen(name);
  for (const char* p = std::strstr(list, name); p; p = std::strstr(p + len, name)) {
    const bool starts = p == list || p[-1] == ' ';
    const bool ends = p[len] == '\0' || p[len] == ' ';
    if (starts && ends) return true;
  }
  return false;
}

// A driver that cannot map its memory fails to initialise like a missing one: under an address-space
// limit (ulimit -v), say so.
std::string memory_limit_note() {
  rlimit as{};
  if (getrlimit(RLIMIT_AS, &as) != 0 || as.rlim_cur == RLIM_INFINITY) return "";
  return ", or the driver ran out of memory under the address-space limit of " + std::to_string(as.rlim_cur >> 20) +
         " MB (ulimit -v)";
}

template <typename Fn>
Fn egl_proc(const char* name) {
  return reinterpret_cast<Fn>(eglGetProcAddress(name));
}

// Opens display `gpu` of the EGL device platform; returns EGL_NO_DISPLAY (and says why in
// `reason`) when the driver has no device platform, so the caller can fall back.
EGLDisplay open_device_display(int gpu, std::string& device, std::string& reason) {
  const char* client_ext = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
  // EGL_EXT_device_base (NVIDIA, glvnd) is enumeration + query in one extension.
  const bool enumerates = has_extension(client_ext, "EGL_EXT_device_enumeration") ||
                          has_extension(client_ext, "EGL_EXT_device_base");
  if (!enumerates || !has_extension(client_ext, "EGL_EXT_platform_device")) {
    reason = "EGL has no device enumeration";
    return EGL_NO_DISPLAY;
  }
  auto query_devices = egl_proc<PFNEGLQUERYDEVICESEXTPROC>("eglQueryDevicesEXT");
  auto query_device_string = egl_proc<PFNEGLQUERYDEVICESTRINGEXTPROC>("eglQueryDeviceStringEXT");
  auto get_platform_display = egl_proc<PFNEGLGETPLATFORMDISPLAYEXTPROC>("eglGetPlatformDisplayEXT");
  EGLint count = 0;
  if (!query_devices || !get_platform_display || !query_devices(0, nullptr, &count) || count == 0) {
    reason = "EGL found no devices";
    return EGL_NO_DISPLAY;
  }
  std::vector<EGLDeviceEXT> devices(count);
  query_devices(count, devices.data(), &count);
  SS_REQUIRE(gpu < count, "--gpu " << gpu << " requested but EGL lists only " << count
                                    << " device(s) (valid: 0.." << count - 1 << ")");
  EGLDeviceEXT chosen = devices[gpu];
  device = "EGL device " + std::to_string(gpu) + " of " + std::to_string(count);
  const char* dev_ext = query_device_string ? query_device_string(chosen, EGL_EXTENSIONS) : nullptr;
  if (has_extension(dev_ext, "EGL_EXT_device_drm")) {
    if (const char* file = query_device_string(chosen, EGL_DRM_DEVICE_FILE_EXT)) device += std::string(" (") + file + ")";
  } else if (has_extension(dev_ext, "EGL_MESA_device_software")) {
    device += " (software)";
  }
  return get_platform_display(EGL_PLATFORM_DEVICE_EXT, chosen, nullptr);
}

void create_egl_context(GlContext::Platform& p, int gpu, std::string& device) {
  std::string reason;
  EGLDisplay display = open_device_display(gpu, device, reason);
  EGLint major = 0, minor = 0;
  if (display == EGL_NO_DISPLAY || !eglInitialize(display, &major, &minor)) {
    SS_REQUIRE(gpu == 0, "cannot open EGL device " << gpu << ": " << (reason.empty() ? "eglInitialize failed" : reason));
    // Mesa's surfaceless platform: headless rendering without a device list (llvmpipe, old Mesa).
    auto get_platform_display = egl_proc<PFNEGLGETPLATFORMDISPLAYEXTPROC>("eglGetPlatformDisplayEXT");
    display = get_platform_display ? get_platform_display(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, nullptr)
                                   : EGL_NO_DISPLAY;
    SS_REQUIRE(display != EGL_NO_DISPLAY && eglInitialize(display, &major, &minor),
               "no headless OpenGL: EGL device platform unavailable (" << reason
               << ") and Mesa surfaceless platform failed; install a GL driver (e.g. Debian's libegl-mesa0 libgl1-mesa-dri)"
               << memory_limit_note());
    device = "EGL surfaceless platform";
  }
  p.display = display;
  SS_REQUIRE(eglBindAPI(EGL_OPENGL_API), "EGL cannot bind the desktop OpenGL API");
  // Headless platforms have no window surfaces (the default EGL_SURFACE_TYPE), so ask for pbuffer
  // configs; drivers with EGL_KHR_no_config_context need none at all.
  const EGLint config_attribs[] = {EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT, EGL_NONE};
  EGLConfig config = nullptr;
  EGLint num_configs = 0;
  if (!eglChooseConfig(display, config_attribs, &config, 1, &num_configs) || num_configs == 0) {
    SS_REQUIRE(has_extension(eglQueryString(display, EGL_EXTENSIONS), "EGL_KHR_no_config_context"),
               "EGL offers no desktop OpenGL configuration on " << device);
    config = nullptr;  // EGL_NO_CONFIG_KHR
  }
  const EGLint context_attribs[] = {EGL_CONTEXT_MAJOR_VERSION, 4, EGL_CONTEXT_MINOR_VERSION, 3,
                                    EGL_CONTEXT_OPENGL_PROFILE_MASK, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT,
                                    EGL_NONE};
  p.context = eglCreateContext(display, config, EGL_NO_CONTEXT, context_attribs);
  SS_REQUIRE(p.context != EGL_NO_CONTEXT, "the GL driver on " << device << " cannot create an OpenGL 4.3 core context (EGL error 0x"
                                          << std::hex << eglGetError() << ")");
  // No surface: everything renders into framebuffer objects (EGL_KHR_surfaceless_context).
  SS_REQUIRE(eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, p.context),
             "cannot make the OpenGL context current without a surface on " << device);
}

void create_glfw_context(GlContext::Platform& p, bool visible, std::string& device) {
  SS_REQUIRE(glfwInit(), "GLFW cannot start (no display?); run without --window/--glfw for headless EGL");
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 4);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
  glfwWindowHint(GLFW_VISIBLE, visible ? GLFW_TRUE : GLFW_FALSE);
  p.window = glfwCreateWindow(visible ? 512 : 1, visible ? 512 : 1, "streamsolve", nullptr, nullptr);
  if (!p.window) {
    glfwTerminate();
    SS_THROW("GLFW cannot create an OpenGL 4.3 core window");
  }
  glfwMakeContextCurrent(p.window);
  device = visible ? "GLFW window" : "GLFW hidden window";
}

// glewInit returns GLEW_ERROR_NO_GLX_DISPLAY under EGL because Debian's GLEW is built for GLX;
// the entry points are loaded anyway (DESIGN.md), so only that case with a readable version passes.
void load_gl_entry_points() {
  glewExperimental = GL_TRUE;
  const GLenum status = glewInit();
  const bool usable = status == GLEW_OK ||
                      (status == GLEW_ERROR_NO_GLX_DISPLAY && glGetString(GL_VERSION) != nullptr);
  SS_REQUIRE(usable, "GLEW cannot load OpenGL entry points: " << reinterpret_cast<const char*>(glewGetErrorString(status)));
  glGetError();  // GLEW may leave GL_INVALID_ENUM behind on core profiles
}

std::string gl_string(GLenum name) {
  const GLubyte* s = glGetString(name);
  return s ? reinterpret_cast<const char*>(s) : "?";
}

// A texture of this format can be rendered to (is complete as an FBO attachment).
bool colour_renderable(GLenum internal_format, GLenum format, GLenum type) {
  TextureName texture = make_texture();
  glBindTexture(GL_TEXTURE_2D, texture.id());
  glTexImage2D(GL_TEXTURE_2D, 0, internal_format, 4, 4, 0, format, type, nullptr);
  FramebufferName fbo = make_framebuffer();
  glBindFramebuffer(GL_FRAMEBUFFER, fbo.id());
  glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, texture.id(), 0);
  const bool ok = glCheckFramebufferStatus(GL_FRAMEBUFFER) == GL_FRAMEBUFFER_COMPLETE;
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  glBindTexture(GL_TEXTURE_2D, 0);
  glGetError();
  return ok;
}

void check_capabilities(GlInfo& info) {
  GLint major = 0, minor = 0;
  glGetIntegerv(GL_MAJOR_VERSION, &major);
  glGetIntegerv(GL_MINOR_VERSION, &minor);
  SS_REQUIRE(major > 4 || (major == 4 && minor >= 3),
             "OpenGL 4.3 core required, the driver gives " << info.version << " on " << info.renderer);
  glGetIntegerv(GL_MAX_TEXTURE_SIZE, &info.max_texture_size);
  glGetIntegerv(GL_MAX_DRAW_BUFFERS, &info.max_draw_buffers);
  SS_REQUIRE(info.max_texture_size >= 4096, "GL_MAX_TEXTURE_SIZE is " << info.max_texture_size << ", streamsolve needs at least 4096");
  SS_REQUIRE(info.max_draw_buffers >= 4, "GL_MAX_DRAW_BUFFERS is " << info.max_draw_buffers << ", streamsolve needs at least 4");
  SS_REQUIRE(colour_renderable(GL_R32F, GL_RED, GL_FLOAT), "R32F textures are not colour-renderable on " << info.renderer);
  SS_REQUIRE(colour_renderable(GL_RGBA32F, GL_RGBA, GL_FLOAT), "RGBA32F textures are not colour-renderable on " << info.renderer);
  SS_GL_CHECK("capability checks");
}

}  // namespace

GlContext::GlContext(const GlContextOptions& options) : platform_(std::make_unique<Platform>()) {
  SS_REQUIRE(options.gpu >= 0, "--gpu must be >= 0");
  if (options.use_glfw || options.window)
    create_glfw_context(*platform_, options.window, info_.device);
  else
    create_egl_context(*platform_, options.gpu, info_.device);
  load_gl_entry_points();
  info_.vendor = gl_string(GL_VENDOR);
  info_.renderer = gl_string(GL_RENDERER);
  info_.version = gl_string(GL_VERSION);
  check_capabilities(info_);
  if (options.verbose)
    std::fprintf(stderr, "streamsolve: GL %s | %s | %s | %s | max texture %d\n", info_.vendor.c_str(),
                 info_.renderer.c_str(), info_.version.c_str(), info_.device.c_str(), info_.max_texture_size);
}

GlContext::~GlContext() = default;

}  // namespace ss
