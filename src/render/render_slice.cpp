#include "render/render_slice.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <tuple>

#include <glm/common.hpp>
#include <glm/geometric.hpp>

#include "gl/check.hpp"
#include "gl/context.hpp"
#include "render/colormap.hpp"
#include "render/font.hpp"
#include "render/gl_picture.hpp"
#include "render/overlay.hpp"
#include "util/atomic_file.hpp"
#include "util/error.hpp"

namespace ss {
namespace {

const glm::vec3 kOutlineColour(0.08f, 0.08f, 0.10f);
const glm::vec3 kNoValueColour(0.6f, 0.6f, 0.6f);
const glm::vec3 kArrowColour(1.0f, 1.0f, 1.0f);

// Coordinate ticks between lo and hi (the ends count) about `spacing` pixels apart, 2 to 6 of them.
std::vector<double> axis_ticks(double lo, double hi, double pixel_length, double spacing) {
  const double eps = 1e-9 * (hi - lo);
  const int target = int(std::clamp(pixel_length / spacing, 2.0, 6.0));
  return nice_ticks(lo - eps, hi + eps, target);
}

// The coordinate axes under and left of the slice: the pixels they need around the plot (labels
// are `label_scale` font pixels) and their ticks once the scale is known.
struct Axes {
  float gap, tick, text_height;
  float left, bottom, top, right;  // pixels kept free around the slice inside the plot area
  double u_spacing, v_spacing;     // least pixels between ticks

  Axes(const PictureFrame& frame, const SliceCut& cut) {
    gap = float(std::max(3, int(std::lround(10 * frame.scale))));
    tick = float(std::max(3, int(std::lround(7 * frame.scale))));
    text_height = float(8 * frame.label_scale);
    u_spacing = 90.0 * frame.scale;
    v_spacing = 60.0 * frame.scale;
    int label_width = 0;  // the widest v label the densest ticks could have
    for (double v : axis_ticks(cut.lo.y, cut.hi.y, 1e9, 1.0))
      label_width = std::max(label_width, text_width(format_value(v, 4), frame.label_scale));
    left = float(frame.margin) + float(label_width) + gap / 2 + tick + gap;
    bottom = gap + tick + gap / 2 + text_height + gap + text_height + float(frame.margin);
    top = gap + text_height + gap;  // the vertical axis' name sits above it
    right = float(frame.margin);
  }
};

std::string with_plane(const std::string& subtitle, const SlicePlane& plane) {
  const std::string where = "slice " + plane.describe();
  return subtitle.empty() ? where : subtitle + "  -  " + where;
}

void draw_slice(const SliceLayout& layout, const PictureFrame& frame, const Axes& axes, Overlay& overlay) {
  const SliceCut& cut = layout.cut;
  auto pixel = [&](const glm::dvec2& q) { return glm::vec2(layout.to_pixel(q)); };

  // The cut, coloured through the map (t outside [0, 1] is clamped per fragment, so a fixed range
  // narrower than the data stays exact); polygons touching a non-finite value are grey.
  const double scale = 1.0 / (layout.range_max - layout.range_min);
  for (std::size_t i = 0; i < cut.triangles.size(); i += 3) {
    const std::uint32_t a = cut.triangles[i], b = cut.triangles[i + 1], c = cut.triangles[i + 2];
    const double va = cut.values[a], vb = cut.values[b], vc = cut.values[c];
    if (std::isfinite(va) && std::isfinite(vb) && std::isfinite(vc))
      overlay.mapped_triangle(pixel(cut.points[a]), float((va - layout.range_min) * scale), pixel(cut.points[b]),
                              float((vb - layout.range_min) * scale), pixel(cut.points[c]), float((vc - layout.range_min) * scale));
    else
      overlay.flat_triangle(pixel(cut.points[a]), pixel(cut.points[b]), pixel(cut.points[c]), kNoValueColour);
  }
  const float outline_width = std::max(2.0f, float(2.5 * frame.scale));  // >= 2: always covers whole pixels
  for (std::size_t i = 0; i < cut.outline.size(); i += 2)
    overlay.line(pixel(cut.outline[i]), pixel(cut.outline[i + 1]), outline_width, kOutlineColour);

  // Axes: a line under and one left of the slice's bounding box, with ticks and labels.
  const float axis_width = float(std::max(1, frame.label_scale / 2));
  const glm::vec2 lo = pixel(cut.lo), hi = pixel(cut.hi);  // bottom-left and top-right corners
  const float ls = float(frame.label_scale);
  const float axis_y = lo.y + axes.gap, axis_x = lo.x - axes.gap;
  overlay.line({lo.x, axis_y}, {hi.x, axis_y}, axis_width, kTextColour);
  overlay.line({axis_x, lo.y}, {axis_x, hi.y}, axis_width, kTextColour);
  for (double u : axis_ticks(cut.lo.x, cut.hi.x, double(hi.x - lo.x), axes.u_spacing)) {
    const float x = pixel({u, cut.lo.y}).x;
    const std::string label = format_value(u, 4);
    overlay.line({x, axis_y}, {x, axis_y + axes.tick}, axis_width, kTextColour);
    overlay.text(label, x - 0.5f * float(text_width(label, frame.label_scale)), axis_y + axes.tick + axes.gap / 2 - ls,
                 frame.label_scale, kTextColour);
  }
  for (double v : axis_ticks(cut.lo.y, cut.hi.y, double(lo.y - hi.y), axes.v_spacing)) {
    const float y = pixel({cut.lo.x, v}).y;
    const std::string label = format_value(v, 4);
    overlay.line({axis_x - axes.tick, y}, {axis_x, y}, axis_width, kTextColour);
    // Digits occupy font rows 1..7: centre row 4 on the tick.
    overlay.text(label, axis_x - axes.tick - axes.gap / 2 - float(text_width(label, frame.label_scale)), y - 4.5f * ls,
                 frame.label_scale, kTextColour);
  }
  const std::string& u_name = layout.plane.u_name;
  overlay.text(u_name, 0.5f * (lo.x + hi.x - float(text_width(u_name, frame.label_scale))),
               axis_y + axes.tick + axes.gap / 2 + axes.text_height + axes.gap - ls, frame.label_scale, kTextColour);
  const std::string& v_name = layout.plane.v_name;
  overlay.text(v_name, std::max(2.0f, axis_x - 0.5f * float(text_width(v_name, frame.label_scale))),
               hi.y - axes.gap - axes.text_height - ls, frame.label_scale, kTextColour);
}

// The arrows: each centred on its grid point, a shaft and a triangular head, first all their dark
// outlines (the shapes grown by `rim` pixels), then the white fills on top.
void draw_arrows(const SliceLayout& layout, const PictureFrame& frame, Overlay& overlay) {
  const float length = float(layout.arrow_length);
  const float rim = std::max(1.0f, float(1.2 * frame.scale));
  const float shaft = std::max(1.5f, 0.08f * length), head = 0.38f * length, half_head = 0.24f * length;
  for (const glm::vec3& colour : {kOutlineColour, kArrowColour}) {
    const float grow = colour == kOutlineColour ? rim : 0.0f;
    for (const SliceArrow& a : layout.arrows) {
      const glm::vec2 mid(layout.to_pixel(a.at));
      const glm::vec2 d(float(a.direction.x), -float(a.direction.y));  // pixel rows grow downwards
      const glm::vec2 across(-d.y, d.x);
      const glm::vec2 tail = mid - 0.5f * length * d, tip = mid + 0.5f * length * d, base = tip - head * d;
      overlay.line(tail, base + 0.5f * shaft * d, shaft + 2 * grow, colour);
      // The head grown by `grow` pixels: scaled about its incentre by (r + grow) / r.
      glm::vec2 corners[3] = {tip, base + half_head * across, base - half_head * across};
      const float sa = glm::length(corners[1] - corners[2]), sb = glm::length(corners[0] - corners[2]),
                  sc = glm::length(corners[0] - corners[1]);
      const glm::vec2 incentre = (sa * corners[0] + sb * corners[1] + sc * corners[2]) / (sa + sb + sc);
      const float r = head * half_head / (0.5f * (sa + sb + sc));  // area / semi-perimeter
      for (glm::vec2& p : corners) p = incentre + (p - incentre) * ((r + grow) / r);
      overlay.flat_triangle(corners[0], corners[1], corners[2], colour);
    }
  }
}

}  // namespace

glm::dvec3 default_slice_origin(const LoadedMesh& mesh) {
  SS_REQUIRE(!mesh.mesh.nodes.empty(), "cannot place a slice in an empty mesh");
  glm::dvec3 lo(std::numeric_limits<double>::max()), hi(-std::numeric_limits<double>::max());
  for (const glm::dvec3& p : mesh.mesh.nodes) lo = glm::min(lo, p), hi = glm::max(hi, p);
  return 0.5 * (lo + hi);
}

glm::dvec2 SliceLayout::to_pixel(const glm::dvec2& q) const {
  return {lo_pixel.x + (q.x - cut.lo.x) * pixels_per_unit, lo_pixel.y - (q.y - cut.lo.y) * pixels_per_unit};
}

glm::dvec2 SliceLayout::to_plane(const glm::dvec2& pixel) const {
  return {cut.lo.x + (pixel.x - lo_pixel.x) / pixels_per_unit, cut.lo.y - (pixel.y - lo_pixel.y) / pixels_per_unit};
}

SliceLayout layout_slice(const LoadedMesh& mesh, const std::vector<double>& nodal_values, const SliceOptions& options,
                         const std::vector<glm::dvec3>& nodal_vectors) {
  SS_REQUIRE(options.width > 0 && options.height > 0, "picture size " << options.width << "x" << options.height << " is not positive");
  colormap_stops(options.colormap);  // an unknown name is an error before any work
  SliceLayout layout;
  layout.plane = make_slice_plane(options.origin, options.normal);
  layout.cut = cut_mesh(mesh, nodal_values, layout.plane, nodal_vectors);
  std::tie(layout.range_min, layout.range_max) = resolve_colour_range(layout.cut.values, options.range_min, options.range_max);
  layout.subtitle = with_plane(options.subtitle, layout.plane);

  // Fit the cut's bounding box, equal scale on both axes, centred in the plot area left free by
  // the title, colour bar and axes.
  const PictureFrame frame(options.width, options.height, layout.range_min, layout.range_max, options.title, layout.subtitle);
  const Axes axes(frame, layout.cut);
  const double free_w = std::max(1.0, double(frame.plot_width()) - axes.left - axes.right);
  const double free_h = std::max(1.0, double(frame.plot_height()) - axes.top - axes.bottom);
  const glm::dvec2 span = glm::max(layout.cut.hi - layout.cut.lo, glm::dvec2(1e-300));
  layout.pixels_per_unit = std::min(free_w / span.x, free_h / span.y);
  const glm::dvec2 used = span * layout.pixels_per_unit;
  layout.lo_pixel = {axes.left + 0.5 * (free_w - used.x), double(frame.title_band) + axes.top + 0.5 * (free_h + used.y)};
  layout.arrows = slice_arrows(layout.cut, options.arrows_across);
  layout.arrow_length = 0.8 * slice_arrow_spacing(layout.cut, options.arrows_across) * layout.pixels_per_unit;
  return layout;
}

RgbaImage render_slice_image(const LoadedMesh& mesh, const std::vector<double>& nodal_values, const SliceOptions& options,
                             const std::vector<glm::dvec3>& nodal_vectors) {
  const SliceLayout layout = layout_slice(mesh, nodal_values, options, nodal_vectors);
  const PictureFrame frame(options.width, options.height, layout.range_min, layout.range_max, options.title, layout.subtitle);
  Overlay overlay;
  draw_slice(layout, frame, Axes(frame, layout.cut), overlay);
  draw_arrows(layout, frame, overlay);
  frame.draw(overlay);

  std::unique_ptr<GlContext> own_context;
  if (!gl_context_current()) own_context = std::make_unique<GlContext>();
  return read_back_picture(options.width, options.height, [&](GLuint framebuffer) {
    OverlayPainter painter(colormap_stops(options.colormap));
    MsaaTarget msaa(options.samples);
    msaa.bind(options.width, options.height);
    glDisable(GL_BLEND);
    glDisable(GL_CULL_FACE);
    glDisable(GL_DITHER);
    glEnable(GL_MULTISAMPLE);
    glClearColor(1.0f, 1.0f, 1.0f, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT);
    painter.draw(overlay, options.width, options.height);
    msaa.resolve_into(framebuffer);
    SS_GL_CHECK("rendering the slice picture");
  });
}

void render_slice_png(const LoadedMesh& mesh, const std::vector<double>& nodal_values, const SliceOptions& options,
                      const std::string& png_path, const std::vector<glm::dvec3>& nodal_vectors) {
  if (is_periodic(mesh.mesh)) {  // drawn unfolded: every tet in its place
    std::vector<NodeId> node;
    const LoadedMesh unfolded = prepare_unfolded(mesh.mesh, node);
    render_slice_png(unfolded, on_unfolded_points(nodal_values, node), options, png_path,
                     nodal_vectors.empty() ? nodal_vectors : on_unfolded_points(nodal_vectors, node));
    return;
  }
  AtomicFile file(png_path);  // an unwritable destination fails here, before any rendering
  write_png(file.stream(), render_slice_image(mesh, nodal_values, options, nodal_vectors), png_path);
  file.commit();  // on any exception above the temporary is removed and png_path left untouched
}

}  // namespace ss
