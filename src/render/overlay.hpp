#pragma once
// The 2D layer of pictures, in pixel coordinates (origin top left): flat or colour-mapped
// triangles, rectangles, lines and text collected on the CPU and drawn in one call, plus the frame
// every picture shares — the title (and subtitle) at the top and the colour bar at the right.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <glm/vec2.hpp>
#include <glm/vec3.hpp>

#include "gl/objects.hpp"
#include "kernels/program.hpp"

namespace ss {

struct OverlayVertex {
  float x, y;        // pixels, origin top left
  float r, g, b, a;  // flat colour
  float t;           // colour-map coordinate (clamped to [0, 1] when drawn)
  float mapped;      // 1: coloured through the map at t, 0: the flat colour (same on a triangle's corners)
};

class Overlay {
public:
  void rect(float x0, float y0, float x1, float y1, glm::vec3 c);
  // Vertical gradient through the colour map: t_bottom at y1, t_top at y0.
  void gradient(float x0, float y0, float x1, float y1, float t_bottom, float t_top);
  // A colour-mapped triangle, t interpolated linearly between its corners.
  void mapped_triangle(glm::vec2 p0, float t0, glm::vec2 p1, float t1, glm::vec2 p2, float t2);
  void flat_triangle(glm::vec2 p0, glm::vec2 p1, glm::vec2 p2, glm::vec3 c);
  // A line `width` pixels wide with square ends (reaching width/2 past its end points).
  void line(glm::vec2 a, glm::vec2 b, float width, glm::vec3 c);
  // Text with its top-left corner at (x, y), `scale` pixels per font pixel.
  void text(const std::string& s, float x, float y, int scale, glm::vec3 c);
  const std::vector<OverlayVertex>& vertices() const { return vertices_; }

private:
  void quad(float x0, float y0, float x1, float y1, glm::vec3 c, float t_top, float t_bottom, float mapped);
  std::vector<OverlayVertex> vertices_;
};

// The overlay program and buffers; draws an Overlay into the bound framebuffer (GL context current).
class OverlayPainter {
public:
  explicit OverlayPainter(const std::vector<glm::vec3>& colormap_stops);
  // Sets the viewport to width x height and draws without depth test.
  void draw(const Overlay& overlay, int width, int height);

private:
  std::unique_ptr<Program> program_;
  VertexArrayName vao_;
  BufferName buffer_;
};

// "%.*g" without "-0".
std::string format_value(double v, int significant);
// "Nice" tick values (1, 2 or 5 times a power of ten) strictly inside (lo, hi), about `target` many.
std::vector<double> nice_ticks(double lo, double hi, int target);

// The colour range of a picture: [range_min, range_max] when they differ, else the finite values'
// min and max; a constant field gets a small range around its value. Throws ss::Error when
// range_max < range_min.
std::pair<double, double> resolve_colour_range(const std::vector<double>& values, double range_min, double range_max);

inline const glm::vec3 kTextColour(0.12f, 0.12f, 0.14f);

// Title band at the top, colour-bar column at the right; the rest is the plot area (top left).
struct PictureFrame {
  PictureFrame(int width, int height, double range_min, double range_max, std::string title, std::string subtitle);
  // Colour bar with ticks and labels, title and subtitle.
  void draw(Overlay& overlay) const;

  int width, height;
  double lo, hi;
  std::string title, subtitle;
  double scale;                 // relative to a 1200 x 900 picture
  int label_scale, title_scale; // screen pixels per font pixel
  int margin;
  int title_band;               // pixels at the top for the title (and subtitle)
  int column;                   // pixels at the right for the colour bar and its labels
  float bar_x0, bar_x1, bar_y0, bar_y1;  // colour bar, pixels from top left
  std::vector<std::pair<double, std::string>> labels;  // min, max, then nice values between

  int plot_width() const { return width - column > 1 ? width - column : 1; }
  int plot_height() const { return height - title_band > 1 ? height - title_band : 1; }
};

}  // namespace ss
