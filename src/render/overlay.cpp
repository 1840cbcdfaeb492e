#include "render/overlay.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <limits>

#include <glm/geometric.hpp>
#include <glm/gtc/type_ptr.hpp>

#include "gl/check.hpp"
#include "kernels/kernel_source.hpp"
#include "render/font.hpp"
#include "util/error.hpp"

namespace ss {

void Overlay::rect(float x0, float y0, float x1, float y1, glm::vec3 c) { quad(x0, y0, x1, y1, c, 0.0f, 0.0f, 0.0f); }

void Overlay::gradient(float x0, float y0, float x1, float y1, float t_bottom, float t_top) {
  quad(x0, y0, x1, y1, glm::vec3(0.0f), t_top, t_bottom, 1.0f);
}

void Overlay::mapped_triangle(glm::vec2 p0, float t0, glm::vec2 p1, float t1, glm::vec2 p2, float t2) {
  vertices_.insert(vertices_.end(), {OverlayVertex{p0.x, p0.y, 0, 0, 0, 1, t0, 1}, OverlayVertex{p1.x, p1.y, 0, 0, 0, 1, t1, 1},
                                     OverlayVertex{p2.x, p2.y, 0, 0, 0, 1, t2, 1}});
}

void Overlay::flat_triangle(glm::vec2 p0, glm::vec2 p1, glm::vec2 p2, glm::vec3 c) {
  vertices_.insert(vertices_.end(), {OverlayVertex{p0.x, p0.y, c.r, c.g, c.b, 1, 0, 0}, OverlayVertex{p1.x, p1.y, c.r, c.g, c.b, 1, 0, 0},
                                     OverlayVertex{p2.x, p2.y, c.r, c.g, c.b, 1, 0, 0}});
}

void Overlay::line(glm::vec2 a, glm::vec2 b, float width, glm::vec3 c) {
  const glm::vec2 d = b - a;
  const float length = glm::length(d);
  if (!(length > 0.0f)) return;
  const glm::vec2 along = d * (0.5f * width / length), across(-along.y, along.x);
  const glm::vec2 p0 = a - along - across, p1 = a - along + across, p2 = b + along + across, p3 = b + along - across;
  flat_triangle(p0, p1, p2, c);
  flat_triangle(p0, p2, p3, c);
}

void Overlay::text(const std::string& s, float x, float y, int scale, glm::vec3 c) {
  for (std::size_t i = 0; i < s.size(); ++i)
    for (int gy = 0; gy < kGlyphHeight; ++gy)
      for (int gx = 0; gx < kGlyphWidth; ++gx)
        if (glyph_pixel(s[i], gx, gy)) {
          const float px = x + float((int(i) * kGlyphWidth + gx) * scale), py = y + float(gy * scale);
          rect(px, py, px + float(scale), py + float(scale), c);
        }
}

void Overlay::quad(float x0, float y0, float x1, float y1, glm::vec3 c, float t_top, float t_bottom, float mapped) {
  const OverlayVertex v00{x0, y0, c.r, c.g, c.b, 1.0f, t_top, mapped}, v10{x1, y0, c.r, c.g, c.b, 1.0f, t_top, mapped};
  const OverlayVertex v01{x0, y1, c.r, c.g, c.b, 1.0f, t_bottom, mapped}, v11{x1, y1, c.r, c.g, c.b, 1.0f, t_bottom, mapped};
  vertices_.insert(vertices_.end(), {v00, v01, v10, v10, v01, v11});
}

OverlayPainter::OverlayPainter(const std::vector<glm::vec3>& colormap) {
  SS_REQUIRE(colormap.size() >= 2 && colormap.size() <= 64, "a colour map needs 2..64 stops, not " << colormap.size());
  program_ = std::make_unique<Program>("render overlay", shader_file("render_overlay.vert"), shader_file("render_overlay.frag"));
  glUseProgram(program_->id());
  glUniform3fv(program_->uniform("colormap[0]"), GLsizei(colormap.size()), glm::value_ptr(colormap[0]));
  glUniform1i(program_->uniform("colormap_size"), GLint(colormap.size()));

  vao_ = make_vertex_array();
  buffer_ = make_buffer();
  glBindVertexArray(vao_.id());
  glBindBuffer(GL_ARRAY_BUFFER, buffer_.id());
  const struct {
    GLint size;
    std::size_t offset;
  } attributes[] = {{2, offsetof(OverlayVertex, x)}, {4, offsetof(OverlayVertex, r)}, {1, offsetof(OverlayVertex, t)},
                    {1, offsetof(OverlayVertex, mapped)}};
  for (GLuint i = 0; i < 4; ++i) {
    glEnableVertexAttribArray(i);
    glVertexAttribPointer(i, attributes[i].size, GL_FLOAT, GL_FALSE, sizeof(OverlayVertex),
                          reinterpret_cast<void*>(attributes[i].offset));
  }
  glBindVertexArray(0);
  SS_GL_CHECK("creating the overlay painter");
}

void OverlayPainter::draw(const Overlay& overlay, int width, int height) {
  const auto& vertices = overlay.vertices();
  glViewport(0, 0, width, height);
  glDisable(GL_DEPTH_TEST);
  glUseProgram(program_->id());
  glUniform2f(program_->uniform("viewport_size"), float(width), float(height));
  glBindVertexArray(vao_.id());
  glBindBuffer(GL_ARRAY_BUFFER, buffer_.id());
  glBufferData(GL_ARRAY_BUFFER, GLsizeiptr(vertices.size() * sizeof(OverlayVertex)), vertices.data(), GL_STREAM_DRAW);
  glDrawArrays(GL_TRIANGLES, 0, GLsizei(vertices.size()));
}

std::string format_value(double v, int significant) {
  char buffer[32];
  if (v == 0.0) v = 0.0;  // no "-0"
  std::snprintf(buffer, sizeof buffer, "%.*g", significant, v);
  return buffer;
}

std::vector<double> nice_ticks(double lo, double hi, int target) {
  std::vector<double> ticks;
  const double span = hi - lo;
  if (!(span > 0) || !std::isfinite(span)) return ticks;
  const double raw = span / target;
  const double power = std::pow(10.0, std::floor(std::log10(raw)));
  double step = power;
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * power >= raw) {
      step = m * power;
      break;
    }
  for (double k = std::ceil(lo / step); k * step < hi; k += 1.0) {
    const double v = k * step;
    if (v > lo) ticks.push_back(std::abs(v) < 1e-12 * step ? 0.0 : v);
  }
  return ticks;
}

std::pair<double, double> resolve_colour_range(const std::vector<double>& values, double range_min, double range_max) {
  SS_REQUIRE(range_max >= range_min, "colour range max " << range_max << " is below min " << range_min);
  double lo = range_min, hi = range_max;
  if (lo == hi) {
    lo = std::numeric_limits<double>::max();
    hi = -std::numeric_limits<double>::max();
    for (double v : values)
      if (std::isfinite(v)) {
        lo = std::min(lo, v);
        hi = std::max(hi, v);
      }
    if (lo > hi) lo = 0.0, hi = 1.0;  // nothing finite: everything shows "no value"
  }
  if (hi <= lo) {  // a constant field: centre it in a small range so the bar still reads
    const double pad = lo == 0.0 ? 1.0 : 0.01 * std::abs(lo);
    lo -= pad;
    hi += pad;
  }
  return {lo, hi};
}

PictureFrame::PictureFrame(int width_, int height_, double range_min, double range_max, std::string title_,
                           std::string subtitle_)
    : width(width_), height(height_), lo(range_min), hi(range_max), title(std::move(title_)), subtitle(std::move(subtitle_)) {
  labels = {{lo, format_value(lo, 4)}, {hi, format_value(hi, 4)}};
  for (double v : nice_ticks(lo, hi, 5)) labels.push_back({v, format_value(v, 6)});

  scale = std::min(width / 1200.0, height / 900.0);
  label_scale = std::max(1, int(std::lround(2.0 * scale)));
  title_scale = std::max(1, int(std::lround(3.0 * scale)));
  margin = std::max(4, int(std::lround(18 * scale)));
  title_band = title.empty() && subtitle.empty()
                   ? margin
                   : margin + kGlyphHeight * title_scale + (subtitle.empty() ? 0 : kGlyphHeight * label_scale + margin / 2) +
                         margin / 2;
  int label_width = 0;
  for (const auto& label : labels) label_width = std::max(label_width, text_width(label.second, label_scale));
  const int bar_width = std::max(6, int(std::lround(30 * scale)));
  const int tick = std::max(3, int(std::lround(8 * scale)));
  column = margin + bar_width + tick + margin / 2 + label_width + margin;
  bar_x0 = float(width - column + margin);
  bar_x1 = bar_x0 + float(bar_width);
  const float free_top = float(title_band), free_height = float(height - title_band);
  bar_y0 = free_top + 0.16f * free_height;
  bar_y1 = free_top + 0.86f * free_height;
}

void PictureFrame::draw(Overlay& overlay) const {
  const float border = float(std::max(1, label_scale / 2));
  overlay.rect(bar_x0 - border, bar_y0 - border, bar_x1 + border, bar_y1 + border, kTextColour);
  overlay.gradient(bar_x0, bar_y0, bar_x1, bar_y1, 0.0f, 1.0f);
  const float text_height = float(8 * label_scale);  // a digit's rows 1..7 plus spacing
  const float tick = float(std::max(3, int(std::lround(8.0 * scale))));
  for (std::size_t i = 0; i < labels.size(); ++i) {
    const double f = (labels[i].first - lo) / (hi - lo);
    const float y = bar_y1 - float(f) * (bar_y1 - bar_y0);
    if (i >= 2) {  // interior tick: skip when its label would touch the min or max label
      const float to_end = std::min(std::abs(y - bar_y0), std::abs(y - bar_y1));
      if (to_end < 1.6f * text_height) continue;
    }
    overlay.rect(bar_x1, y - border / 2 - 0.5f, bar_x1 + tick, y + border / 2 + 0.5f, kTextColour);
    // Digits occupy font rows 1..7: centre row 4 on the tick.
    overlay.text(labels[i].second, bar_x1 + tick + float(label_scale * 3), y - float(4 * label_scale) - 0.5f * float(label_scale),
                 label_scale, kTextColour);
  }
  // Title centred over the picture, subtitle under it.
  float y = float(margin);
  if (!title.empty()) {
    overlay.text(title, 0.5f * float(width - text_width(title, title_scale)), y, title_scale, kTextColour);
    y += float(kGlyphHeight * title_scale + margin / 2);
  }
  if (!subtitle.empty())
    overlay.text(subtitle, 0.5f * float(width - text_width(subtitle, label_scale)), y, label_scale, glm::vec3(0.35f, 0.35f, 0.38f));
}

}  // namespace ss
