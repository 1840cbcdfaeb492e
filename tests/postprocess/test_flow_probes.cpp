// Probes (postprocess/flow_probes.hpp): [[probe]] tables parse (points, a line, fields) and every mistake
// is one error naming the case file's line; a point is found in its tet and a field linear in x is
// sampled exactly (barycentric interpolation), at interior points and on faces, edges and nodes; a
// point outside the mesh is one error naming the probe and the point.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "cases/flow_case.hpp"
#include "postprocess/flow_probes.hpp"
#include "support/project_mesh.hpp"
#include "util/error.hpp"

namespace ss::test {
namespace {

const std::string kCasePath = std::string(SS_SOURCE_DIR) + "/meshes/test.toml";

FlowCase probe_case(const std::string& probes) {
  return parse_flow_case("[mesh]\nfile = \"cube.msh\"\n[fluid]\nviscosity = 0.01\n[[boundary]]\ngroup = \"left\"\ntype = \"wall\"\n"
                         "[time]\ndt = 0.01\nsteps = 3\n" + probes,
                         kCasePath);
}

std::string parse_error(const std::string& probes) {
  try {
    probe_case(probes);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(FlowProbes, PointsAndLinesParse) {
  const FlowCase c = probe_case(
      "[[probe]]\nname = \"a\"\npoints = [[0.5, 0.5, 0.5], [0, 1, 1]]\n"
      "[[probe]]\nname = \"b-1\"\nline = {from = [0, 0, 0], to = [1, 0.5, 0], samples = 3}\nfields = [\"pressure\"]\n");
  ASSERT_EQ(c.probes.size(), 2u);
  EXPECT_EQ(c.probes[0].name, "a");
  ASSERT_EQ(c.probes[0].points.size(), 2u);
  EXPECT_EQ(c.probes[0].points[1], glm::dvec3(0, 1, 1));
  EXPECT_EQ(c.probes[0].fields, (std::vector<std::string>{"velocity", "pressure"}));
  ASSERT_EQ(c.probes[1].points.size(), 3u);
  EXPECT_EQ(c.probes[1].points[1], glm::dvec3(0.5, 0.25, 0));
  EXPECT_EQ(c.probes[1].fields, std::vector<std::string>{"pressure"});
  EXPECT_EQ(c.probes[1].where, kCasePath + ":14");
}

TEST(FlowProbes, MistakesNameTheLine) {
  const std::string at = kCasePath + ":11: ";
  EXPECT_EQ(parse_error("[[probe]]\npoints = [[0, 0, 0]]\n"),
            at + "[[probe]] needs name = \"...\" (the file probes/<name>.csv)");
  EXPECT_EQ(parse_error("[[probe]]\nname = \"a/b\"\npoints = [[0, 0, 0]]\n"),
            kCasePath + ":12: [[probe]] name 'a/b' may hold only letters, digits, '_' and '-'");
  EXPECT_EQ(parse_error("[[probe]]\nname = \"a\"\n"),
            at + "probe 'a' needs exactly one of points = [[x, y, z], ...] and line = {...}");
  EXPECT_NE(parse_error("[[probe]]\nname = \"a\"\npoints = [[0, 0]]\n").find(":13: [[probe]] points[0] must be [x, y, z]"),
            std::string::npos);
  EXPECT_NE(parse_error("[[probe]]\nname = \"a\"\nline = {from = [0, 0, 0], to = [1, 0, 0], samples = 1}\n")
                .find("samples must be >= 2"),
            std::string::npos)
      << parse_error("[[probe]]\nname = \"a\"\nline = {from = [0, 0, 0], to = [1, 0, 0], samples = 1}\n");
  EXPECT_NE(parse_error("[[probe]]\nname = \"a\"\npoints = [[0, 0, 0]]\nfields = [\"vorticity\"]\n")
                .find("a field is \"velocity\", \"pressure\" or \"temperature\" (a [heat] case)"),
            std::string::npos);
  EXPECT_EQ(parse_error("[[probe]]\nname = \"a\"\npoints = [[0, 0, 0]]\nfields = [\"temperature\"]\n"),
            kCasePath + ":11: probe 'a' samples the temperature but the case has no [heat] table");
  EXPECT_NE(parse_error("[[probe]]\nname = \"a\"\npoints = [[0, 0, 0]]\ncolour = 1\n").find("colour"), std::string::npos);
  EXPECT_EQ(parse_error("[[probe]]\nname = \"a\"\npoints = [[0, 0, 0]]\n[[probe]]\nname = \"a\"\npoints = [[0, 0, 0]]\n"),
            kCasePath + ":14: probe 'a' is defined twice (" + kCasePath + ":11)");
}

// u = A x + b, p = c·x + d at the nodes: the samples are the same formulas at the points, to
// round-off (sums of 4 terms of size O(1) in double).
TEST(FlowProbes, LinearFieldsAreSampledExactly) {
  const LoadedMesh& m = project_mesh("cube.msh", 1);
  const auto u = [](const glm::dvec3& x) { return glm::dvec3(1 + 2 * x.x - x.y, 3 * x.z, 0.5 - x.x + 4 * x.y); };
  const auto p = [](const glm::dvec3& x) { return 2 - x.x + 3 * x.y + 0.5 * x.z; };
  FlowFields f;
  for (const glm::dvec3& x : m.mesh.nodes) f.node_velocity.push_back(u(x)), f.node_pressure.push_back(p(x));
  FlowProbeSpec spec;
  spec.name = "linear";
  spec.fields = {"velocity", "pressure"};
  // Interior points, a node and an edge and a face of the box, a corner.
  spec.points = {{0.3, 0.61, 0.47}, {0.123, 0.9, 0.05}, {0.5, 0.5, 0.5}, {1, 0.37, 0.5}, {0, 0, 0.41}, {1, 1, 1}};
  const FlowProbes probes(m, {spec});
  const std::vector<std::string> columns = probes.columns(0);
  ASSERT_EQ(columns.size(), 4 * spec.points.size());
  EXPECT_EQ(columns[0], "velocity_x@0");
  EXPECT_EQ(columns[3], "pressure@0");
  EXPECT_EQ(columns[7], "pressure@1");
  const std::vector<double> v = probes.sample(0, f);
  for (size_t k = 0; k < spec.points.size(); ++k) {
    const glm::dvec3 x = spec.points[k];
    for (int d = 0; d < 3; ++d) EXPECT_NEAR(v[4 * k + size_t(d)], u(x)[d], 1e-13) << "point " << k;
    EXPECT_NEAR(v[4 * k + 3], p(x), 1e-13) << "point " << k;
  }
}

TEST(FlowProbes, APointOutsideTheMeshIsOneError) {
  const LoadedMesh& m = project_mesh("cube.msh", 0);
  FlowProbeSpec spec;
  spec.name = "far";
  spec.fields = {"pressure"};
  spec.where = "case.toml:7";
  spec.points = {{0.5, 0.5, 0.5}, {1.5, 0.5, 0.5}};
  try {
    FlowProbes probes(m, {spec});
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "case.toml:7: probe 'far': point 1 (1.5, 0.5, 0.5) is outside the mesh");
  }
}

}  // namespace
}  // namespace ss::test
