#pragma once
// Pictures of a nodal scalar on a plane through a tet mesh (the flow picture: velocity magnitude on
// a slice): the plane's cut through the mesh coloured through a colour map, seen orthographically
// along the normal, with the boundary outline as dark lines, coordinate ticks on two axes, a colour
// bar and a title. Drawn by the same 2D overlay code as the surface picture's colour bar.
// Given a nodal vector field as well (the velocity), a regular grid of arrows over the slice shows
// the direction of its in-plane part: all arrows one length, white with a dark outline, the
// magnitude left to the colour.
#include <string>
#include <vector>

#include <glm/vec2.hpp>
#include <glm/vec3.hpp>

#include "mesh/load_mesh.hpp"
#include "render/png_io.hpp"
#include "render/slice_arrows.hpp"
#include "render/slice_geometry.hpp"

namespace ss {

struct SliceOptions {
  glm::dvec3 origin{0.0};              // a point on the plane (default_slice_origin() is a good one)
  glm::dvec3 normal{0, 1, 0};          // plane normal (normalized inside; zero is an ss::Error)
  int width = 1200, height = 900;      // PNG size in pixels
  std::string title = "velocity magnitude";
  std::string subtitle;                // optional; the plane ("slice y = 0.5") is always added
  double range_min = 0, range_max = 0; // colour range; equal: the values' range on the slice
  std::string colormap = "viridis";    // colormap_names()
  int samples = 4;                     // MSAA samples (clamped to what the driver offers; <= 1 off)
  int arrows_across = 24;              // with a vector field: arrows along the slice's longer side (0: none)
};

// The bounding-box centre of the mesh's nodes.
glm::dvec3 default_slice_origin(const LoadedMesh& mesh);

// Everything render_slice_image() draws, worked out on the CPU: the plane, its cut, the colour
// range and where plane coordinates land in the picture (pixels from the top-left corner; pixel
// (i, j) covers [i, i+1] x [j, j+1]).
struct SliceLayout {
  SlicePlane plane;
  SliceCut cut;
  double range_min = 0, range_max = 1;
  std::string subtitle;            // the options' subtitle with the plane added
  double pixels_per_unit = 1;
  glm::dvec2 lo_pixel{0.0};        // the pixel position of plane coordinates cut.lo (bottom left)
  std::vector<SliceArrow> arrows;  // slice_arrows() of the cut (none without a vector field)
  double arrow_length = 0;         // pixels from tail to tip, 0.8 of the grid spacing

  glm::dvec2 to_pixel(const glm::dvec2& q) const;
  glm::dvec2 to_plane(const glm::dvec2& pixel) const;
};
// nodal_vectors: empty (no arrows) or one vector per node. Throws ss::Error when the plane misses
// the mesh, sizes mismatch or the options are invalid.
SliceLayout layout_slice(const LoadedMesh& mesh, const std::vector<double>& nodal_values, const SliceOptions& options,
                         const std::vector<glm::dvec3>& nodal_vectors = {});

// Renders with the GL context current on this thread, or a headless EGL one made for the call.
// nodal_values: one value per mesh node (linear in each tet); nodal_vectors: empty or one vector
// per node, drawn as arrows. Throws ss::Error when the plane misses the mesh, sizes mismatch, the
// colour map is unknown or GL limits are exceeded.
RgbaImage render_slice_image(const LoadedMesh& mesh, const std::vector<double>& nodal_values, const SliceOptions& options,
                             const std::vector<glm::dvec3>& nodal_vectors = {});

// render_slice_image() written to png_path through AtomicFile: the file appears complete or not at all.
void render_slice_png(const LoadedMesh& mesh, const std::vector<double>& nodal_values, const SliceOptions& options,
                      const std::string& png_path, const std::vector<glm::dvec3>& nodal_vectors = {});

}  // namespace ss
