#include "render/surface_renderer.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <glm/geometric.hpp>
#include <glm/gtc/matrix_transform.hpp>
#include <glm/gtc/type_ptr.hpp>

#include "gl/check.hpp"
#include "kernels/kernel_source.hpp"
#include "render/colormap.hpp"
#include "util/error.hpp"

namespace ss {
namespace {

constexpr double kPi = 3.14159265358979323846;

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
  glUseProgram(surface_program_->id());
  glUniform3fv(surface_program_->uniform("colormap[0]"), GLsizei(colormap_.size()), glm::value_ptr(colormap_[0]));
  glUniform1i(surface_program_->uniform("colormap_size"), GLint(colormap_.size()));
  overlay_ = std::make_unique<OverlayPainter>(colormap_);
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

  glBindVertexArray(0);
  msaa_ = std::make_unique<MsaaTarget>(options.samples);
  SS_GL_CHECK("creating the surface renderer");
}

SurfaceRenderer::~SurfaceRenderer() = default;

void SurfaceRenderer::set_values(const std::vector<double>& values) {
  SS_REQUIRE(values.size() == node_count_, "cannot colour the surface: " << values.size() << " values for "
                                                                         << node_count_ << " mesh nodes");
  const auto [lo, hi] = resolve_colour_range(values, options_.range_min, options_.range_max);
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

void SurfaceRenderer::render(GLuint framebuffer, int width, int height, const ViewAngles& view) {
  GlStateGuard guard;
  msaa_->bind(width, height);
  glDisable(GL_BLEND);
  glDisable(GL_CULL_FACE);
  glDisable(GL_DITHER);
  glEnable(GL_MULTISAMPLE);
  glDepthMask(GL_TRUE);
  glClearColor(options_.background.r, options_.background.g, options_.background.b, 1.0f);
  glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);

  // The surface in the region left of the colour bar and below the title.
  const PictureFrame frame(width, height, range_min_, range_max_, options_.title, options_.subtitle);
  const int model_width = frame.plot_width(), model_height = frame.plot_height();
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

  Overlay overlay;
  frame.draw(overlay);
  overlay_->draw(overlay, width, height);
  msaa_->resolve_into(framebuffer);
  SS_GL_CHECK("rendering the surface picture");
}

RgbaImage SurfaceRenderer::render_image(int width, int height, const ViewAngles& view) {
  return read_back_picture(width, height, [&](GLuint framebuffer) { render(framebuffer, width, height, view); });
}

}  // namespace ss
