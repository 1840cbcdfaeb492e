// The slice picture (src/render/render_slice): a plane's cut through a tet mesh, rendered headless.
#include <gtest/gtest.h>

#include <GL/glew.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <set>
#include <utility>

#include <glm/geometric.hpp>

#include "gl/context.hpp"
#include "support/gl_fixture.hpp"
#include "mesh/load_mesh.hpp"
#include "render/colormap.hpp"
#include "render/png_io.hpp"
#include "render/render_slice.hpp"
#include "util/error.hpp"

namespace fs = std::filesystem;
using namespace ss;

namespace {

const LoadedMesh& cube() {
  static LoadedMesh mesh = load_mesh(SS_SOURCE_DIR "/meshes/cube.msh");
  return mesh;
}

// f = x + 3y + 2z: on y = 0.5 it runs from 1.5 (x = z = 0) to 4.5 (x = z = 1).
double linear(const glm::dvec3& p) { return p.x + 3 * p.y + 2 * p.z; }
std::vector<double> nodal(const LoadedMesh& mesh, double (*f)(const glm::dvec3&)) {
  std::vector<double> values;
  for (const auto& p : mesh.mesh.nodes) values.push_back(f(p));
  return values;
}

SliceOptions y_half(int width = 800, int height = 600) {
  SliceOptions o;
  o.origin = {0.5, 0.5, 0.5};
  o.normal = {0, 1, 0};
  o.width = width;
  o.height = height;
  return o;
}

glm::vec3 rgb(const RgbaImage& image, int x, int y) {
  const auto* p = image.at(x, y);
  return glm::vec3(p[0], p[1], p[2]);
}
glm::vec3 rgb8(glm::vec3 c) { return glm::round(c * 255.0f); }
float max_diff(glm::vec3 a, glm::vec3 b) {
  const glm::vec3 d = glm::abs(a - b);
  return std::max({d.r, d.g, d.b});
}

double area(const SliceCut& cut) {
  double sum = 0;
  for (std::size_t i = 0; i < cut.triangles.size(); i += 3) {
    const glm::dvec2 a = cut.points[cut.triangles[i]], b = cut.points[cut.triangles[i + 1]], c = cut.points[cut.triangles[i + 2]];
    sum += 0.5 * std::abs((b.x - a.x) * (c.y - a.y) - (b.y - a.y) * (c.x - a.x));
  }
  return sum;
}
double outline_length(const SliceCut& cut) {
  double sum = 0;
  for (std::size_t i = 0; i < cut.outline.size(); i += 2) sum += glm::length(cut.outline[i + 1] - cut.outline[i]);
  return sum;
}

struct TempDir {
  fs::path path = fs::temp_directory_path() / ("ss_slice_test_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
  TempDir() {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
  bool empty() const { return fs::is_empty(path); }
};

using SliceTest = test::GlTest;

}  // namespace

TEST(SlicePlane, AxesForAxisAlignedAndOtherNormals) {
  const glm::dvec3 o(0.5);
  for (double s : {1.0, -1.0}) {
    const SlicePlane py = make_slice_plane(o, {0, 2 * s, 0});
    EXPECT_EQ(py.u, glm::dvec3(1, 0, 0));
    EXPECT_EQ(py.v, glm::dvec3(0, 0, 1));
    EXPECT_EQ(py.describe(), "y = 0.5");
    const SlicePlane pz = make_slice_plane(o, {0, 0, s});
    EXPECT_EQ(pz.u, glm::dvec3(1, 0, 0));
    EXPECT_EQ(pz.v, glm::dvec3(0, 1, 0));
    const SlicePlane px = make_slice_plane(o, {s, 0, 0});
    EXPECT_EQ(px.u, glm::dvec3(0, 1, 0));
    EXPECT_EQ(px.v, glm::dvec3(0, 0, 1));
  }
  for (glm::dvec3 n : {glm::dvec3(1, 1, 0), glm::dvec3(0.1, 0.2, 1.0), glm::dvec3(-1, 2, 3)}) {
    const SlicePlane p = make_slice_plane(o, n);
    EXPECT_NEAR(glm::length(p.normal), 1.0, 1e-12);
    EXPECT_NEAR(glm::length(p.u), 1.0, 1e-12);
    EXPECT_NEAR(glm::length(p.v), 1.0, 1e-12);
    EXPECT_NEAR(glm::dot(p.u, p.v), 0.0, 1e-12);
    EXPECT_NEAR(glm::dot(p.u, p.normal), 0.0, 1e-12);
    EXPECT_NEAR(glm::dot(p.v, p.normal), 0.0, 1e-12);
    const glm::dvec3 q = p.to_space(p.to_plane(glm::dvec3(0.3, -0.2, 0.9)));
    EXPECT_NEAR(glm::dot(q - o, p.normal), 0.0, 1e-12) << "to_space lands on the plane";
  }
  EXPECT_THROW(make_slice_plane(o, glm::dvec3(0.0)), Error);
}

// The cut of the unit cube is the unit square, once, at an interior plane and on a boundary face.
TEST(SliceCut, CubeCutIsTheUnitSquare) {
  const auto values = nodal(cube(), linear);
  for (double y : {0.5, 0.0, 1.0, 0.3}) {
    const SliceCut cut = cut_mesh(cube(), values, make_slice_plane({0.2, y, 0.7}, {0, 1, 0}));
    EXPECT_NEAR(area(cut), 1.0, 1e-9) << "y = " << y;
    EXPECT_NEAR(outline_length(cut), 4.0, 1e-9) << "y = " << y;
    EXPECT_NEAR(cut.lo.x, 0.0, 1e-12);
    EXPECT_NEAR(cut.hi.y, 1.0, 1e-12);
    for (std::size_t i = 0; i < cut.points.size(); ++i)
      ASSERT_NEAR(cut.values[i], cut.points[i].x + 3 * y + 2 * cut.points[i].y, 1e-9) << "values interpolate linearly";
  }
  const SliceCut diagonal = cut_mesh(cube(), values, make_slice_plane({0.5, 0.5, 0.5}, {1, 1, 0}));
  EXPECT_NEAR(area(diagonal), std::sqrt(2.0), 1e-9);
}

TEST_F(SliceTest, LinearFieldColoursMatchTheColourMap) {
  const auto values = nodal(cube(), linear);
  const SliceOptions options = y_half();
  const SliceLayout layout = layout_slice(cube(), values, options);
  EXPECT_NEAR(layout.range_min, 1.5, 1e-9);
  EXPECT_NEAR(layout.range_max, 4.5, 1e-9);
  EXPECT_GT(layout.pixels_per_unit, 300) << "the slice fills the picture";
  const RgbaImage image = render_slice_image(cube(), values, options);
  ASSERT_EQ(image.width, 800);
  ASSERT_EQ(image.height, 600);
  for (glm::dvec2 q : {glm::dvec2(0.2, 0.3), glm::dvec2(0.5, 0.5), glm::dvec2(0.8, 0.7), glm::dvec2(0.1, 0.9),
                       glm::dvec2(0.93, 0.06), glm::dvec2(0.6, 0.15)}) {
    const glm::dvec2 px = glm::floor(layout.to_pixel(q));
    const glm::dvec3 at = layout.plane.to_space(layout.to_plane(px + 0.5));  // the pixel's centre
    EXPECT_NEAR(at.y, 0.5, 1e-12);
    const double t = (linear(at) - layout.range_min) / (layout.range_max - layout.range_min);
    const glm::vec3 expected = rgb8(colormap_colour("viridis", t)), got = rgb(image, int(px.x), int(px.y));
    EXPECT_LE(max_diff(got, expected), 3.0f) << "at x = " << at.x << ", z = " << at.z << " (t = " << t << ")";
  }
  // Horizontal is x, vertical is z (up): the low corner is bottom left, the high one top right.
  const glm::dvec2 low = layout.to_pixel({0.02, 0.02}), high = layout.to_pixel({0.98, 0.98});
  EXPECT_LT(low.x, high.x);
  EXPECT_GT(low.y, high.y);
}

TEST_F(SliceTest, FixedRangeClampsAndOutlineIsDrawn) {
  SliceOptions options = y_half();
  options.range_min = 2.0;
  options.range_max = 3.0;
  const auto values = nodal(cube(), linear);
  const SliceLayout layout = layout_slice(cube(), values, options);
  const RgbaImage image = render_slice_image(cube(), values, options);
  auto at = [&](glm::dvec2 q) {
    const glm::dvec2 px = glm::floor(layout.to_pixel(q));
    return rgb(image, int(px.x), int(px.y));
  };
  EXPECT_LE(max_diff(at({0.1, 0.1}), rgb8(colormap_colour("viridis", 0.0))), 3.0f) << "below the range: low end";
  EXPECT_LE(max_diff(at({0.9, 0.9}), rgb8(colormap_colour("viridis", 1.0))), 3.0f) << "above the range: high end";
  // The outline: dark pixels on all four sides of the square (the darkest of the 3 x 3 around the
  // edge point, as a line can fall between two pixels), none a little inside.
  auto darkest = [&](glm::dvec2 q) {
    const glm::dvec2 px = glm::floor(layout.to_pixel(q));
    float least = 255.0f;
    for (int dy = -1; dy <= 1; ++dy)
      for (int dx = -1; dx <= 1; ++dx) {
        const glm::vec3 c = rgb(image, int(px.x) + dx, int(px.y) + dy);
        least = std::min(least, std::max({c.r, c.g, c.b}));
      }
    return least;
  };
  for (glm::dvec2 q : {glm::dvec2(0.5, 0.0), glm::dvec2(0.5, 1.0), glm::dvec2(0.0, 0.4), glm::dvec2(1.0, 0.6)})
    EXPECT_LT(darkest(q), 40.0f) << "outline at (" << q.x << ", " << q.y << ")";
  EXPECT_GT(darkest({0.5, 0.03}), 40.0f) << "no outline inside";
}

TEST_F(SliceTest, PlaneOutsideTheMeshIsAOneLineError) {
  SliceOptions options = y_half();
  options.origin = {0.5, 2.0, 0.5};
  try {
    render_slice_image(cube(), nodal(cube(), linear), options);
    FAIL() << "a plane outside the mesh must throw";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("misses the mesh"), std::string::npos) << what;
    EXPECT_NE(what.find("y = 2"), std::string::npos) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
  }
}

TEST_F(SliceTest, ErrorsLeaveNoFileAndSuccessWritesOne) {
  TempDir dir;
  const std::string png = (dir.path / "flow.png").string();
  const auto values = nodal(cube(), linear);
  SliceOptions outside = y_half();
  outside.normal = {0, 0, 1};
  outside.origin = {0, 0, -1};
  EXPECT_THROW(render_slice_png(cube(), values, outside, png), Error);
  SliceOptions zero = y_half();
  zero.normal = glm::dvec3(0.0);
  EXPECT_THROW(render_slice_png(cube(), values, zero, png), Error);
  EXPECT_THROW(render_slice_png(cube(), std::vector<double>(values.size() - 1, 0.0), y_half(), png), Error);
  EXPECT_THROW(render_slice_png(cube(), values, y_half(), png, std::vector<glm::dvec3>(values.size() + 1)), Error);
  SliceOptions too_big = y_half();
  too_big.width = 1 << 20;
  EXPECT_THROW(render_slice_png(cube(), values, too_big, png), Error);
  SliceOptions bad_map = y_half();
  bad_map.colormap = "nope";
  EXPECT_THROW(render_slice_png(cube(), values, bad_map, png), Error);
  EXPECT_TRUE(dir.empty());
  render_slice_png(cube(), values, y_half(320, 240), png);
  const RgbaImage image = read_png(png);
  EXPECT_EQ(image.width, 320);
  EXPECT_EQ(image.height, 240);
}

// Non-finite values draw grey where they touch and leave the colour range alone; constants still draw.
TEST_F(SliceTest, NonFiniteAndConstantValues) {
  auto values = nodal(cube(), linear);
  for (std::size_t n = 0; n < values.size(); ++n)
    if (std::abs(cube().mesh.nodes[n].y - 0.5) < 0.3 && cube().mesh.nodes[n].x < 0.2) values[n] = std::nan("");
  const SliceLayout layout = layout_slice(cube(), values, y_half());
  EXPECT_TRUE(std::isfinite(layout.range_min) && std::isfinite(layout.range_max));
  const RgbaImage image = render_slice_image(cube(), values, y_half());
  const glm::dvec2 px = glm::floor(layout.to_pixel({0.02, 0.5}));
  EXPECT_LE(max_diff(rgb(image, int(px.x), int(px.y)), glm::vec3(153, 153, 153)), 2.0f) << "no-value grey";
  EXPECT_NO_THROW(render_slice_image(cube(), std::vector<double>(values.size(), 2.0), y_half(320, 240)));
}

// The solver's kernels share the context: rendering must leave the GL state as it found it.
TEST_F(SliceTest, RestoresGlState) {
  glViewport(3, 4, 50, 60);
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  glUseProgram(0);
  render_slice_image(cube(), nodal(cube(), linear), y_half(320, 240));
  GLint viewport[4], framebuffer = -1, program = -1;
  glGetIntegerv(GL_VIEWPORT, viewport);
  glGetIntegerv(GL_DRAW_FRAMEBUFFER_BINDING, &framebuffer);
  glGetIntegerv(GL_CURRENT_PROGRAM, &program);
  EXPECT_EQ(viewport[0], 3);
  EXPECT_EQ(viewport[3], 60);
  EXPECT_EQ(framebuffer, 0);
  EXPECT_EQ(program, 0);
  EXPECT_EQ(glGetError(), GLenum(GL_NO_ERROR));
}

// The example picture: |(-(z - 0.5), 0, x - 0.5)| on the cavity, sliced at y = 0.5, and a tilted
// plane. Written to $SS_RENDER_EXAMPLE_DIR when set (to look at), else only rendered.
TEST_F(SliceTest, SwirlOnTheCavity) {
  const LoadedMesh cavity = load_mesh(SS_SOURCE_DIR "/meshes/cavity.msh");
  const auto swirl = nodal(cavity, [](const glm::dvec3& p) { return std::hypot(p.z - 0.5, p.x - 0.5); });
  SliceOptions options;
  options.origin = default_slice_origin(cavity);
  options.subtitle = "cavity.msh";
  const char* dir = std::getenv("SS_RENDER_EXAMPLE_DIR");
  const RgbaImage image = render_slice_image(cavity, swirl, options);
  EXPECT_EQ(image.width, 1200);
  options.normal = {1, 0.4, 0.6};
  options.colormap = "coolwarm";
  const RgbaImage tilted = render_slice_image(cavity, swirl, options);
  if (dir) {
    write_png(std::string(dir) + "/flow_slice_y.png", image);
    write_png(std::string(dir) + "/flow_slice_tilted.png", tilted);
  }
}

namespace {

// Arrow pixels are white (fill) or near black (outline); the colour maps have neither.
bool arrow_pixel(glm::vec3 c) { return std::max({c.r, c.g, c.b}) < 50.0f || std::min({c.r, c.g, c.b}) > 215.0f; }

// Arrow pixels on a segment across `direction` (pixels, unit) at `offset` pixels along it from `mid`.
int arrow_pixels_across(const RgbaImage& image, glm::dvec2 mid, glm::dvec2 direction, double offset, double half_width) {
  const glm::dvec2 across(-direction.y, direction.x), at = mid + offset * direction;
  std::set<std::pair<int, int>> pixels;  // each pixel once, whatever the slant
  for (double s = -half_width; s <= half_width; s += 0.25) {
    const glm::dvec2 p = glm::floor(at + s * across);
    if (arrow_pixel(rgb(image, int(p.x), int(p.y)))) pixels.insert({int(p.x), int(p.y)});
  }
  return int(pixels.size());
}

// How much wider the arrow drawn around `mid` is towards `direction` (its head) than away from it
// (its shaft): clearly positive when an arrow points that way, clearly negative when it points back.
int head_minus_tail(const RgbaImage& image, glm::dvec2 mid, glm::dvec2 direction, double length) {
  return arrow_pixels_across(image, mid, direction, 0.2 * length, 0.35 * length) -
         arrow_pixels_across(image, mid, direction, -0.2 * length, 0.35 * length);
}

// The arrow grid on the unit square cut of the cube with the default 24 arrows across: spacing
// 1/24, points half a spacing in from the edges.
std::vector<glm::dvec2> cube_grid() {
  std::vector<glm::dvec2> points;
  for (int j = 0; j < 24; ++j)
    for (int i = 0; i < 24; ++i) points.push_back({(i + 0.5) / 24, (j + 0.5) / 24});
  return points;
}

std::vector<glm::dvec3> nodal_vectors(const LoadedMesh& mesh, glm::dvec3 (*f)(const glm::dvec3&)) {
  std::vector<glm::dvec3> vectors;
  for (const auto& p : mesh.mesh.nodes) vectors.push_back(f(p));
  return vectors;
}

}  // namespace

// A uniform field: one arrow at every grid point of the slice, all pointing its in-plane way (the
// component along the normal, y, shows in the colour only); none between the grid points.
TEST_F(SliceTest, ArrowsPointAlongAUniformField) {
  struct Case {
    glm::dvec3 (*field)(const glm::dvec3&);
    glm::dvec2 pixel_direction;  // x right, y down
  };
  const Case cases[] = {{[](const glm::dvec3&) { return glm::dvec3(1, 3, 0); }, {1, 0}},
                        {[](const glm::dvec3&) { return glm::dvec3(-2, 0, 0); }, {-1, 0}},
                        {[](const glm::dvec3&) { return glm::dvec3(0, 0, 0.5); }, {0, -1}},
                        {[](const glm::dvec3&) { return glm::dvec3(1, 0, -1); }, {std::sqrt(0.5), std::sqrt(0.5)}}};
  for (const Case& c : cases) {
    const auto vectors = nodal_vectors(cube(), c.field);
    std::vector<double> speed;
    for (const auto& v : vectors) speed.push_back(glm::length(v));
    const SliceOptions options = y_half(1200, 900);
    const SliceLayout layout = layout_slice(cube(), speed, options, vectors);
    ASSERT_EQ(layout.arrows.size(), 576u) << "24 x 24 arrows";
    ASSERT_GT(layout.arrow_length, 15.0) << "legible at the default size";
    const RgbaImage image = render_slice_image(cube(), speed, options, vectors);
    const double length = layout.arrow_length;
    int failures = 0;
    for (glm::dvec2 q : cube_grid()) {
      const glm::dvec2 mid = layout.to_pixel(q);
      const int along = head_minus_tail(image, mid, c.pixel_direction, length);
      const int back = head_minus_tail(image, mid, -c.pixel_direction, length);
      if (!(along >= 3 && back <= -3) && ++failures == 1)
        ADD_FAILURE() << "arrow at (" << q.x << ", " << q.y << "): head - tail " << along << " forwards, " << back << " backwards";
      // Between four grid points: no arrow.
      const glm::dvec2 between = glm::floor(layout.to_pixel(q + 0.5 / 24));
      if (q.x < 0.9 && q.y < 0.9) {
        EXPECT_FALSE(arrow_pixel(rgb(image, int(between.x), int(between.y))));
      }
    }
    EXPECT_EQ(failures, 0) << "direction (" << c.pixel_direction.x << ", " << c.pixel_direction.y << ")";
  }
}

// A rotation about the slice's centre, (-(z - 0.5), 0, x - 0.5): counter-clockwise as seen (x
// right, z up), so in pixels (x right, y down) the arrow at offset (dx, dz) points (-dz, -dx).
// Without the vectors the same picture has no arrows.
TEST_F(SliceTest, ArrowsFollowARotation) {
  const auto vectors = nodal_vectors(cube(), [](const glm::dvec3& p) { return glm::dvec3(-(p.z - 0.5), 0, p.x - 0.5); });
  std::vector<double> speed;
  for (const auto& v : vectors) speed.push_back(glm::length(v));
  const SliceOptions options = y_half(1200, 900);
  const SliceLayout layout = layout_slice(cube(), speed, options, vectors);
  const RgbaImage image = render_slice_image(cube(), speed, options, vectors);
  const RgbaImage plain = render_slice_image(cube(), speed, options);
  EXPECT_TRUE(layout_slice(cube(), speed, options).arrows.empty());
  int checked = 0;
  for (glm::dvec2 q : cube_grid()) {
    const glm::dvec2 r = q - 0.5;
    if (glm::length(r) < 0.1) continue;
    const glm::dvec2 direction = glm::normalize(glm::dvec2(-r.y, -r.x));
    const glm::dvec2 mid = layout.to_pixel(q);
    EXPECT_GE(head_minus_tail(image, mid, direction, layout.arrow_length), 3) << "at (" << q.x << ", " << q.y << ")";
    EXPECT_LE(head_minus_tail(image, mid, -direction, layout.arrow_length), -3) << "at (" << q.x << ", " << q.y << ")";
    EXPECT_EQ(arrow_pixels_across(plain, mid, direction, 0.0, 0.3 * layout.arrow_length), 0) << "no arrows without vectors";
    ++checked;
  }
  EXPECT_GT(checked, 500);
  if (const char* dir = std::getenv("SS_RENDER_EXAMPLE_DIR")) write_png(std::string(dir) + "/flow_slice_arrows.png", image);
}
