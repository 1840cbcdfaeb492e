#pragma once
// Pictures of a nodal scalar on the boundary surface of a tet mesh: the surface
// coloured through a perceptual colour map with light shading, seen from a three-quarter view
// (camera towards +x, -y, +z of the bounding-box centre, like thesis Fig. 6.4), a colour bar with
// min, max and a few ticks, and a title, drawn by our own GL code. The PNG path renders offscreen
// (4x MSAA, resolved); SurfaceViewer (surface_viewer.hpp) draws the same picture in a window.
#include <string>
#include <vector>

#include <glm/vec3.hpp>

#include "mesh/load_mesh.hpp"
#include "render/png_io.hpp"

namespace ss {

// Where the camera sits, seen from the bounding-box centre. Azimuth about +z from +x (degrees),
// elevation above the xy plane (degrees); zoom 1 fits the whole surface in the picture.
struct ViewAngles {
  double azimuth_deg = -50.0;   // towards +x and -y
  double elevation_deg = 30.0;  // above: towards +z
  double zoom = 1.0;
};

struct RenderOptions {
  int width = 1200, height = 900;  // PNG size in pixels (the window starts at most this size)
  std::string title = "temperature";
  std::string subtitle;             // optional second line under the title (e.g. mesh and case)
  // Colour range; when both are equal (the default) the data's min and max are used.
  double range_min = 0.0, range_max = 0.0;
  std::string colormap = "viridis";  // colormap_names(): viridis, coolwarm
  ViewAngles view;
  bool feature_edges = true;         // dark lines where the surface folds by more than crease_angle
  double crease_angle_deg = 55.0;    // normals are smoothed across smaller folds
  glm::vec3 background{1.0f, 1.0f, 1.0f};
  int samples = 4;                   // MSAA samples (clamped to what the driver offers; <= 1 off)

  bool auto_range() const { return range_min == range_max; }
};

// Renders into an RGBA8 image (rows top first) with the GL context current on this thread; when
// none is current, a headless EGL context is made for the call. Throws ss::Error when
// nodal_values does not have one value per mesh node, the mesh has no boundary, the colour map is
// unknown or the size exceeds the driver's limits.
RgbaImage render_surface_image(const LoadedMesh& mesh, const std::vector<double>& nodal_values,
                               const RenderOptions& options = {});

// render_surface_image() written to png_path as PNG through AtomicFile: the file appears complete or
// not at all (an unwritable directory is an ss::Error before any rendering).
void render_surface_png(const LoadedMesh& mesh, const std::vector<double>& nodal_values, const RenderOptions& options,
                        const std::string& png_path);

}  // namespace ss
