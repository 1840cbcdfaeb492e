// The heat case file: a full example parses to the right values; every mistake is one clear error
// naming the file and line.
#include <gtest/gtest.h>

#include <string>

#include "mesh/load_mesh.hpp"
#include "cases/heat_case.hpp"
#include "util/error.hpp"

namespace ss {
namespace {

// Case files are anchored in meshes/ so `file = "cube.msh"` resolves to a real mesh.
const std::string kCasePath = std::string(SS_SOURCE_DIR) + "/meshes/test.toml";

const char* kFullCase = R"(
[mesh]
file = "cube.msh"
refine = 1
[material]
conductivity = 2.5
heat_capacity = 3
source = -1.0
[[boundary]]
group = "left"
type = "dirichlet"
value = 0.0
[[boundary]]
group = 6
type = "neumann"
value = 1.5
[solver]
tolerance = 1e-8
max_iterations = 500
preconditioner = "none"
variant = "textbook"
precision = "float"
inner_tolerance = 1e-3
[time]
dt = 0.01
steps = 100
theta = 0.5
initial = 20
[output]
directory = "results"
every = 5
)";

TEST(HeatCase, ParsesEveryKey) {
  const HeatCase c = parse_heat_case(kFullCase, kCasePath);
  EXPECT_EQ(c.mesh_file, std::string(SS_SOURCE_DIR) + "/meshes/cube.msh");
  EXPECT_EQ(c.refine, 1);
  ASSERT_TRUE(c.material.has_value());
  EXPECT_EQ(c.material->conductivity, 2.5);
  EXPECT_EQ(c.material->heat_capacity, 3.0);
  EXPECT_TRUE(c.material->source.is_constant());
  EXPECT_EQ(c.material->source(0, 0, 0), -1.0);
  ASSERT_EQ(c.boundaries.size(), 2u);
  EXPECT_EQ(c.boundaries[0].group, "left");
  EXPECT_EQ(c.boundaries[0].type, BoundaryCondition::Type::dirichlet);
  EXPECT_EQ(c.boundaries[1].group, "6");
  EXPECT_EQ(c.boundaries[1].type, BoundaryCondition::Type::neumann);
  EXPECT_EQ(c.boundaries[1].value(0, 0, 0), 1.5);
  EXPECT_EQ(c.tolerance, 1e-8);
  EXPECT_EQ(c.max_iterations, 500);
  EXPECT_FALSE(c.jacobi);
  EXPECT_EQ(c.variant, "textbook");
  EXPECT_FALSE(c.mixed);
  EXPECT_EQ(c.inner_tolerance, 1e-3);
  ASSERT_TRUE(c.time.has_value());
  EXPECT_EQ(c.time->dt, 0.01);
  EXPECT_EQ(c.time->steps, 100);
  EXPECT_EQ(c.time->theta, 0.5);
  EXPECT_EQ(c.time->initial(0, 0, 0), 20.0);
  EXPECT_EQ(c.output_directory, std::string(SS_SOURCE_DIR) + "/meshes/results");
  EXPECT_EQ(c.output_every, 5);
}

TEST(HeatCase, DefaultsAndPerGroupMaterials) {
  const HeatCase c = parse_heat_case(R"(
[mesh]
file = "cube.msh"
[material.steel]
conductivity = 50
[material.10]
conductivity = 0.5
[[boundary]]
group = "left"
type = "dirichlet"
value = 1
)", kCasePath);
  EXPECT_FALSE(c.material.has_value());
  ASSERT_EQ(c.materials.size(), 2u);
  EXPECT_EQ(c.materials.at("steel").conductivity, 50.0);
  EXPECT_EQ(c.materials.at("10").heat_capacity, 1.0);
  EXPECT_EQ(c.tolerance, 1e-6);
  EXPECT_EQ(c.max_iterations, 20000);
  EXPECT_TRUE(c.multigrid);  // the default preconditioner
  EXPECT_FALSE(c.jacobi);
  EXPECT_EQ(c.variant, "single_sync");
  EXPECT_TRUE(c.mixed);
  EXPECT_EQ(c.inner_tolerance, 1e-5);
  EXPECT_FALSE(c.time.has_value());
  EXPECT_EQ(c.output_directory, std::string(SS_SOURCE_DIR) + "/meshes/out");
}

TEST(HeatCase, ValuesAreNumbersOrExpressions) {
  const HeatCase c = parse_heat_case(R"toml(
[mesh]
file = "cube.msh"
[material]
source = "100*exp(-((x-0.5)^2 + (y-0.5)^2)/0.01)"
[[boundary]]
group = "left"
type = "dirichlet"
value = "20 + 80*z"
[[boundary]]
group = "right"
type = "neumann"
value = "sin(_pi*y)"
[time]
dt = 0.1
steps = 2
initial = "20 + x*y"
)toml", kCasePath);
  EXPECT_FALSE(c.material->source.is_constant());
  EXPECT_DOUBLE_EQ(c.material->source(0.5, 0.5, 0.3), 100.0);
  EXPECT_DOUBLE_EQ(c.boundaries[0].value(0, 0.3, 0.5), 60.0);
  EXPECT_EQ(c.boundaries[0].value.text(), "20 + 80*z");
  EXPECT_NEAR(c.boundaries[1].value(1, 0.5, 0), 1.0, 1e-15);
  EXPECT_DOUBLE_EQ(c.time->initial(2, 3, 0), 26.0);
  EXPECT_FALSE(c.time->initial.uses_time());
}

struct BadCase {
  const char* name;
  const char* text;
  const char* expected;  // substring of the error
};

const char* kMesh = "[mesh]\nfile = \"cube.msh\"\n";
const char* kLeft = "[[boundary]]\ngroup = \"left\"\ntype = \"dirichlet\"\nvalue = 0\n";

class HeatCaseErrors : public ::testing::TestWithParam<BadCase> {};

TEST_P(HeatCaseErrors, AreOneClearErrorWithTheLine) {
  const BadCase& bad = GetParam();
  try {
    parse_heat_case(bad.text, kCasePath);
    FAIL() << bad.name << ": expected an error";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(bad.expected), std::string::npos) << bad.name << ": " << what;
    EXPECT_NE(what.find("test.toml"), std::string::npos) << bad.name << ": names the file: " << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << bad.name << ": one line: " << what;
  }
}

const std::string no_mesh = std::string("[material]\nconductivity = 1\n") + kLeft;
const std::string missing_file = std::string("[mesh]\nfile = \"nope.msh\"\n") + kLeft;
const std::string typo_key = std::string(kMesh) + "[material]\nconductivty = 1\n" + kLeft;
const std::string wrong_type = std::string(kMesh) + "[material]\nconductivity = \"high\"\n" + kLeft;
const std::string negative_k = std::string(kMesh) + "[material]\nconductivity = -1\n" + kLeft;
const std::string bad_bc_type = std::string(kMesh) + "[[boundary]]\ngroup = \"left\"\ntype = \"robin\"\nvalue = 0\n";
const std::string no_value = std::string(kMesh) + "[[boundary]]\ngroup = \"left\"\ntype = \"dirichlet\"\n";
const std::string duplicate = std::string(kMesh) + kLeft + kLeft;
const std::string steady_no_dirichlet = std::string(kMesh) + "[[boundary]]\ngroup = 1\ntype = \"neumann\"\nvalue = 1\n";
const std::string bad_solver = std::string(kMesh) + kLeft + "[solver]\npreconditioner = \"ilu\"\n";
const std::string bad_tolerance = std::string(kMesh) + kLeft + "[solver]\ntolerance = 2\n";
const std::string bad_variant = std::string(kMesh) + kLeft + "[solver]\nvariant = \"s_step\"\n";
const std::string bad_precision = std::string(kMesh) + kLeft + "[solver]\nprecision = \"double\"\n";
const std::string bad_inner = std::string(kMesh) + kLeft + "[solver]\ninner_tolerance = 0\n";
const std::string bad_theta = std::string(kMesh) + kLeft + "[time]\ndt = 0.1\nsteps = 3\ntheta = 0.2\n";
const std::string no_dt = std::string(kMesh) + kLeft + "[time]\nsteps = 3\n";
const std::string unknown_table = std::string(kMesh) + kLeft + "[solverr]\ntolerance = 1e-6\n";
const std::string syntax = std::string(kMesh) + kLeft + "[solver\n";
const std::string mixed_material = std::string(kMesh) + kLeft + "[material]\nconductivity = 1\n[material.steel]\nconductivity = 2\n";
const std::string bad_syntax = std::string(kMesh) + "[[boundary]]\ngroup = \"left\"\ntype = \"dirichlet\"\nvalue = \"2*(x+1\"\n";
const std::string unknown_variable = std::string(kMesh) + "[material]\nsource = \"w*x\"\n" + kLeft;
const std::string time_in_value = std::string(kMesh) + "[[boundary]]\ngroup = \"left\"\ntype = \"dirichlet\"\nvalue = \"x*t\"\n";
const std::string time_in_source = std::string(kMesh) + "[material]\nsource = \"sin(t)\"\n" + kLeft;
const std::string time_in_initial = std::string(kMesh) + kLeft + "[time]\ndt = 0.1\nsteps = 3\ninitial = \"t\"\n";
const std::string value_type = std::string(kMesh) + "[[boundary]]\ngroup = \"left\"\ntype = \"dirichlet\"\nvalue = [1]\n";
const std::string bad_refine = std::string("[mesh]\nfile = \"cube.msh\"\nrefine = -1\n") + kLeft;
// [[mesh.surface]] entries (lines 3..): group, type and the type's keys.
const std::string surface(const std::string& keys) { return std::string(kMesh) + "[[mesh.surface]]\n" + keys + kLeft; }
const std::string surface_bad_type = surface("group = \"left\"\ntype = \"cone\"\n");
const std::string surface_no_type = surface("group = \"left\"\n");
const std::string surface_negative_radius =
    surface("group = \"left\"\ntype = \"sphere\"\ncenter = [0, 0, 0]\nradius = -0.5\n");
const std::string surface_no_radius = surface("group = \"left\"\ntype = \"cylinder\"\npoint = [0, 0, 0]\naxis = [0, 0, 1]\n");
const std::string surface_zero_axis =
    surface("group = \"left\"\ntype = \"cylinder\"\npoint = [0, 0, 0]\naxis = [0, 0, 0]\nradius = 1\n");
const std::string surface_zero_normal = surface("group = \"left\"\ntype = \"plane\"\npoint = [0, 0, 0]\nnormal = [0, 0, 0]\n");
const std::string surface_other_key =
    surface("group = \"left\"\ntype = \"cylinder\"\ncenter = [0, 0, 0]\naxis = [0, 0, 1]\nradius = 1\npoint = [0, 0, 0]\n");
const std::string surface_short_point = surface("group = \"left\"\ntype = \"plane\"\npoint = [0, 0]\nnormal = [1, 0, 0]\n");
const std::string surface_no_group = surface("type = \"plane\"\npoint = [0, 0, 0]\nnormal = [1, 0, 0]\n");
const std::string surface_not_tables = std::string("[mesh]\nfile = \"cube.msh\"\nsurface = 1\n") + kLeft;
// [[mesh.periodic]] entries (lines 3..): groups = [first, second], offset.
const std::string periodic(const std::string& keys) { return std::string(kMesh) + "[[mesh.periodic]]\n" + keys + kLeft; }
const std::string periodic_one_group = periodic("groups = [\"left\"]\n");
const std::string periodic_no_groups = periodic("offset = [1, 0, 0]\n");
const std::string periodic_zero_offset = periodic("groups = [\"left\", \"right\"]\noffset = [0, 0, 0]\n");
const std::string periodic_bad_group = periodic("groups = [\"left\", 1.5]\n");
const std::string periodic_other_key = periodic("groups = [\"left\", \"right\"]\nshift = [1, 0, 0]\n");
const std::string periodic_four = std::string(kMesh) + [] {
  std::string s;
  for (int i = 0; i < 4; ++i) s += "[[mesh.periodic]]\ngroups = [\"left\", \"right\"]\n";
  return s;
}() + kLeft;

INSTANTIATE_TEST_SUITE_P(
    Examples, HeatCaseErrors,
    ::testing::Values(BadCase{"no_mesh", no_mesh.c_str(), "missing [mesh]"},
                      BadCase{"missing_file", missing_file.c_str(), "does not exist"},
                      BadCase{"typo_key", typo_key.c_str(), "test.toml:4: unknown key 'conductivty' in [material]"},
                      BadCase{"wrong_type", wrong_type.c_str(), "conductivity must be a number"},
                      BadCase{"negative_k", negative_k.c_str(), "conductivity must be positive"},
                      BadCase{"bad_bc_type", bad_bc_type.c_str(), "type must be \"dirichlet\" or \"neumann\""},
                      BadCase{"no_value", no_value.c_str(), "needs value"},
                      BadCase{"duplicate", duplicate.c_str(), "already has a boundary condition"},
                      BadCase{"steady_no_dirichlet", steady_no_dirichlet.c_str(), "steady case needs at least one"},
                      BadCase{"bad_solver", bad_solver.c_str(), "preconditioner must be"},
                      BadCase{"bad_tolerance", bad_tolerance.c_str(), "tolerance must be in (0, 1)"},
                      BadCase{"bad_variant", bad_variant.c_str(), "variant must be \"textbook\", \"single_sync\" or \"pipelined\""},
                      BadCase{"bad_precision", bad_precision.c_str(), "precision must be \"mixed\" or \"float\""},
                      BadCase{"bad_inner", bad_inner.c_str(), "inner_tolerance must be in (0, 1)"},
                      BadCase{"bad_theta", bad_theta.c_str(), "theta must be in [0.5, 1]"},
                      BadCase{"no_dt", no_dt.c_str(), "[time] needs dt and steps"},
                      BadCase{"unknown_table", unknown_table.c_str(), "unknown key 'solverr'"},
                      BadCase{"syntax", syntax.c_str(), "test.toml:"},
                      BadCase{"mixed_material", mixed_material.c_str(), "mixes plain keys"},
                      BadCase{"bad_refine", bad_refine.c_str(), "refine must be 0..6"},
                      BadCase{"surface_bad_type", surface_bad_type.c_str(),
                              "test.toml:5: [[mesh.surface]] type must be \"cylinder\", \"sphere\" or \"plane\" (got \"cone\")"},
                      BadCase{"surface_no_type", surface_no_type.c_str(), "test.toml:3: [[mesh.surface]] needs type ="},
                      BadCase{"surface_negative_radius", surface_negative_radius.c_str(),
                              "test.toml:7: [[mesh.surface]] radius must be positive (got -0.5)"},
                      BadCase{"surface_no_radius", surface_no_radius.c_str(),
                              "test.toml:3: [[mesh.surface]] of type \"cylinder\" needs radius"},
                      BadCase{"surface_zero_axis", surface_zero_axis.c_str(),
                              "test.toml:7: [[mesh.surface]] axis must be a nonzero vector"},
                      BadCase{"surface_zero_normal", surface_zero_normal.c_str(),
                              "test.toml:7: [[mesh.surface]] normal must be a nonzero vector"},
                      BadCase{"surface_other_key", surface_other_key.c_str(),
                              "test.toml:6: unknown key 'center' in [[mesh.surface]]"},
                      BadCase{"surface_short_point", surface_short_point.c_str(),
                              "test.toml:6: [[mesh.surface]] point must be an array of 3 numbers"},
                      BadCase{"surface_no_group", surface_no_group.c_str(), "test.toml:3: [[mesh.surface]] needs group"},
                      BadCase{"surface_not_tables", surface_not_tables.c_str(),
                              "test.toml:3: boundary surfaces are written as [[mesh.surface]] tables"},
                      BadCase{"periodic_one_group", periodic_one_group.c_str(),
                              "test.toml:4: [[mesh.periodic]] needs groups = [\"first\", \"second\"]"},
                      BadCase{"periodic_no_groups", periodic_no_groups.c_str(),
                              "test.toml:3: [[mesh.periodic]] needs groups = [\"first\", \"second\"]"},
                      BadCase{"periodic_zero_offset", periodic_zero_offset.c_str(),
                              "test.toml:5: [[mesh.periodic]] offset must be a nonzero vector"},
                      BadCase{"periodic_bad_group", periodic_bad_group.c_str(),
                              "test.toml:4: [[mesh.periodic]] groups must be names or numbers"},
                      BadCase{"periodic_other_key", periodic_other_key.c_str(),
                              "test.toml:5: unknown key 'shift' in [[mesh.periodic]]"},
                      BadCase{"periodic_four", periodic_four.c_str(), "test.toml:3: at most 3 [[mesh.periodic]] pairs"},
                      BadCase{"bad_syntax", bad_syntax.c_str(),
                              "test.toml:6: [[boundary]] value: Missing parenthesis in \"2*(x+1\""},
                      BadCase{"unknown_variable", unknown_variable.c_str(),
                              "test.toml:4: [material] source: unknown variable 'w' in \"w*x\""},
                      BadCase{"time_in_value", time_in_value.c_str(), "test.toml:6: [[boundary]] value = \"x*t\" uses t"},
                      BadCase{"time_in_source", time_in_source.c_str(), "test.toml:4: [material] source = \"sin(t)\" uses t"},
                      BadCase{"time_in_initial", time_in_initial.c_str(), "test.toml:10: [time] initial = \"t\" uses t"},
                      BadCase{"value_type", value_type.c_str(),
                              "test.toml:6: [[boundary]] value must be a number or an expression string"}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(HeatCase, ReadsMeshSurfaces) {
  const HeatCase c = parse_heat_case(std::string(kMesh) +
                                         "[[mesh.surface]]\ngroup = \"left\"\ntype = \"cylinder\"\npoint = [0.5, 0.2, 0]\n"
                                         "axis = [0, 0, 2]\nradius = 0.05\n"
                                         "[[mesh.surface]]\ngroup = 2\ntype = \"sphere\"\ncenter = [1, 2, 3]\nradius = 4\n"
                                         "[[mesh.surface]]\ngroup = \"left\"\ntype = \"plane\"\npoint = [0, 0, 0]\nnormal = [-3, 0, 0]\n" +
                                         kLeft,
                                     kCasePath);
  ASSERT_EQ(c.surfaces.size(), 3u);
  EXPECT_EQ(c.surfaces[0].shape, SurfaceShape::cylinder);
  EXPECT_EQ(c.surfaces[0].group, "left");
  EXPECT_EQ(c.surfaces[0].point, glm::dvec3(0.5, 0.2, 0));
  EXPECT_EQ(c.surfaces[0].direction, glm::dvec3(0, 0, 1)) << "the axis is normalised";
  EXPECT_EQ(c.surfaces[0].radius, 0.05);
  EXPECT_EQ(c.surfaces[0].where, kCasePath + ":3");
  EXPECT_EQ(c.surfaces[1].shape, SurfaceShape::sphere);
  EXPECT_EQ(c.surfaces[1].group, "2");
  EXPECT_EQ(c.surfaces[1].point, glm::dvec3(1, 2, 3));
  EXPECT_EQ(c.surfaces[1].radius, 4.0);
  EXPECT_EQ(c.surfaces[2].shape, SurfaceShape::plane);
  EXPECT_EQ(c.surfaces[2].direction, glm::dvec3(-1, 0, 0));
}

TEST(HeatCase, MeshSurfaceOfAnUnknownGroupIsAnErrorWhenTheMeshLoads) {
  const HeatCase c = parse_heat_case(std::string(kMesh) +
                                         "[[mesh.surface]]\ngroup = \"hole\"\ntype = \"sphere\"\ncenter = [0, 0, 0]\nradius = 1\n" +
                                         kLeft,
                                     kCasePath);
  LoadOptions load;
  load.refine = 1;
  load.surfaces = c.surfaces;
  try {
    load_mesh(c.mesh_file, load);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("test.toml:3: [[mesh.surface]] group 'hole' is no boundary group of " + c.mesh_file + "; it has "),
              std::string::npos)
        << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
  }
}

TEST(HeatCase, ReadsPeriodicPairs) {
  const HeatCase c = parse_heat_case(std::string(kMesh) + "[[mesh.periodic]]\ngroups = [\"left\", \"right\"]\n"
                                         "[[mesh.periodic]]\ngroups = [3, 4]\noffset = [0, 1, 0]\n" + kLeft,
                                     kCasePath);
  ASSERT_EQ(c.periodic.size(), 2u);
  EXPECT_EQ(c.periodic[0].first, "left");
  EXPECT_EQ(c.periodic[0].second, "right");
  EXPECT_FALSE(c.periodic[0].offset_given);
  EXPECT_EQ(c.periodic[0].where, kCasePath + ":3");
  EXPECT_EQ(c.periodic[1].first, "3");
  EXPECT_TRUE(c.periodic[1].offset_given);
  EXPECT_EQ(c.periodic[1].offset, glm::dvec3(0, 1, 0));
}

// The cube's left and right faces are meshed independently: joining them is one error naming both.
TEST(HeatCase, PeriodicPairOfMismatchedFacesIsAnErrorWhenTheMeshLoads) {
  const HeatCase c = parse_heat_case(std::string(kMesh) + "[[mesh.periodic]]\ngroups = [\"left\", \"right\"]\n" + kLeft,
                                     kCasePath);
  LoadOptions load;
  load.periodic = c.periodic;
  try {
    load_mesh(c.mesh_file, load);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("test.toml:3: [[mesh.periodic]] pair 'left' - 'right' do not match"), std::string::npos) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
  }
}

TEST(HeatCase, MissingCaseFileIsAnError) {
  EXPECT_THROW(read_heat_case("/nonexistent/case.toml"), Error);
}

}  // namespace
}  // namespace ss
