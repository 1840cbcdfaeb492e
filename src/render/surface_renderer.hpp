#pragma once
// The drawing code shared by the PNG path and the window: the mesh's boundary surface in GL
// buffers, the nodal values mapped to the colour range, and one render() that draws the surface,
// colour bar and text into any framebuffer (an offscreen one or the window's, 0). Needs the GL
// context current; saves and restores the GL state the solver's kernels rely on.
#include <memory>
#include <string>
#include <vector>

#include <GL/glew.h>
#include <glm/mat3x3.hpp>
#include <glm/mat4x4.hpp>
#include <glm/vec3.hpp>

#include "gl/objects.hpp"
#include "kernels/program.hpp"
#include "render/gl_picture.hpp"
#include "render/overlay.hpp"
#include "mesh/load_mesh.hpp"
#include "render/png_io.hpp"
#include "render/render_surface.hpp"

namespace ss {

class SurfaceRenderer {
public:
  SurfaceRenderer(const LoadedMesh& mesh, const RenderOptions& options);
  ~SurfaceRenderer();
  SurfaceRenderer(const SurfaceRenderer&) = delete;
  SurfaceRenderer& operator=(const SurfaceRenderer&) = delete;

  // One value per mesh node; maps them to [0, 1] over the options' range (or the data's min/max).
  void set_values(const std::vector<double>& nodal_values);
  double range_min() const { return range_min_; }
  double range_max() const { return range_max_; }

  // Draws the picture at width x height into `framebuffer` (0: the window's back buffer), through
  // a multisampled framebuffer resolved into it.
  void render(GLuint framebuffer, int width, int height, const ViewAngles& view);
  // Renders offscreen and reads the pixels back (rows top first).
  RgbaImage render_image(int width, int height, const ViewAngles& view);

  std::size_t surface_triangles() const { return corner_nodes_.size() / 3; }

private:
  struct Camera {
    glm::mat4 view_projection;
    glm::mat3 rotation;
  };
  Camera fit_camera(const ViewAngles& view, double aspect) const;

  RenderOptions options_;
  std::vector<glm::vec3> colormap_;
  glm::dvec3 centre_{0.0};                 // bounding-box centre; positions are relative to it
  double radius_ = 1.0;                    // half the bounding-box diagonal
  std::vector<glm::vec3> surface_points_;  // boundary nodes relative to the centre (for fitting)
  std::vector<std::int32_t> corner_nodes_; // mesh node of each surface vertex (3 per triangle)
  std::vector<float> corner_t_;
  std::size_t node_count_ = 0;
  GLsizei edge_vertices_ = 0;
  double range_min_ = 0.0, range_max_ = 1.0;

  std::unique_ptr<Program> surface_program_;
  std::unique_ptr<OverlayPainter> overlay_;
  std::unique_ptr<MsaaTarget> msaa_;
  VertexArrayName surface_vao_, edge_vao_;
  BufferName surface_buffer_, value_buffer_, edge_buffer_;
};

}  // namespace ss
