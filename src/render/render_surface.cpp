#include "render/render_surface.hpp"

#include <memory>

#include "gl/context.hpp"
#include "render/gl_picture.hpp"
#include "render/png_io.hpp"
#include "render/surface_renderer.hpp"
#include "util/atomic_file.hpp"
#include "util/error.hpp"

namespace ss {

RgbaImage render_surface_image(const LoadedMesh& mesh, const std::vector<double>& nodal_values,
                               const RenderOptions& options) {
  SS_REQUIRE(nodal_values.size() == mesh.mesh.nodes.size(), "cannot draw the surface: " << nodal_values.size()
                                                              << " values for " << mesh.mesh.nodes.size() << " mesh nodes");
  std::unique_ptr<GlContext> own_context;
  if (!gl_context_current()) own_context = std::make_unique<GlContext>();
  SurfaceRenderer renderer(mesh, options);
  renderer.set_values(nodal_values);
  return renderer.render_image(options.width, options.height, options.view);
}

void render_surface_png(const LoadedMesh& mesh, const std::vector<double>& nodal_values, const RenderOptions& options,
                        const std::string& png_path) {
  if (is_periodic(mesh.mesh)) {  // drawn unfolded: every tet in its place
    std::vector<NodeId> node;
    const LoadedMesh unfolded = prepare_unfolded(mesh.mesh, node);
    render_surface_png(unfolded, on_unfolded_points(nodal_values, node), options, png_path);
    return;
  }
  AtomicFile file(png_path);  // an unwritable destination fails here, before any rendering
  write_png(file.stream(), render_surface_image(mesh, nodal_values, options), png_path);
  file.commit();  // on any exception above the temporary is removed and png_path left untouched
}

}  // namespace ss
