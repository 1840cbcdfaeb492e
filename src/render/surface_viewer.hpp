#pragma once
// `--window`: the PNG's picture live in the visible GLFW window of a GlContext made with
// `window = true` (the same context the GPU solver computes in, or one made for the viewer when
// the CPU backend solves). Orbit with the left mouse button, zoom with the scroll wheel, double-
// click or R to reset the view. The solver calls update() with its current nodal values (each
// progress print or time step) and poll() in between; closing the window only hides it, the solve
// goes on and later calls do nothing.
#include <chrono>
#include <functional>
#include <memory>
#include <vector>

#include "gl/context.hpp"
#include "mesh/load_mesh.hpp"
#include "render/render_surface.hpp"

struct GLFWwindow;

namespace ss {

class SurfaceRenderer;

class SurfaceViewer {
public:
  // Needs `context` current and made with window = true (throws ss::Error otherwise). Shows the
  // window at options.width x options.height (at most), titled "streamsolve: <title>".
  SurfaceViewer(GlContext& context, const LoadedMesh& mesh, const RenderOptions& options = {});
  ~SurfaceViewer();
  SurfaceViewer(const SurfaceViewer&) = delete;
  SurfaceViewer& operator=(const SurfaceViewer&) = delete;

  // New values (one per mesh node); drawn now, or at the next poll() when the last frame is less
  // than min_frame_interval old (so a fast solver is not slowed by drawing).
  void update(const std::vector<double>& nodal_values);
  // Handles window events (mouse, resize, close) and draws a pending frame. Returns open().
  bool poll();
  // Draws a frame now (nothing when closed).
  void redraw();
  // After the solve: keeps the window responsive until the user closes it.
  void wait_until_closed();
  bool open() const { return open_; }

  // The mouse's actions, for scripted use and tests: orbit by pixels dragged, zoom by wheel steps.
  void orbit(double dx_pixels, double dy_pixels);
  void zoom(double wheel_steps);
  void reset_view();
  const ViewAngles& view() const { return view_; }
  long frames_drawn() const { return frames_; }

  std::chrono::milliseconds min_frame_interval{33};
  // Called after each frame is drawn into the window's back buffer, before the swap (tests read the
  // frame there; a screenshot feature could too).
  std::function<void(int width, int height)> on_frame;

private:
  static void on_mouse_button(GLFWwindow* window, int button, int action, int mods);
  static void on_cursor(GLFWwindow* window, double x, double y);
  static void on_scroll(GLFWwindow* window, double dx, double dy);
  static void on_key(GLFWwindow* window, int key, int scancode, int action, int mods);
  static void on_refresh(GLFWwindow* window);
  void check_closed();
  void draw_if_due();

  GLFWwindow* window_ = nullptr;
  std::unique_ptr<SurfaceRenderer> renderer_;
  RenderOptions options_;
  ViewAngles view_;
  bool open_ = true;
  bool pending_ = false;
  bool has_values_ = false;
  bool dragging_ = false;
  double last_x_ = 0, last_y_ = 0;
  std::chrono::steady_clock::time_point last_click_{}, last_frame_{};
  long frames_ = 0;
};

}  // namespace ss
