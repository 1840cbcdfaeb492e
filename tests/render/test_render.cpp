// The PNG picture of a nodal field (src/render), rendered headless and read back with libpng.
#include <gtest/gtest.h>

#include <GL/glew.h>

#include <cmath>
#include <glm/geometric.hpp>
#include <filesystem>
#include <fstream>
#include <memory>

#include "gl/context.hpp"
#include "support/gl_fixture.hpp"
#include "mesh/box_mesh.hpp"
#include "mesh/load_mesh.hpp"
#include "render/colormap.hpp"
#include "render/font.hpp"
#include "render/png_io.hpp"
#include "render/render_surface.hpp"
#include "util/error.hpp"

namespace fs = std::filesystem;
using namespace ss;

namespace {

const LoadedMesh& box() {
  static LoadedMesh mesh = prepare_mesh(make_box_mesh(8, 8, 8));
  return mesh;
}

std::vector<double> t_equals_x(const LoadedMesh& mesh) {
  std::vector<double> t;
  for (const auto& p : mesh.mesh.nodes) t.push_back(p.x);
  return t;
}

struct TempDir {
  fs::path path;
  TempDir() {
    path = fs::temp_directory_path() / ("ss_render_test_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
                                        "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
  std::vector<std::string> entries() const {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(path)) names.push_back(e.path().filename().string());
    return names;
  }
};

glm::vec3 rgb(const RgbaImage& image, int x, int y) {
  const auto* p = image.at(x, y);
  return glm::vec3(p[0], p[1], p[2]);
}
glm::vec3 rgb8(glm::vec3 c) { return glm::vec3(std::round(c.r * 255), std::round(c.g * 255), std::round(c.b * 255)); }
bool near(glm::vec3 a, glm::vec3 b, float tolerance) {
  return std::abs(a.r - b.r) <= tolerance && std::abs(a.g - b.g) <= tolerance && std::abs(a.b - b.b) <= tolerance;
}
// Cosine similarity of two colours: independent of the shading's brightness factor.
float similarity(glm::vec3 a, glm::vec3 b) {
  const float la = glm::length(a), lb = glm::length(b);
  return la > 0 && lb > 0 ? glm::dot(a, b) / (la * lb) : 0.0f;
}

using RenderTest = test::GlTest;

}  // namespace

TEST(Colormap, EndsAndNames) {
  EXPECT_TRUE(near(rgb8(colormap_colour("viridis", 0.0)), glm::vec3(68, 1, 84), 0.5f));
  EXPECT_TRUE(near(rgb8(colormap_colour("viridis", 1.0)), glm::vec3(253, 231, 37), 0.5f));
  EXPECT_TRUE(near(rgb8(colormap_colour("viridis", -3.0)), glm::vec3(68, 1, 84), 0.5f));  // clamped
  EXPECT_TRUE(near(rgb8(colormap_colour("coolwarm", 0.5)), glm::vec3(221, 221, 221), 0.5f));
  try {
    colormap_stops("rainbow");
    FAIL() << "an unknown colour map must throw";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("viridis"), std::string::npos) << e.what();
  }
}

TEST(Font, GlyphsForLabelsAndTitles) {
  for (char c : std::string("0123456789.-+e()temperaturTK")) {
    int lit = 0;
    for (int y = 0; y < kGlyphHeight; ++y)
      for (int x = 0; x < kGlyphWidth; ++x) lit += glyph_pixel(c, x, y);
    EXPECT_GT(lit, 1) << "glyph '" << c << "'";
    for (int y = 0; y < kGlyphHeight; ++y) EXPECT_FALSE(glyph_pixel(c, kGlyphWidth - 1, y)) << "spacing column of '" << c << "'";
  }
  EXPECT_EQ(text_width("1.5e+03", 2), 7 * kGlyphWidth * 2);
}

// T = x on a box, default view (camera towards +x, -y, +z): checks the picture's size, the
// background around the object, the colour bar's ends and the direction of the colouring.
TEST_F(RenderTest, BoxWithTEqualsXReadsBack) {
  TempDir dir;
  const std::string png = (dir.path / "box.png").string();
  RenderOptions options;
  options.width = 800;
  options.height = 600;
  render_surface_png(box(), t_equals_x(box()), options, png);
  ASSERT_EQ(dir.entries(), std::vector<std::string>{"box.png"}) << "no temporary left behind";
  const RgbaImage image = read_png(png);
  ASSERT_EQ(image.width, 800);
  ASSERT_EQ(image.height, 600);
  const glm::vec3 background(255, 255, 255);

  // Background all round the picture's border.
  for (int x = 0; x < image.width; ++x)
    for (int y : {0, 1, image.height - 2, image.height - 1}) ASSERT_TRUE(near(rgb(image, x, y), background, 0)) << x << "," << y;
  for (int y = 0; y < image.height; ++y)
    for (int x : {0, 1, image.width - 2, image.width - 1}) ASSERT_TRUE(near(rgb(image, x, y), background, 0)) << x << "," << y;

  // Colour bar: exact first and last colours of the map on the right of the picture, low at the
  // bottom, high at the top.
  const glm::vec3 low = rgb8(colormap_colour("viridis", 0.0)), high = rgb8(colormap_colour("viridis", 1.0));
  double low_y = 0, high_y = 0;
  int low_count = 0, high_count = 0, bar_x0 = image.width;
  for (int y = 0; y < image.height; ++y)
    for (int x = image.width * 3 / 4; x < image.width; ++x) {
      if (near(rgb(image, x, y), low, 3)) low_y += y, ++low_count, bar_x0 = std::min(bar_x0, x);
      if (near(rgb(image, x, y), high, 3)) high_y += y, ++high_count, bar_x0 = std::min(bar_x0, x);
    }
  ASSERT_GT(low_count, 20) << "no low end of the colour bar";
  ASSERT_GT(high_count, 20) << "no high end of the colour bar";
  EXPECT_GT(low_y / low_count, high_y / high_count + 100) << "low end must be at the bottom";

  // The object: the non-background pixels left of the colour bar (and below the title) lie inside
  // the border, and its left part (x small) looks like the low colour, its right part the high one.
  int x0 = image.width, x1 = -1, y0 = image.height, y1 = -1;
  const int title_band = 60;
  for (int y = title_band; y < image.height; ++y)
    for (int x = 0; x < bar_x0 - 20; ++x)
      if (!near(rgb(image, x, y), background, 0)) x0 = std::min(x0, x), x1 = std::max(x1, x), y0 = std::min(y0, y), y1 = std::max(y1, y);
  ASSERT_GT(x1 - x0, image.width / 3) << "object too small or missing";
  ASSERT_GT(y1 - y0, image.height / 3) << "object too small or missing";
  EXPECT_GT(x0, 5);
  EXPECT_LT(y1, image.height - 5);
  glm::vec3 left(0), right(0);
  int left_n = 0, right_n = 0;
  const int strip = (x1 - x0) / 8;
  for (int y = y0; y <= y1; ++y) {
    for (int x = x0; x < x0 + strip; ++x)
      if (!near(rgb(image, x, y), background, 0)) left += rgb(image, x, y), ++left_n;
    for (int x = x1 - strip; x <= x1; ++x)
      if (!near(rgb(image, x, y), background, 0)) right += rgb(image, x, y), ++right_n;
  }
  ASSERT_GT(left_n, 0);
  ASSERT_GT(right_n, 0);
  left /= float(left_n);
  right /= float(right_n);
  EXPECT_GT(similarity(left, low), similarity(left, high)) << "left part should look like the low colour";
  EXPECT_GT(similarity(right, high), similarity(right, low)) << "right part should look like the high colour";
}

TEST_F(RenderTest, UnwritableDestinationIsAnErrorAndLeavesNothing) {
  TempDir dir;
  std::ofstream(dir.path / "file") << "x";
  const std::string png = (dir.path / "file" / "out.png").string();  // parent is a file: ENOTDIR, even for root
  EXPECT_THROW(render_surface_png(box(), t_equals_x(box()), {}, png), Error);
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"file"});
}

TEST_F(RenderTest, ErrorWhileRenderingLeavesNoFile) {
  TempDir dir;
  const std::string png = (dir.path / "out.png").string();
  std::vector<double> wrong_size(box().mesh.nodes.size() - 1, 0.0);
  EXPECT_THROW(render_surface_png(box(), wrong_size, {}, png), Error);
  RenderOptions bad_map;
  bad_map.colormap = "nope";
  EXPECT_THROW(render_surface_png(box(), t_equals_x(box()), bad_map, png), Error);
  RenderOptions too_big;
  too_big.width = 1 << 20;
  EXPECT_THROW(render_surface_png(box(), t_equals_x(box()), too_big, png), Error);
  EXPECT_TRUE(dir.entries().empty());
}

// The solver's kernels share the context: rendering must leave the GL state as it found it.
TEST_F(RenderTest, RestoresGlState) {
  glViewport(3, 4, 50, 60);
  glDisable(GL_DEPTH_TEST);
  glDisable(GL_BLEND);
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  RenderOptions options;
  options.width = 320;
  options.height = 240;
  render_surface_image(box(), t_equals_x(box()), options);
  GLint viewport[4], framebuffer = -1, program = -1;
  glGetIntegerv(GL_VIEWPORT, viewport);
  glGetIntegerv(GL_DRAW_FRAMEBUFFER_BINDING, &framebuffer);
  glGetIntegerv(GL_CURRENT_PROGRAM, &program);
  EXPECT_EQ(viewport[0], 3);
  EXPECT_EQ(viewport[3], 60);
  EXPECT_EQ(framebuffer, 0);
  EXPECT_EQ(program, 0);
  EXPECT_FALSE(glIsEnabled(GL_DEPTH_TEST));
  EXPECT_EQ(glGetError(), GLenum(GL_NO_ERROR));
}

// Constant fields, non-finite values and a fixed range that clips the data all still draw.
TEST_F(RenderTest, DegenerateValuesAndFixedRange) {
  RenderOptions options;
  options.width = 320;
  options.height = 240;
  std::vector<double> constant(box().mesh.nodes.size(), 7.0);
  EXPECT_NO_THROW(render_surface_image(box(), constant, options));
  auto with_nan = t_equals_x(box());
  with_nan[0] = std::nan("");
  EXPECT_NO_THROW(render_surface_image(box(), with_nan, options));
  options.range_min = 0.25;
  options.range_max = 0.5;
  options.colormap = "coolwarm";
  const RgbaImage image = render_surface_image(box(), t_equals_x(box()), options);
  EXPECT_EQ(image.width, 320);
  options.range_min = 1.0;
  options.range_max = 0.0;
  EXPECT_THROW(render_surface_image(box(), t_equals_x(box()), options), Error);
}
