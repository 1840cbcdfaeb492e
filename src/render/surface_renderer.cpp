#include "render/surface_renderer.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include <glm/geometric.hpp>
#include <glm/gtc/matrix_transform.hpp>
#include <glm/gtc/type_ptr.hpp>

#include "gl/check.hpp"
#include "kernels/kernel_source.hpp"
#include "render/colormap.hpp"
#include "render/font.hpp"
#include "util/error.hpp"

namespace ss {
namespace {

constexpr double kPi = 3.14159265358979323846;

// Saves the GL state render() touches and puts it back, so the solver's kernels (which set their
// own framebuffer, viewport and program per launch and expect blending/depth off) are unaffected.
class GlStateGuard {
public:
  GlStateGuard() {
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
  ~GlStateGuard() {
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
  GlStateGuard(const GlStateGuard&) = delete;
  GlStateGuard& operator=(const GlStateGuard&) = delete;

private:
  static constexpr int kCaps = 6;
  static constexpr GLenum kCapList[kCaps] = {GL_DEPTH_TEST, GL_BLEND,   GL_CULL_FACE,
                                             GL_DITHER,     GL_MULTISAMPLE, GL_POLYGON_OFFSET_FILL};
  GLint draw_framebuffer_ = 0, read_framebuffer_ = 0, renderbuffer_ = 0, viewport_[4] = {0, 0, 0, 0};
  GLint program_ = 0, vertex_array_ = 0, array_buffer_ = 0, pack_alignment_ = 4, depth_func_ = GL_LESS;
  GLfloat clear_colour_[4] = {0, 0, 0, 0};
  GLboolean depth_mask_ = GL_TRUE;
  GLboolean enabled_[kCaps] = {};
};

struct OverlayVertex {
  float x, y;        // pixels, origin top left
  float r, g, b, a;
  float t;           // colour-map coordinate, or -1 for the flat colour
};

class Overlay {
public:
  void rect(float x0, float y0, float x1, float y1, glm::vec3 c) { quad(x0, y0, x1, y1, c, -1.0f, -1.0f); }
  // Vertical gradient through the colour map: t_bottom at y1, t_top at y0.
  void gradient(float x0, float y0, float x1, float y1, float t_bottom, float t_top) {
    quad(x0, y0, x1, y1, glm::vec3(0.0f), t_top, t_bottom);
  }
  // Text with its top-left corner at (x, y), `scale` pixels per font pixel.
  void text(const std::string& s, float x, float y, int scale, glm::vec3 c) {
    for (std::size_t i = 0; i < s.size(); ++i)
      for (int gy = 0; gy < kGlyphHeight; ++gy)
        for (int gx = 0; gx < kGlyphWidth; ++gx)
          if (glyph_pixel(s[i], gx, gy)) {
            const float px = x + float((int(i) * kGlyphWidth + gx) * scale), py = y + float(gy * scale);
            rect(px, py, px + float(scale), py + float(scale), c);
          }
  }
  const std::vector<OverlayVertex>& vertices() const { return vertices_; }

private:
  void quad(float x0, float y0, float x1, float y1, glm::vec3 c, float t_top, float t_bottom) {
    const OverlayVertex v00{x0, y0, c.r, c.g, c.b, 1.0f, t_top}, v10{x1, y0, c.r, c.g, c.b, 1.0f, t_top};
    const OverlayVertex v01{x0, y1, c.r, c.g, c.b, 1.0f, t_bottom}, v11{x1, y1, c.r, c.g, c.b, 1.0f, t_bottom};
    vertices_.insert(vertices_.end(), {v00, v01, v10, v10, v01, v11});
  }
  std::vector<OverlayVertex> vertices_;
};

std::string format_value(double v, int significant) {
  char buffer[32];
  if (v == 0.0) v = 0.0;  // no "-0"
  std::snprintf(buffer, sizeof buffer, "%.*g", significant, v);
  return buffer;
}

// "Nice" tick values (1, 2 or 5 times a power of ten) strictly inside (lo, hi), about `target` many.
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

struct Layout {
  int label_scale, title_scale;
  int title_band;              // pixels at the top for the title (and subtitle)
  int column;                  // pixels at the right for the colour bar and its labels
  float bar_x0, bar_x1, bar_y0, bar_y1;  // colour bar, pixels from top left
};

const glm::vec3 kTextColour(0.12f, 0.12f, 0.14f);

}  // namespace

SurfaceRenderer::SurfaceRenderer(const LoadedMesh& loaded, const RenderOptions& options)
    : options_(options), colormap_(colormap_stops(options.colormap)), node_count_(loaded.mesh.nodes.size()) {
  SS_REQUIRE(colormap_.size() >= 2 && colormap_.size() <= 64, "colour map '" << options.colormap << "' has "
                                                                              << colormap_.size() << " stops (2..64 allowed)");
  SS_REQUIRE(options.range_max >= options.range_min,
             "colour range max " << options.range_max << " is below min " << options.range_min);
  const TetMesh& mesh = loaded.mesh;
  const Topology& topo = loaded.topology;
  SS_REQUIRE(!topo.boundary_faces.empty(), "cannot draw " << (mesh.source.empty() ? "the mesh" : mesh.source)
                                                           << ": it has no boundary faces");
  const std::size_t faces = topo.boundary_faces.size();

  // Bounding box of the surface; positions go to the GPU relative to its centre (float precision).
  glm::dvec3 lo(std::numeric_limits<double>::max()), hi(-std::numeric_limits<double>::max());
  std::vector<std::int32_t> surface_nodes;
  surface_nodes.reserve(faces * 3);
  for (std::int32_t f : topo.boundary_faces)
    for (std::int32_t n : topo.face_nodes[std::size_t(f)]) surface_nodes.push_back(n);
  std::sort(surface_nodes.begin(), surface_nodes.end());
  surface_nodes.erase(std::unique(surface_nodes.begin(), surface_nodes.end()), surface_nodes.end());
  for (std::int32_t n : surface_nodes) {
    lo = glm::min(lo, mesh.nodes[std::size_t(n)]);
    hi = glm::max(hi, mesh.nodes[std::size_t(n)]);
  }
  centre_ = 0.5 * (lo + hi);
  radius_ = std::max(0.5 * glm::length(hi - lo), 1e-30);
  surface_points_.reserve(surface_nodes.size());
  for (std::int32_t n : surface_nodes) surface_points_.push_back(glm::vec3(mesh.nodes[std::size_t(n)] - centre_));

  // Face normals (area weighted: the raw cross product) and the faces around each surface node.
  std::vector<glm::dvec3> face_normal(faces);
  std::vector<std::int32_t> offsets(node_count_ + 1, 0);
  for (std::size_t i = 0; i < faces; ++i) {
    const auto& fn = topo.face_nodes[std::size_t(topo.boundary_faces[i])];
    const glm::dvec3 p0 = mesh.nodes[std::size_t(fn[0])], p1 = mesh.nodes[std::size_t(fn[1])], p2 = mesh.nodes[std::size_t(fn[2])];
    face_normal[i] = glm::cross(p1 - p0, p2 - p0);
    for (std::int32_t n : fn) ++offsets[std::size_t(n) + 1];
  }
  for (std::size_t n = 0; n < node_count_; ++n) offsets[n + 1] += offsets[n];
  std::vector<std::int32_t> node_faces(std::size_t(offsets[node_count_]));
  {
    std::vector<std::int32_t> fill(offsets.begin(), offsets.end() - 1);
    for (std::size_t i = 0; i < faces; ++i)
      for (std::int32_t n : topo.face_nodes[std::size_t(topo.boundary_faces[i])]) node_faces[std::size_t(fill[std::size_t(n)]++)] = std::int32_t(i);
  }
  auto unit = [](const glm::dvec3& v) {
    const double l = glm::length(v);
    return l > 0 ? v / l : glm::dvec3(0.0);
  };
  const double cos_crease = std::cos(options.crease_angle_deg * kPi / 180.0);

  // Vertices: three per triangle, each with the normal averaged over the faces around its node that
  // fold by less than the crease angle against this face (smooth curved parts, sharp edges kept).
  std::vector<float> vertex_data;
  vertex_data.reserve(faces * 3 * 6);
  corner_nodes_.reserve(faces * 3);
  for (std::size_t i = 0; i < faces; ++i) {
    const auto& fn = topo.face_nodes[std::size_t(topo.boundary_faces[i])];
    const glm::dvec3 ni = unit(face_normal[i]);
    for (std::int32_t n : fn) {
      glm::dvec3 sum(0.0);
      for (std::int32_t k = offsets[std::size_t(n)]; k < offsets[std::size_t(n) + 1]; ++k) {
        const glm::dvec3& g = face_normal[std::size_t(node_faces[std::size_t(k)])];
        if (glm::dot(ni, unit(g)) >= cos_crease) sum += g;
      }
      const glm::vec3 p(mesh.nodes[std::size_t(n)] - centre_), normal(glm::length(sum) > 0 ? unit(sum) : ni);
      vertex_data.insert(vertex_data.end(), {p.x, p.y, p.z, normal.x, normal.y, normal.z});
      corner_nodes_.push_back(n);
    }
  }
  corner_t_.assign(corner_nodes_.size(), 0.5f);

  // Feature edges: surface edges whose two faces fold by more than the crease angle, and edges
  // with other than two surface faces (open or non-manifold surfaces).
  std::vector<float> edge_data;
  if (options.feature_edges) {
    std::vector<std::pair<std::uint64_t, std::int32_t>> edges;  // (low << 32 | high, face)
    edges.reserve(faces * 3);
    for (std::size_t i = 0; i < faces; ++i) {
      const auto& fn = topo.face_nodes[std::size_t(topo.boundary_faces[i])];
      for (int e = 0; e < 3; ++e) {
        const std::uint64_t a = std::uint32_t(fn[e]), b = std::uint32_t(fn[(e + 1) % 3]);
        edges.push_back({std::min(a, b) << 32 | std::max(a, b), std::int32_t(i)});
      }
    }
    std::sort(edges.begin(), edges.end());
    for (std::size_t i = 0; i < edges.size();) {
      std::size_t j = i;
      while (j < edges.size() && edges[j].first == edges[i].first) ++j;
      bool feature = j - i != 2;
      if (!feature)
        feature = glm::dot(unit(face_normal[std::size_t(edges[i].second)]), unit(face_normal[std::size_t(edges[i + 1].second)])) < cos_crease;
      if (feature)
        for (std::uint64_t n : {edges[i].first >> 32, edges[i].first & 0xffffffffu}) {
          const glm::vec3 p(mesh.nodes[std::size_t(n)] - centre_);
          edge_data.insert(edge_data.end(), {p.x, p.y, p.z});
        }
      i = j;
    }
  }
  edge_vertices_ = GLsizei(edge_data.size() / 3);

  // GL objects.
  GlStateGuard guard;
  surface_program_ = std::make_unique<Program>("render surface", shader_file("render_surface.vert"),
                                               shader_file("render_surface.frag"));
  overlay_program_ = std::make_unique<Program>("render overlay", shader_file("render_overlay.vert"),
                                               shader_file("render_overlay.frag"));
  for (Program* program : {surface_program_.get(), overlay_program_.get()}) {
    glUseProgram(program->id());
    glUniform3fv(program->uniform("colormap[0]"), GLsizei(colormap_.size()), glm::value_ptr(colormap_[0]));
    glUniform1i(program->uniform("colormap_size"), GLint(colormap_.size()));
  }
  glUseProgram(surface_program_->id());
  glUniform3f(surface_program_->uniform("edge_colour"), 0.08f, 0.08f, 0.10f);
  glUniform3f(surface_program_->uniform("no_value_colour"), 0.6f, 0.6f, 0.6f);

  surface_vao_ = make_vertex_array();
  surface_buffer_ = make_buffer();
  value_buffer_ = make_buffer();
  glBindVertexArray(surface_vao_.id());
  glBindBuffer(GL_ARRAY_BUFFER, surface_buffer_.id());
  glBufferData(GL_ARRAY_BUFFER, GLsizeiptr(vertex_data.size() * sizeof(float)), vertex_data.data(), GL_STATIC_DRAW);
  glEnableVertexAttribArray(0);
  glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, 6 * sizeof(float), nullptr);
  glEnableVertexAttribArray(1);
  glVertexAttribPointer(1, 3, GL_FLOAT, GL_FALSE, 6 * sizeof(float), reinterpret_cast<void*>(3 * sizeof(float)));
  glBindBuffer(GL_ARRAY_BUFFER, value_buffer_.id());
  glBufferData(GL_ARRAY_BUFFER, GLsizeiptr(corner_t_.size() * sizeof(float)), corner_t_.data(), GL_DYNAMIC_DRAW);
  glEnableVertexAttribArray(2);
  glVertexAttribPointer(2, 1, GL_FLOAT, GL_FALSE, sizeof(float), nullptr);

  edge_vao_ = make_vertex_array();
  edge_buffer_ = make_buffer();
  glBindVertexArray(edge_vao_.id());
  glBindBuffer(GL_ARRAY_BUFFER, edge_buffer_.id());
  glBufferData(GL_ARRAY_BUFFER, GLsizeiptr(std::max<std::size_t>(edge_data.size(), 1) * sizeof(float)),
               edge_data.empty() ? nullptr : edge_data.data(), GL_STATIC_DRAW);
  glEnableVertexAttribArray(0);
  glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, 3 * sizeof(float), nullptr);

  overlay_vao_ = make_vertex_array();
  overlay_buffer_ = make_buffer();
  glBindVertexArray(overlay_vao_.id());
  glBindBuffer(GL_ARRAY_BUFFER, overlay_buffer_.id());
  glEnableVertexAttribArray(0);
  glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, sizeof(OverlayVertex), reinterpret_cast<void*>(offsetof(OverlayVertex, x)));
  glEnableVertexAttribArray(1);
  glVertexAttribPointer(1, 4, GL_FLOAT, GL_FALSE, sizeof(OverlayVertex), reinterpret_cast<void*>(offsetof(OverlayVertex, r)));
  glEnableVertexAttribArray(2);
  glVertexAttribPointer(2, 1, GL_FLOAT, GL_FALSE, sizeof(OverlayVertex), reinterpret_cast<void*>(offsetof(OverlayVertex, t)));
  glBindVertexArray(0);

  GLint max_samples = 0;
  glGetIntegerv(GL_MAX_SAMPLES, &max_samples);
  samples_ = std::min(options.samples, int(max_samples));
  if (samples_ <= 1) samples_ = 0;
  SS_GL_CHECK("creating the surface renderer");
}

SurfaceRenderer::~SurfaceRenderer() = default;

void SurfaceRenderer::set_values(const std::vector<double>& values) {
  SS_REQUIRE(values.size() == node_count_, "cannot colour the surface: " << values.size() << " values for "
                                                                         << node_count_ << " mesh nodes");
  double lo = options_.range_min, hi = options_.range_max;
  if (options_.auto_range()) {
    lo = std::numeric_limits<double>::max();
    hi = -std::numeric_limits<double>::max();
    for (double v : values)
      if (std::isfinite(v)) {
        lo = std::min(lo, v);
        hi = std::max(hi, v);
      }
    if (lo > hi) lo = 0.0, hi = 1.0;  // nothing finite: every vertex shows "no value"
  }
  if (hi <= lo) {  // a constant field: centre it in a small range so the bar still reads
    const double pad = lo == 0.0 ? 1.0 : 0.01 * std::abs(lo);
    lo -= pad;
    hi += pad;
  }
  range_min_ = lo;
  range_max_ = hi;
  const double scale = 1.0 / (hi - lo);
  for (std::size_t i = 0; i < corner_nodes_.size(); ++i) {
    const double v = values[std::size_t(corner_nodes_[i])];
    corner_t_[i] = std::isfinite(v) ? float(std::clamp((v - lo) * scale, 0.0, 1.0)) : -1.0f;
  }
  GLint previous = 0;
  glGetIntegerv(GL_ARRAY_BUFFER_BINDING, &previous);
  glBindBuffer(GL_ARRAY_BUFFER, value_buffer_.id());
  glBufferSubData(GL_ARRAY_BUFFER, 0, GLsizeiptr(corner_t_.size() * sizeof(float)), corner_t_.data());
  glBindBuffer(GL_ARRAY_BUFFER, GLuint(previous));
  SS_GL_CHECK("uploading surface values");
}

SurfaceRenderer::Camera SurfaceRenderer::fit_camera(const ViewAngles& view, double aspect) const {
  const double az = view.azimuth_deg * kPi / 180.0;
  const double el = std::clamp(view.elevation_deg, -89.0, 89.0) * kPi / 180.0;
  const glm::vec3 to_eye(float(std::cos(el) * std::cos(az)), float(std::cos(el) * std::sin(az)), float(std::sin(el)));
  const glm::vec3 right = glm::normalize(glm::cross(-to_eye, glm::vec3(0, 0, 1)));
  const glm::vec3 up = glm::cross(right, -to_eye);
  // Tight fit: the projected surface nodes' extent, centred, with a margin.
  float x0 = std::numeric_limits<float>::max(), x1 = -x0, y0 = x0, y1 = -x0;
  for (const glm::vec3& p : surface_points_) {
    const float x = glm::dot(p, right), y = glm::dot(p, up);
    x0 = std::min(x0, x), x1 = std::max(x1, x), y0 = std::min(y0, y), y1 = std::max(y1, y);
  }
  const double half_h = std::max({0.5 * double(y1 - y0), 0.5 * double(x1 - x0) / aspect, 1e-6 * radius_}) * 1.08 /
                        std::max(view.zoom, 1e-3);
  const double half_w = half_h * aspect;
  const double cx = 0.5 * double(x0 + x1), cy = 0.5 * double(y0 + y1);
  Camera camera;
  camera.rotation = glm::transpose(glm::mat3(right, up, to_eye));  // rows: right, up, towards the eye
  const float depth = float(radius_ * 1.05);
  camera.view_projection = glm::ortho(float(cx - half_w), float(cx + half_w), float(cy - half_h), float(cy + half_h),
                                      -depth, depth) *
                           glm::mat4(camera.rotation);
  return camera;
}

void SurfaceRenderer::ensure_msaa_target(int width, int height) {
  if (msaa_framebuffer_ && width == msaa_width_ && height == msaa_height_) return;
  GLint max_size = 0;
  glGetIntegerv(GL_MAX_RENDERBUFFER_SIZE, &max_size);
  SS_REQUIRE(width > 0 && height > 0 && width <= max_size && height <= max_size,
             "picture size " << width << "x" << height << " is outside 1.." << max_size << " (GL_MAX_RENDERBUFFER_SIZE)");
  msaa_colour_ = RenderbufferName();
  msaa_depth_ = RenderbufferName();
  GLuint ids[2] = {0, 0};
  glGenRenderbuffers(2, ids);
  msaa_colour_ = RenderbufferName(ids[0]);
  msaa_depth_ = RenderbufferName(ids[1]);
  glBindRenderbuffer(GL_RENDERBUFFER, msaa_colour_.id());
  glRenderbufferStorageMultisample(GL_RENDERBUFFER, samples_, GL_RGBA8, width, height);
  glBindRenderbuffer(GL_RENDERBUFFER, msaa_depth_.id());
  glRenderbufferStorageMultisample(GL_RENDERBUFFER, samples_, GL_DEPTH_COMPONENT24, width, height);
  if (!msaa_framebuffer_) msaa_framebuffer_ = make_framebuffer();
  glBindFramebuffer(GL_FRAMEBUFFER, msaa_framebuffer_.id());
  glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, msaa_colour_.id());
  glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_RENDERBUFFER, msaa_depth_.id());
  const GLenum status = glCheckFramebufferStatus(GL_FRAMEBUFFER);
  SS_REQUIRE(status == GL_FRAMEBUFFER_COMPLETE, "picture framebuffer " << width << "x" << height << " with " << samples_
                                                                      << " samples is incomplete (status 0x" << std::hex
                                                                      << status << ")");
  msaa_width_ = width;
  msaa_height_ = height;
  SS_GL_CHECK("creating the picture framebuffer");
}

namespace {

Layout make_layout(int width, int height, const RenderOptions& options,
                   const std::vector<std::pair<double, std::string>>& labels) {
  Layout l;
  const double s = std::min(width / 1200.0, height / 900.0);
  l.label_scale = std::max(1, int(std::lround(2.0 * s)));
  l.title_scale = std::max(1, int(std::lround(3.0 * s)));
  const int margin = std::max(4, int(std::lround(18 * s)));
  l.title_band = options.title.empty() && options.subtitle.empty()
                     ? margin
                     : margin + kGlyphHeight * l.title_scale +
                           (options.subtitle.empty() ? 0 : kGlyphHeight * l.label_scale + margin / 2) + margin / 2;
  int label_width = 0;
  for (const auto& label : labels) label_width = std::max(label_width, text_width(label.second, l.label_scale));
  const int bar_width = std::max(6, int(std::lround(30 * s)));
  const int tick = std::max(3, int(std::lround(8 * s)));
  l.column = margin + bar_width + tick + margin / 2 + label_width + margin;
  l.bar_x0 = float(width - l.column + margin);
  l.bar_x1 = l.bar_x0 + float(bar_width);
  const float free_top = float(l.title_band), free_height = float(height - l.title_band);
  l.bar_y0 = free_top + 0.16f * free_height;
  l.bar_y1 = free_top + 0.86f * free_height;
  return l;
}

// Colour-bar labels: min and max at the ends of the bar, nice values between them.
std::vector<std::pair<double, std::string>> bar_labels(double lo, double hi) {
  std::vector<std::pair<double, std::string>> labels = {{lo, format_value(lo, 4)}, {hi, format_value(hi, 4)}};
  for (double v : nice_ticks(lo, hi, 5)) labels.push_back({v, format_value(v, 6)});
  return labels;
}

}  // namespace

void SurfaceRenderer::draw_overlay(int width, int height) {
  const double lo = range_min_, hi = range_max_;
  const auto labels = bar_labels(lo, hi);
  const Layout l = make_layout(width, height, options_, labels);

  Overlay overlay;
  const float border = float(std::max(1, l.label_scale / 2));
  overlay.rect(l.bar_x0 - border, l.bar_y0 - border, l.bar_x1 + border, l.bar_y1 + border, kTextColour);
  overlay.gradient(l.bar_x0, l.bar_y0, l.bar_x1, l.bar_y1, 0.0f, 1.0f);
  const float text_height = float(8 * l.label_scale);  // a digit's rows 1..7 plus spacing
  const float tick = float(std::max(3, int(std::lround(8.0 * std::min(width / 1200.0, height / 900.0)))));
  for (std::size_t i = 0; i < labels.size(); ++i) {
    const double f = (labels[i].first - lo) / (hi - lo);
    const float y = l.bar_y1 - float(f) * (l.bar_y1 - l.bar_y0);
    if (i >= 2) {  // interior tick: skip when its label would touch the min or max label
      const float to_end = std::min(std::abs(y - l.bar_y0), std::abs(y - l.bar_y1));
      if (to_end < 1.6f * text_height) continue;
    }
    overlay.rect(l.bar_x1, y - border / 2 - 0.5f, l.bar_x1 + tick, y + border / 2 + 0.5f, kTextColour);
    // Digits occupy font rows 1..7: centre row 4 on the tick.
    overlay.text(labels[i].second, l.bar_x1 + tick + float(l.label_scale * 3), y - float(4 * l.label_scale) - 0.5f * float(l.label_scale),
                 l.label_scale, kTextColour);
  }
  // Title centred over the picture, subtitle under it.
  const int margin = std::max(4, int(std::lround(18 * std::min(width / 1200.0, height / 900.0))));
  float y = float(margin);
  if (!options_.title.empty()) {
    overlay.text(options_.title, 0.5f * float(width - text_width(options_.title, l.title_scale)), y, l.title_scale,
                 kTextColour);
    y += float(kGlyphHeight * l.title_scale + margin / 2);
  }
  if (!options_.subtitle.empty())
    overlay.text(options_.subtitle, 0.5f * float(width - text_width(options_.subtitle, l.label_scale)), y,
                 l.label_scale, glm::vec3(0.35f, 0.35f, 0.38f));

  const auto& vertices = overlay.vertices();
  glViewport(0, 0, width, height);
  glDisable(GL_DEPTH_TEST);
  glUseProgram(overlay_program_->id());
  glUniform2f(overlay_program_->uniform("viewport_size"), float(width), float(height));
  glBindVertexArray(overlay_vao_.id());
  glBindBuffer(GL_ARRAY_BUFFER, overlay_buffer_.id());
  glBufferData(GL_ARRAY_BUFFER, GLsizeiptr(vertices.size() * sizeof(OverlayVertex)), vertices.data(), GL_STREAM_DRAW);
  glDrawArrays(GL_TRIANGLES, 0, GLsizei(vertices.size()));
}

void SurfaceRenderer::render(GLuint framebuffer, int width, int height, const ViewAngles& view) {
  GlStateGuard guard;
  ensure_msaa_target(width, height);
  glBindFramebuffer(GL_FRAMEBUFFER, msaa_framebuffer_.id());
  glViewport(0, 0, width, height);
  glDisable(GL_BLEND);
  glDisable(GL_CULL_FACE);
  glDisable(GL_DITHER);
  glEnable(GL_MULTISAMPLE);
  glDepthMask(GL_TRUE);
  glClearColor(options_.background.r, options_.background.g, options_.background.b, 1.0f);
  glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);

  // The surface in the region left of the colour bar and below the title.
  const Layout l = make_layout(width, height, options_, bar_labels(range_min_, range_max_));
  const int model_width = std::max(1, width - l.column), model_height = std::max(1, height - l.title_band);
  glViewport(0, 0, model_width, model_height);
  const Camera camera = fit_camera(view, double(model_width) / double(model_height));
  glEnable(GL_DEPTH_TEST);
  glDepthFunc(GL_LEQUAL);
  glEnable(GL_POLYGON_OFFSET_FILL);
  glPolygonOffset(1.0f, 1.0f);  // surface slightly behind its feature edges
  glUseProgram(surface_program_->id());
  glUniformMatrix4fv(surface_program_->uniform("view_projection"), 1, GL_FALSE, glm::value_ptr(camera.view_projection));
  glUniformMatrix3fv(surface_program_->uniform("view_rotation"), 1, GL_FALSE, glm::value_ptr(camera.rotation));
  glUniform1i(surface_program_->uniform("mode"), 0);
  glBindVertexArray(surface_vao_.id());
  glDrawArrays(GL_TRIANGLES, 0, GLsizei(corner_nodes_.size()));
  glDisable(GL_POLYGON_OFFSET_FILL);
  if (edge_vertices_ > 0) {
    glUniform1i(surface_program_->uniform("mode"), 1);
    glBindVertexArray(edge_vao_.id());
    glDrawArrays(GL_LINES, 0, edge_vertices_);
  }

  draw_overlay(width, height);

  glBindFramebuffer(GL_READ_FRAMEBUFFER, msaa_framebuffer_.id());
  glBindFramebuffer(GL_DRAW_FRAMEBUFFER, framebuffer);
  glBlitFramebuffer(0, 0, width, height, 0, 0, width, height, GL_COLOR_BUFFER_BIT, GL_NEAREST);
  SS_GL_CHECK("rendering the surface picture");
}

RgbaImage SurfaceRenderer::render_image(int width, int height, const ViewAngles& view) {
  GlStateGuard guard;
  ensure_msaa_target(width, height);  // checks the size before anything else is made
  GLuint id = 0;
  glGenRenderbuffers(1, &id);
  RenderbufferName colour(id);
  glBindRenderbuffer(GL_RENDERBUFFER, colour.id());
  glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, width, height);
  FramebufferName resolve = make_framebuffer();
  glBindFramebuffer(GL_FRAMEBUFFER, resolve.id());
  glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, colour.id());
  SS_REQUIRE(glCheckFramebufferStatus(GL_FRAMEBUFFER) == GL_FRAMEBUFFER_COMPLETE, "picture resolve framebuffer is incomplete");
  render(resolve.id(), width, height, view);

  RgbaImage image;
  image.width = width;
  image.height = height;
  image.pixels.resize(std::size_t(width) * std::size_t(height) * 4);
  std::vector<std::uint8_t> bottom_up(image.pixels.size());
  glBindFramebuffer(GL_READ_FRAMEBUFFER, resolve.id());
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadPixels(0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE, bottom_up.data());
  SS_GL_CHECK("reading the surface picture back");
  const std::size_t row = std::size_t(width) * 4;
  for (int y = 0; y < height; ++y)
    std::copy_n(bottom_up.data() + std::size_t(height - 1 - y) * row, row, image.pixels.data() + std::size_t(y) * row);
  return image;
}

}  // namespace ss
