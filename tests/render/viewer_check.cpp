// SurfaceViewer in a real (virtual) window: run by ctest under xvfb-run. Checks that a frame is
// drawn and shown, that orbit/zoom/resize events lead to new frames, and that closing the window
// hides it without ending the program or its GL context. Exit status 0 when all checks pass.
#include <GL/glew.h>
#include <GLFW/glfw3.h>

#include <chrono>
#include <cstdio>
#include <thread>
#include <vector>

#include "gl/context.hpp"
#include "mesh/box_mesh.hpp"
#include "mesh/load_mesh.hpp"
#include "render/render_surface.hpp"
#include "render/surface_viewer.hpp"
#include "util/error.hpp"

namespace {

int failures = 0;
void check(bool ok, const char* what) {
  std::fprintf(stderr, "%s: %s\n", ok ? "ok  " : "FAIL", what);
  if (!ok) ++failures;
}

// Non-background pixels of the frame just drawn into the window's back buffer (before the swap).
long drawn_pixels(int width, int height) {
  std::vector<unsigned char> pixels(std::size_t(width) * std::size_t(height) * 4);
  GLint previous_buffer = 0, previous_framebuffer = 0;
  glGetIntegerv(GL_READ_BUFFER, &previous_buffer);
  glGetIntegerv(GL_READ_FRAMEBUFFER_BINDING, &previous_framebuffer);
  glBindFramebuffer(GL_READ_FRAMEBUFFER, 0);
  glReadBuffer(GL_BACK);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadPixels(0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE, pixels.data());
  glReadBuffer(GLenum(previous_buffer));
  glBindFramebuffer(GL_READ_FRAMEBUFFER, GLuint(previous_framebuffer));
  long count = 0, white = 0;
  for (std::size_t i = 0; i < pixels.size(); i += 4) {
    if (pixels[i] != 255 || pixels[i + 1] != 255 || pixels[i + 2] != 255) ++count;
    else ++white;
  }
  std::fprintf(stderr, "     frame %dx%d: %ld drawn pixels, %ld background\n", width, height, count, white);
  return white > 0 ? count : 0;  // all non-white: not our picture (its border is background)
}

}  // namespace

int main() {
  try {
    ss::GlContextOptions context_options;
    context_options.window = true;
    ss::GlContext context(context_options);
    std::fprintf(stderr, "GL: %s | %s\n", context.info().renderer.c_str(), context.info().device.c_str());
    GLFWwindow* window = glfwGetCurrentContext();
    const ss::LoadedMesh mesh = ss::prepare_mesh(ss::make_box_mesh(6, 6, 6));
    std::vector<double> values;
    for (const auto& p : mesh.mesh.nodes) values.push_back(p.x);

    ss::RenderOptions options;
    options.width = 640;
    options.height = 480;
    ss::SurfaceViewer viewer(context, mesh, options);
    viewer.min_frame_interval = std::chrono::milliseconds(0);
    long last_drawn = -1;
    int last_width = 0, last_height = 0;
    viewer.on_frame = [&](int width, int height) {
      last_drawn = drawn_pixels(width, height);
      last_width = width;
      last_height = height;
    };
    check(glfwGetWindowAttrib(window, GLFW_VISIBLE) == GLFW_TRUE, "window is visible");

    viewer.update(values);
    check(viewer.frames_drawn() == 1, "update() draws a frame");
    check(last_width == 640 && last_height == 480, "frame drawn at the window's size");
    check(last_drawn > 640 * 480 / 20, "the frame shows the surface and colour bar on the background");

    // Mouse actions (what the callbacks call) and window events lead to new frames.
    const ss::ViewAngles before = viewer.view();
    viewer.orbit(120, -40);
    viewer.zoom(2);
    check(viewer.view().azimuth_deg != before.azimuth_deg && viewer.view().zoom > before.zoom, "orbit and zoom change the view");
    check(viewer.poll(), "poll() while open returns true");
    check(viewer.frames_drawn() == 2, "poll() draws the pending frame");

    glfwSetWindowSize(window, 500, 400);
    for (int i = 0; i < 50; ++i) {  // the resize arrives through the X server
      viewer.poll();
      int w = 0, h = 0;
      glfwGetFramebufferSize(window, &w, &h);
      if (w == 500 && h == 400) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    viewer.redraw();
    int w = 0, h = 0;
    glfwGetFramebufferSize(window, &w, &h);
    check(w == 500 && h == 400, "resize event processed");
    check(last_width == 500 && last_height == 400 && last_drawn > 500 * 400 / 20, "frame drawn at the new size");

    // Closing: the window hides, the viewer stops, the context keeps working for the solver.
    glfwSetWindowShouldClose(window, GLFW_TRUE);
    check(!viewer.poll(), "poll() after close returns false");
    check(!viewer.open(), "viewer reports closed");
    check(glfwGetWindowAttrib(window, GLFW_VISIBLE) == GLFW_FALSE, "window hidden");
    const long frames = viewer.frames_drawn();
    viewer.update(values);
    check(viewer.frames_drawn() == frames, "update() after close draws nothing");
    const ss::RgbaImage image = ss::render_surface_image(mesh, values, options);
    check(image.width == 640 && glGetError() == GL_NO_ERROR, "GL context still usable after close");
  } catch (const ss::Error& e) {
    std::fprintf(stderr, "render_viewer_check: error: %s (%s:%d)\n", e.what(), e.file(), e.line());
    return 2;
  }
  std::fprintf(stderr, "render_viewer_check: %d failure(s)\n", failures);
  return failures == 0 ? 0 : 1;
}
