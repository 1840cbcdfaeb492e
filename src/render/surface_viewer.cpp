#include "render/surface_viewer.hpp"

#include <GL/glew.h>
#include <GLFW/glfw3.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "render/surface_renderer.hpp"
#include "util/error.hpp"

namespace ss {
namespace {

SurfaceViewer* viewer_of(GLFWwindow* window) { return static_cast<SurfaceViewer*>(glfwGetWindowUserPointer(window)); }

}  // namespace

SurfaceViewer::SurfaceViewer(GlContext& context, const LoadedMesh& mesh, const RenderOptions& options)
    : options_(options), view_(options.view) {
  (void)context;  // the window is the current GLFW context's; GlContext owns it
  window_ = glfwGetCurrentContext();
  SS_REQUIRE(window_, "the surface viewer needs the GL context made with a window (GlContextOptions::window)");
  renderer_ = std::make_unique<SurfaceRenderer>(mesh, options);
  // Start at the PNG's size, shrunk to fit the screen's work area.
  int width = std::max(64, options.width), height = std::max(64, options.height);
  if (GLFWmonitor* monitor = glfwGetPrimaryMonitor()) {
    int x = 0, y = 0, w = 0, h = 0;
    glfwGetMonitorWorkarea(monitor, &x, &y, &w, &h);
    const double shrink = std::min({1.0, 0.9 * w / width, 0.9 * h / height});
    if (shrink > 0) width = std::max(64, int(width * shrink)), height = std::max(64, int(height * shrink));
  }
  glfwSetWindowSize(window_, width, height);
  glfwSetWindowTitle(window_, ("streamsolve: " + (options.title.empty() ? std::string("surface") : options.title)).c_str());
  glfwSetWindowUserPointer(window_, this);
  glfwSetMouseButtonCallback(window_, on_mouse_button);
  glfwSetCursorPosCallback(window_, on_cursor);
  glfwSetScrollCallback(window_, on_scroll);
  glfwSetKeyCallback(window_, on_key);
  glfwSetWindowRefreshCallback(window_, on_refresh);
  glfwSwapInterval(0);  // never let the display's refresh hold up the solver
  glfwShowWindow(window_);
  glfwPollEvents();
}

SurfaceViewer::~SurfaceViewer() {
  if (!window_) return;
  glfwSetMouseButtonCallback(window_, nullptr);
  glfwSetCursorPosCallback(window_, nullptr);
  glfwSetScrollCallback(window_, nullptr);
  glfwSetKeyCallback(window_, nullptr);
  glfwSetWindowRefreshCallback(window_, nullptr);
  glfwSetWindowUserPointer(window_, nullptr);
}

void SurfaceViewer::update(const std::vector<double>& nodal_values) {
  if (!open_) return;
  renderer_->set_values(nodal_values);
  has_values_ = true;
  pending_ = true;
  draw_if_due();
  glfwPollEvents();
  check_closed();
}

bool SurfaceViewer::poll() {
  if (!open_) return false;
  glfwPollEvents();
  check_closed();
  draw_if_due();
  return open_;
}

void SurfaceViewer::redraw() {
  if (!open_ || !has_values_) return;
  int width = 0, height = 0;
  glfwGetFramebufferSize(window_, &width, &height);
  pending_ = false;
  if (width <= 0 || height <= 0) return;  // minimised
  renderer_->render(0, width, height, view_);
  if (on_frame) on_frame(width, height);
  glfwSwapBuffers(window_);
  last_frame_ = std::chrono::steady_clock::now();
  ++frames_;
}

void SurfaceViewer::wait_until_closed() {
  while (open_) {
    glfwWaitEventsTimeout(0.25);
    check_closed();
    if (pending_) redraw();
  }
}

void SurfaceViewer::orbit(double dx, double dy) {
  view_.azimuth_deg -= 0.4 * dx;
  view_.elevation_deg = std::clamp(view_.elevation_deg + 0.4 * dy, -89.0, 89.0);
  pending_ = true;
}

void SurfaceViewer::zoom(double steps) {
  view_.zoom = std::clamp(view_.zoom * std::pow(1.15, steps), 0.05, 50.0);
  pending_ = true;
}

void SurfaceViewer::reset_view() {
  view_ = options_.view;
  pending_ = true;
}

void SurfaceViewer::check_closed() {
  if (open_ && glfwWindowShouldClose(window_)) {
    open_ = false;
    glfwHideWindow(window_);  // the context stays: the solver may be computing in it
    glfwSetWindowShouldClose(window_, GLFW_FALSE);
  }
}

void SurfaceViewer::draw_if_due() {
  if (!open_ || !pending_) return;
  if (std::chrono::steady_clock::now() - last_frame_ >= min_frame_interval) redraw();
}

void SurfaceViewer::on_mouse_button(GLFWwindow* window, int button, int action, int) {
  SurfaceViewer* self = viewer_of(window);
  if (!self || button != GLFW_MOUSE_BUTTON_LEFT) return;
  if (action == GLFW_PRESS) {
    const auto now = std::chrono::steady_clock::now();
    if (now - self->last_click_ < std::chrono::milliseconds(300)) self->reset_view();  // double click
    self->last_click_ = now;
    self->dragging_ = true;
    glfwGetCursorPos(window, &self->last_x_, &self->last_y_);
  } else if (action == GLFW_RELEASE) {
    self->dragging_ = false;
  }
}

void SurfaceViewer::on_cursor(GLFWwindow* window, double x, double y) {
  SurfaceViewer* self = viewer_of(window);
  if (!self || !self->dragging_) return;
  self->orbit(x - self->last_x_, y - self->last_y_);
  self->last_x_ = x;
  self->last_y_ = y;
  self->redraw();
}

void SurfaceViewer::on_scroll(GLFWwindow* window, double, double dy) {
  SurfaceViewer* self = viewer_of(window);
  if (!self) return;
  self->zoom(dy);
  self->redraw();
}

void SurfaceViewer::on_key(GLFWwindow* window, int key, int, int action, int) {
  SurfaceViewer* self = viewer_of(window);
  if (!self || action != GLFW_PRESS) return;
  if (key == GLFW_KEY_R) self->reset_view();
  if (key == GLFW_KEY_ESCAPE || key == GLFW_KEY_Q) glfwSetWindowShouldClose(window, GLFW_TRUE);
}

void SurfaceViewer::on_refresh(GLFWwindow* window) {
  if (SurfaceViewer* self = viewer_of(window)) self->redraw();
}

}  // namespace ss
