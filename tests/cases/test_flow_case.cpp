// The flow case file: the sample (meshes/cavity_flow.toml) and a case with every key parse to the
// right values; every mistake is one clear error naming the file and line.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "cases/flow_case.hpp"
#include "util/error.hpp"

namespace ss {
namespace {

// Case files are anchored in meshes/ so `file = "cavity.msh"` resolves to a real mesh.
const std::string kCasePath = std::string(SS_SOURCE_DIR) + "/meshes/test.toml";

TEST(FlowCase, TheCavitySampleParses) {
  const FlowCase c = read_flow_case(std::string(SS_SOURCE_DIR) + "/meshes/cavity_flow.toml");
  EXPECT_EQ(c.mesh_file, std::string(SS_SOURCE_DIR) + "/meshes/cavity.msh");
  EXPECT_EQ(c.refine, 0);
  EXPECT_EQ(c.viscosity, 0.01);
  ASSERT_EQ(c.boundaries.size(), 2u);
  EXPECT_EQ(c.boundaries[0].group, "lid");
  EXPECT_EQ(c.boundaries[0].type, FlowBoundary::Type::wall);
  EXPECT_TRUE(c.boundaries[0].velocity.is_constant());
  EXPECT_EQ(c.boundaries[0].velocity(0.5, 0.5, 1.0), glm::dvec3(1, 0, 0));
  EXPECT_EQ(c.boundaries[1].group, "walls");
  EXPECT_EQ(c.boundaries[1].type, FlowBoundary::Type::wall);
  EXPECT_EQ(c.boundaries[1].velocity(0, 0, 0), glm::dvec3(0.0));
  EXPECT_EQ(c.initial_velocity(0.5, 0.5, 0.5), glm::dvec3(0.0));
  EXPECT_EQ(c.time.dt, 0.005);
  EXPECT_EQ(c.time.steps, 0);
  EXPECT_EQ(c.time.end_time, 2.0);
  EXPECT_EQ(c.time.cfl, 0.5);
  EXPECT_EQ(c.time.max_dt, 0.02);
  EXPECT_EQ(c.convection, FlowCase::Convection::central);
  EXPECT_EQ(c.theta, 1.0);
  EXPECT_EQ(c.pressure.tolerance, 1e-6);
  EXPECT_EQ(c.pressure.max_iterations, 5000);
  EXPECT_EQ(c.pressure.preconditioner, "multigrid");
  EXPECT_EQ(c.momentum.preconditioner, "automatic");
  EXPECT_EQ(c.pressure.variant, "textbook");
  EXPECT_EQ(c.momentum.variant, "single_sync");  // one synchronisation a momentum iteration
  EXPECT_EQ(c.pressure.initial_guess, "extrapolated");
  EXPECT_EQ(c.output_directory, std::string(SS_SOURCE_DIR) + "/out/cavity_flow");
  EXPECT_EQ(c.output_every, 50);
  EXPECT_FALSE(c.slice_origin.has_value());
  EXPECT_EQ(c.slice_normal, glm::dvec3(0, 1, 0));
  EXPECT_EQ(c.slice_field, "velocity");
  EXPECT_GT(c.line_of("fluid"), 0);
  EXPECT_EQ(c.where("fluid.viscosity"), c.path + ":" + std::to_string(c.line_of("fluid") + 1));
  EXPECT_EQ(c.line_of("solver"), 0);
  EXPECT_EQ(c.where("solver"), c.path);
}

TEST(FlowCase, ParsesEveryKey) {
  const FlowCase c = parse_flow_case(R"toml(
[mesh]
file = "duct.msh"
refine = 1
[fluid]
viscosity = 1e-3
[[boundary]]
group = "inlet"
type = "velocity"
velocity = ["16*y*(1-y)*z*(0.5-z)/0.25*(1 - exp(-t))", 0, 0.0]
[[boundary]]
group = 2
type = "pressure"
pressure = "0.5*z"
[[boundary]]
group = "walls"
type = "slip"
[initial]
velocity = [1, "0.1*sin(_pi*x)", 0]
[time]
dt = 0.01
steps = 200
[scheme]
convection = "upwind"
theta = 0.5
[solver.pressure]
tolerance = 1e-8
max_iterations = 800
preconditioner = "none"
variant = "single_sync"
initial_guess = "zero"
[solver.momentum]
tolerance = 1e-7
preconditioner = "none"
variant = "pipelined"
replacement_period = 30
[solver.streamfunction]
tolerance = 1e-7
gauge = "none"
[output]
directory = "results"
every = 5
slice_origin = [2, 0.5, 0.25]
slice_normal = [0, 0, 2]
)toml", kCasePath);
  EXPECT_EQ(c.mesh_file, std::string(SS_SOURCE_DIR) + "/meshes/duct.msh");
  EXPECT_EQ(c.refine, 1);
  EXPECT_EQ(c.viscosity, 1e-3);
  ASSERT_EQ(c.boundaries.size(), 3u);
  const FlowBoundary& inlet = c.boundaries[0];
  EXPECT_EQ(inlet.type, FlowBoundary::Type::velocity);
  EXPECT_EQ(inlet.line, 7);
  EXPECT_TRUE(inlet.velocity.uses_time());
  EXPECT_NEAR(inlet.velocity(0, 0.5, 0.25, 1e9).x, 1.0, 1e-12);
  EXPECT_NEAR(inlet.velocity(0, 0.5, 0.25, 0.0).x, 0.0, 1e-12);
  EXPECT_EQ(c.boundaries[1].group, "2");
  EXPECT_EQ(c.boundaries[1].type, FlowBoundary::Type::pressure);
  EXPECT_DOUBLE_EQ(c.boundaries[1].pressure(4, 0, 0.5), 0.25);
  EXPECT_EQ(c.boundaries[2].type, FlowBoundary::Type::slip);
  EXPECT_EQ(std::string(to_string(c.boundaries[2].type)), "slip");
  EXPECT_NEAR(c.initial_velocity(0.5, 0, 0).y, 0.1, 1e-15);
  EXPECT_EQ(c.time.dt, 0.01);
  EXPECT_EQ(c.time.steps, 200);
  EXPECT_EQ(c.time.end_time, 0.0);
  EXPECT_EQ(c.time.cfl, 0.0);
  EXPECT_EQ(c.time.max_dt, 0.01);  // default: dt
  EXPECT_EQ(c.convection, FlowCase::Convection::upwind);
  EXPECT_EQ(c.theta, 0.5);
  EXPECT_EQ(c.pressure.tolerance, 1e-8);
  EXPECT_EQ(c.pressure.max_iterations, 800);
  EXPECT_EQ(c.pressure.preconditioner, "none");
  EXPECT_EQ(c.momentum.tolerance, 1e-7);
  EXPECT_EQ(c.momentum.max_iterations, 5000);
  EXPECT_EQ(c.momentum.preconditioner, "none");
  EXPECT_EQ(c.pressure.variant, "single_sync");
  EXPECT_EQ(c.pressure.initial_guess, "zero");
  EXPECT_EQ(c.momentum.variant, "pipelined");
  EXPECT_EQ(c.momentum.replacement_period, 30);
  EXPECT_EQ(c.pressure.replacement_period, -1);
  EXPECT_EQ(c.streamfunction.variant, "textbook");
  EXPECT_EQ(c.streamfunction.tolerance, 1e-7);
  EXPECT_EQ(c.streamfunction.max_iterations, 20000);
  EXPECT_EQ(c.streamfunction.gauge, "none");
  EXPECT_EQ(c.momentum.gauge, "grad_div");  // read for the streamfunction only
  EXPECT_EQ(c.output_directory, std::string(SS_SOURCE_DIR) + "/meshes/results");
  EXPECT_EQ(c.output_every, 5);
  ASSERT_TRUE(c.slice_origin.has_value());
  EXPECT_EQ(*c.slice_origin, glm::dvec3(2, 0.5, 0.25));
  EXPECT_EQ(c.slice_normal, glm::dvec3(0, 0, 1));  // normalized
  EXPECT_EQ(c.line_of("time"), 20);
  EXPECT_EQ(c.line_of("solver.pressure"), 26);
}

struct BadCase {
  const char* name;
  std::string text;
  const char* expected;  // substring of the error, "test.toml:<line>: <what>"
};

// Lines 1-2, 3-4, 5-7: a valid case is kMesh + kFluid + kTime; what a test adds starts at line 8.
const std::string kMesh = "[mesh]\nfile = \"cavity.msh\"\n";
const std::string kFluid = "[fluid]\nviscosity = 0.01\n";
const std::string kTime = "[time]\ndt = 0.01\nsteps = 10\n";
const std::string kBase = kMesh + kFluid + kTime;

// A huge or tiny slice normal is still a unit vector (|n| computed naively overflows to inf).
TEST(FlowCase, SliceNormalOfExtremeMagnitudeIsNormalized) {
  const FlowCase big = parse_flow_case(kBase + "[output]\nslice_normal = [1e200, 1e200, 0]\n", kCasePath);
  EXPECT_NEAR(big.slice_normal.x, std::sqrt(0.5), 1e-15);
  EXPECT_NEAR(big.slice_normal.y, std::sqrt(0.5), 1e-15);
  EXPECT_EQ(big.slice_normal.z, 0.0);
  const FlowCase tiny = parse_flow_case(kBase + "[output]\nslice_normal = [0, 0, -1e-310]\n", kCasePath);
  EXPECT_EQ(tiny.slice_normal, glm::dvec3(0, 0, -1));
}

TEST(FlowCase, ConvectionTimeDefaultsToExplicitAndImplicitAllowsLargeCfl) {
  EXPECT_FALSE(parse_flow_case(kBase, kCasePath).implicit_convection);
  const FlowCase c = parse_flow_case(kBase + "cfl = 50\n[scheme]\nconvection_time = \"implicit\"\n", kCasePath);
  EXPECT_TRUE(c.implicit_convection);
  EXPECT_EQ(c.time.cfl, 50.0);
}

// Steady mode: [time] gives the first pseudo-time step only; convection turns implicit.
const std::string kSteadyTime = "[time]\ndt = 0.01\n";

// Time stepping: Crank–Nicolson (θ = ½) unless a θ is given or the case is steady.
TEST(FlowCase, TimeSteppingIsCrankNicolsonUnlessThetaOrSteady) {
  const FlowCase d = parse_flow_case(kBase, kCasePath);
  EXPECT_TRUE(d.crank_nicolson);
  EXPECT_EQ(d.theta, 0.5);
  const FlowCase t = parse_flow_case(kBase + "[scheme]\ntheta = 0.75\n", kCasePath);
  EXPECT_FALSE(t.crank_nicolson);
  EXPECT_EQ(t.theta, 0.75);
  const FlowCase e = parse_flow_case(kBase + "[scheme]\ntime_stepping = \"theta\"\n", kCasePath);
  EXPECT_FALSE(e.crank_nicolson);
  EXPECT_EQ(e.theta, 1.0);
  const FlowCase s = parse_flow_case(kMesh + kFluid + kSteadyTime + "[steady]\n", kCasePath);
  EXPECT_FALSE(s.crank_nicolson);
  EXPECT_EQ(s.theta, 1.0);
}

TEST(FlowCase, SteadyModeReadsItsTableAndTurnsConvectionImplicit) {
  EXPECT_FALSE(parse_flow_case(kBase, kCasePath).steady.enabled);
  const FlowCase c = parse_flow_case(
      kMesh + kFluid + kSteadyTime +
          "[steady]\ntolerance = 1e-5\nmax_steps = 300\ncfl_start = 2\ncfl_max = 50\nlocal_time_steps = false\n"
          "grad_div = 0.5\n",
      kCasePath);
  EXPECT_TRUE(c.steady.enabled);
  EXPECT_TRUE(c.implicit_convection);
  EXPECT_EQ(c.steady.tolerance, 1e-5);
  EXPECT_EQ(c.steady.max_steps, 300);
  EXPECT_EQ(c.steady.cfl_start, 2.0);
  EXPECT_EQ(c.steady.cfl_max, 50.0);
  EXPECT_FALSE(c.steady.local_time_steps);
  EXPECT_EQ(c.steady.grad_div, 0.5);
  EXPECT_EQ(c.time.dt, 0.01);
  const FlowCase d = parse_flow_case(kMesh + kFluid + kSteadyTime + "[steady]\n", kCasePath);
  EXPECT_TRUE(d.steady.enabled);
  EXPECT_EQ(d.steady.tolerance, 1e-4);
  EXPECT_EQ(d.steady.cfl_max, 100.0);
  EXPECT_TRUE(d.steady.local_time_steps);
  EXPECT_EQ(d.steady.grad_div, 5.0);
  EXPECT_FALSE(parse_flow_case(kBase + "[steady]\nenabled = false\n", kCasePath).steady.enabled);
}

class FlowCaseErrors : public ::testing::TestWithParam<BadCase> {};

TEST_P(FlowCaseErrors, AreOneClearErrorWithTheLine) {
  const BadCase& bad = GetParam();
  try {
    parse_flow_case(bad.text, kCasePath);
    FAIL() << bad.name << ": expected an error";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(bad.expected), std::string::npos) << bad.name << ": " << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << bad.name << ": one line: " << what;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Examples, FlowCaseErrors,
    ::testing::Values(
        BadCase{"unknown_key", kMesh + "[fluid]\nviscosity = 0.01\ndensity = 1\n" + kTime,
                "test.toml:5: unknown key 'density' in [fluid] (known: body_force, viscosity)"},
        BadCase{"unknown_table", kBase + "[fluids]\nviscosity = 1\n", "test.toml:8: unknown key 'fluids' in the case file"},
        BadCase{"wrong_type", kMesh + "[fluid]\nviscosity = \"low\"\n" + kTime,
                "test.toml:4: [fluid] viscosity must be a number"},
        BadCase{"zero_viscosity", kMesh + "[fluid]\nviscosity = 0\n" + kTime,
                "test.toml:4: [fluid] viscosity must be positive (got 0)"},
        BadCase{"no_viscosity", kMesh + "[fluid]\n" + kTime, "test.toml:3: [fluid] needs viscosity"},
        BadCase{"no_fluid", kMesh + kTime, "test.toml: missing [fluid] table"},
        BadCase{"no_time", kMesh + kFluid, "test.toml: missing [time] table"},
        BadCase{"negative_dt", kMesh + kFluid + "[time]\ndt = -0.1\nsteps = 10\n",
                "test.toml:6: [time] dt must be positive (got -0.1)"},
        BadCase{"no_dt", kMesh + kFluid + "[time]\nsteps = 10\n", "test.toml:5: [time] needs dt"},
        BadCase{"steps_and_end_time", kMesh + kFluid + "[time]\ndt = 0.1\nsteps = 10\nend_time = 1\n",
                "test.toml:5: [time] needs exactly one of steps and end_time (both are given)"},
        BadCase{"neither_steps_nor_end_time", kMesh + kFluid + "[time]\ndt = 0.1\n",
                "test.toml:5: [time] needs exactly one of steps and end_time (neither is given)"},
        BadCase{"negative_cfl", kBase + "cfl = -1\n", "test.toml:8: [time] cfl must be >= 0 (got -1)"},
        BadCase{"max_dt_below_dt", kBase + "cfl = 0.5\nmax_dt = 0.001\n", "test.toml:9: [time] max_dt must be >= dt"},
        BadCase{"theta", kBase + "[scheme]\ntheta = 0.3\n", "test.toml:9: [scheme] theta must be in [0.5, 1] (got 0.3"},
        BadCase{"time_stepping", kBase + "[scheme]\ntime_stepping = \"bdf2\"\n",
                "test.toml:9: [scheme] time_stepping must be \"crank_nicolson\" or \"theta\" (got \"bdf2\")"},
        BadCase{"crank_nicolson_theta", kBase + "[scheme]\ntime_stepping = \"crank_nicolson\"\ntheta = 0.5\n",
                "test.toml:10: [scheme] theta is for time_stepping = \"theta\" (crank_nicolson has θ = 0.5)"},
        BadCase{"crank_nicolson_steady", kMesh + kFluid + kSteadyTime + "[steady]\n[scheme]\ntime_stepping = \"crank_nicolson\"\n",
                "test.toml:9: [scheme] time_stepping = \"crank_nicolson\" does not apply in steady mode"},
        BadCase{"convection", kBase + "[scheme]\nconvection = \"quick\"\n",
                "test.toml:9: [scheme] convection must be \"central\" or \"upwind\" (got \"quick\")"},
        BadCase{"convection_time", kBase + "[scheme]\nconvection_time = \"semi\"\n",
                "test.toml:9: [scheme] convection_time must be \"explicit\" or \"implicit\" (got \"semi\")"},
        BadCase{"implicit_exact", kBase + "[scheme]\nmethod = \"exact\"\nconvection_time = \"implicit\"\n",
                "test.toml:10: [scheme] convection_time = \"implicit\" is for method = \"classical\""},
        BadCase{"explicit_cfl", kBase + "cfl = 20\n", "test.toml:8: [time] cfl must be <= 10 with explicit convection"},
        BadCase{"implicit_cfl", kBase + "cfl = 2000\n[scheme]\nconvection_time = \"implicit\"\n",
                "test.toml:8: [time] cfl must be <= 1000 with implicit convection (got 2000)"},
        BadCase{"steady_tolerance", kMesh + kFluid + kSteadyTime + "[steady]\ntolerance = -1\n",
                "test.toml:8: [steady] tolerance must be positive (got -1)"},
        BadCase{"steady_cfl_max", kMesh + kFluid + kSteadyTime + "[steady]\ncfl_start = 5\ncfl_max = 2\n",
                "test.toml:9: [steady] cfl_max must be in [5, 1000]"},
        BadCase{"steady_grad_div", kMesh + kFluid + kSteadyTime + "[steady]\ngrad_div = -1\n",
                "test.toml:8: [steady] grad_div must be in [0, 100]"},
        BadCase{"steady_steps", kBase + "[steady]\n",
                "test.toml:7: [time] steps does not apply in steady mode"},
        BadCase{"steady_explicit", kMesh + kFluid + kSteadyTime + "[steady]\n[scheme]\nconvection_time = \"explicit\"\n",
                "test.toml:9: [scheme] convection_time = \"explicit\" does not apply in steady mode"},
        BadCase{"steady_time_dependent",
                kMesh + kFluid + kSteadyTime + "[steady]\n[[boundary]]\ngroup = \"lid\"\ntype = \"wall\"\n"
                "velocity = [\"sin(t)\", 0, 0]\n",
                "test.toml:8: [[boundary]] for group lid depends on t; steady mode needs boundary values that do not "
                "change in time"},
        BadCase{"unknown_type", kBase + "[[boundary]]\ngroup = \"lid\"\ntype = \"inlet\"\n",
                "test.toml:10: [[boundary]] type must be \"wall\", \"velocity\", \"pressure\" or \"slip\" (got \"inlet\")"},
        BadCase{"no_type", kBase + "[[boundary]]\ngroup = \"lid\"\n",
                "test.toml:8: [[boundary]] for group lid needs type = \"wall\", \"velocity\", \"pressure\" or \"slip\""},
        BadCase{"no_group", kBase + "[[boundary]]\ntype = \"wall\"\n", "test.toml:8: [[boundary]] needs group"},
        BadCase{"velocity_without_velocity", kBase + "[[boundary]]\ngroup = \"lid\"\ntype = \"velocity\"\n",
                "test.toml:8: [[boundary]] for group lid has type = \"velocity\" and needs velocity = [u, v, w]"},
        BadCase{"pressure_on_wall", kBase + "[[boundary]]\ngroup = \"walls\"\ntype = \"wall\"\npressure = 0\n",
                "test.toml:11: [[boundary]] pressure is for type = \"pressure\" only, not \"wall\""},
        BadCase{"velocity_on_slip", kBase + "[[boundary]]\ngroup = \"walls\"\ntype = \"slip\"\nvelocity = [0, 0, 0]\n",
                "test.toml:11: [[boundary]] velocity is for type = \"velocity\" or \"wall\""},
        BadCase{"vector_of_two", kBase + "[[boundary]]\ngroup = \"lid\"\ntype = \"velocity\"\nvelocity = [1, 0]\n",
                "test.toml:11: [[boundary]] velocity must be an array of 3 numbers or expression strings ([x, y, z]) "
                "(got 2 entries)"},
        BadCase{"vector_not_array", kBase + "[initial]\nvelocity = 1\n",
                "test.toml:9: [initial] velocity must be an array of 3 numbers or expression strings"},
        BadCase{"vector_entry_type", kBase + "[initial]\nvelocity = [0, true, 0]\n",
                "test.toml:9: [initial] velocity[1] must be a number or an expression string"},
        BadCase{"bad_expression",
                kBase + "[[boundary]]\ngroup = \"lid\"\ntype = \"velocity\"\nvelocity = [\"16*x*(1-x\", 0, 0]\n",
                "test.toml:11: [[boundary]] velocity[0]: Missing parenthesis in \"16*x*(1-x\""},
        BadCase{"unknown_variable", kBase + "[initial]\nvelocity = [0, \"w\", 0]\n",
                "test.toml:9: [initial] velocity[1]: unknown variable 'w'"},
        BadCase{"bad_pressure_expression",
                kBase + "[[boundary]]\ngroup = 2\ntype = \"pressure\"\npressure = \"x +\"\n",
                "test.toml:11: [[boundary]] pressure: Unexpected end of expression"},
        BadCase{"duplicate_group",
                kBase + "[[boundary]]\ngroup = \"lid\"\ntype = \"wall\"\n[[boundary]]\ngroup = \"lid\"\ntype = \"slip\"\n",
                "test.toml:11: group lid already has a boundary condition (line 8)"},
        BadCase{"missing_mesh_file", "[mesh]\nfile = \"nope.msh\"\n" + kFluid + kTime, "test.toml:2: mesh file '"},
        BadCase{"no_mesh", kFluid + kTime, "test.toml: missing [mesh]"},
        BadCase{"zero_slice_normal", kBase + "[output]\nslice_normal = [0, 0, 0]\n",
                "test.toml:9: [output] slice_normal must not be zero"},
        BadCase{"slice_origin_size", kBase + "[output]\nslice_origin = [0, 0]\n",
                "test.toml:9: [output] slice_origin must be an array of 3 numbers ([x, y, z]) (got 2 entries)"},
        BadCase{"output_every", kBase + "[output]\nevery = 0\n", "test.toml:9: [output] every must be >= 1"},
        BadCase{"preconditioner", kBase + "[solver.pressure]\npreconditioner = \"ilu\"\n",
                "test.toml:9: [solver.pressure] preconditioner must be \"multigrid\", \"jacobi\" or \"none\" (got "
                "\"ilu\")"},
        BadCase{"variant", kBase + "[solver.momentum]\nvariant = \"s_step\"\n",
                "test.toml:9: [solver.momentum] variant must be \"textbook\", \"single_sync\" or \"pipelined\" (got "
                "\"s_step\")"},
        BadCase{"replacement_period_variant", kBase + "[solver.momentum]\nreplacement_period = 10\n",
                "test.toml:9: [solver.momentum] replacement_period is for variant = \"pipelined\""},
        BadCase{"replacement_period", kBase + "[solver.momentum]\nvariant = \"pipelined\"\nreplacement_period = -1\n",
                "test.toml:10: [solver.momentum] replacement_period must be >= 0"},
        BadCase{"momentum_multigrid", kBase + "[solver.momentum]\npreconditioner = \"multigrid\"\n",
                "test.toml:9: [solver.momentum] preconditioner must be \"automatic\", \"jacobi\", \"chebyshev\", "
                "\"block_jacobi\" or "
                "\"none\" (got \"multigrid\")"},
        BadCase{"block_jacobi_explicit", kBase + "[solver.momentum]\npreconditioner = \"block_jacobi\"\n",
                "test.toml:9: [solver.momentum] preconditioner = \"block_jacobi\" needs [scheme] convection_time = "
                "\"implicit\" (or [steady])"},
        BadCase{"chebyshev_flux", kBase + "[solver.momentum]\nsystem = \"flux\"\npreconditioner = \"chebyshev\"\n",
                "test.toml:10: [solver.momentum] preconditioner = \"chebyshev\" is for the edge vorticity system: "
                "system = \"flux\" solves for the face fluxes"},
        BadCase{"chebyshev_implicit",
                kBase + "[scheme]\nconvection_time = \"implicit\"\n[solver.momentum]\npreconditioner = \"chebyshev\"\n",
                "test.toml:11: [solver.momentum] preconditioner = \"chebyshev\" is for the edge vorticity system: "
                "implicit convection makes the momentum system nonsymmetric"},
        BadCase{"chebyshev_degree_jacobi", kBase + "[solver.momentum]\nchebyshev_degree = 5\n",
                "test.toml:9: [solver.momentum] chebyshev_degree is for preconditioner = \"chebyshev\""},
        BadCase{"chebyshev_degree_even", kBase + "[solver.momentum]\npreconditioner = \"chebyshev\"\nchebyshev_degree = 4\n",
                "test.toml:10: [solver.momentum] chebyshev_degree must be odd, from 1 to 15 (got 4): an even degree's "
                "polynomial is not positive"},
        BadCase{"chebyshev_degree_large", kBase + "[solver.momentum]\npreconditioner = \"chebyshev\"\nchebyshev_degree = 17\n",
                "test.toml:10: [solver.momentum] chebyshev_degree must be odd, from 1 to 15 (got 17)"},
        BadCase{"chebyshev_degree_on_pressure", kBase + "[solver.pressure]\nchebyshev_degree = 3\n",
                "test.toml:9: unknown key 'chebyshev_degree' in [solver.pressure]"},
        BadCase{"smoother_degree_jacobi", kBase + "[solver.pressure]\npreconditioner = \"jacobi\"\nsmoother_degree = 3\n",
                "test.toml:10: [solver.pressure] smoother_degree is for preconditioner = \"multigrid\""},
        BadCase{"smoother_degree_zero", kBase + "[solver.pressure]\nsmoother_degree = 0\n",
                "test.toml:9: [solver.pressure] smoother_degree must be from 1 to 8 (got 0)"},
        BadCase{"smoother_degree_on_momentum", kBase + "[solver.momentum]\nsmoother_degree = 3\n",
                "test.toml:9: unknown key 'smoother_degree' in [solver.momentum]"},
        BadCase{"momentum_system", kBase + "[solver.momentum]\nsystem = \"edges\"\n",
                "test.toml:9: [solver.momentum] system must be \"automatic\", \"flux\" or \"vorticity\" (got "
                "\"edges\")"},
        BadCase{"vorticity_implicit",
                kBase + "[scheme]\nconvection_time = \"implicit\"\n[solver.momentum]\nsystem = \"vorticity\"\n",
                "test.toml:11: [solver.momentum] system = \"vorticity\" does not apply: implicit convection makes the "
                "momentum system nonsymmetric"},
        BadCase{"vorticity_exact", kBase + "[scheme]\nmethod = \"exact\"\n[solver.momentum]\nsystem = \"vorticity\"\n",
                "test.toml:11: [solver.momentum] system = \"vorticity\" does not apply: method = \"exact\" solves for "
                "the streamfunction"},
        BadCase{"system_on_pressure", kBase + "[solver.pressure]\nsystem = \"flux\"\n",
                "test.toml:9: unknown key 'system' in [solver.pressure]"},
        BadCase{"initial_guess", kBase + "[solver.pressure]\ninitial_guess = \"last\"\n",
                "test.toml:9: [solver.pressure] initial_guess must be \"zero\" or \"extrapolated\" (got \"last\")"},
        BadCase{"initial_guess_on_momentum", kBase + "[solver.momentum]\ninitial_guess = \"zero\"\n",
                "test.toml:9: unknown key 'initial_guess' in [solver.momentum]"},
        BadCase{"gauge", kBase + "[solver.streamfunction]\ngauge = \"tree\"\n",
                "test.toml:9: [solver.streamfunction] gauge must be \"grad_div\" or \"none\" (got \"tree\")"},
        BadCase{"streamfunction_multigrid", kBase + "[solver.streamfunction]\npreconditioner = \"multigrid\"\n",
                "test.toml:9: [solver.streamfunction] preconditioner must be \"automatic\", \"ams\", \"jacobi\" or "
                "\"none\" (got \"multigrid\")"},
        BadCase{"ams_without_gauge", kBase + "[solver.streamfunction]\npreconditioner = \"ams\"\ngauge = \"none\"\n",
                "test.toml:9: [solver.streamfunction] preconditioner = \"ams\" needs gauge = \"grad_div\""},
        BadCase{"ams_on_momentum", kBase + "[solver.momentum]\npreconditioner = \"ams\"\n",
                "test.toml:9: [solver.momentum] preconditioner must be \"automatic\", \"jacobi\", \"chebyshev\", "
                "\"block_jacobi\" or "
                "\"none\" (got \"ams\")"},
        BadCase{"gauge_on_momentum", kBase + "[solver.momentum]\ngauge = \"none\"\n",
                "test.toml:9: unknown key 'gauge' in [solver.momentum]"},
        BadCase{"solver_tolerance", kBase + "[solver.momentum]\ntolerance = 0\n",
                "test.toml:9: [solver.momentum] tolerance must be in (0, 1)"},
        BadCase{"unknown_solver", kBase + "[solver.pressur]\ntolerance = 1e-8\n", "test.toml:8: unknown key 'pressur' in [solver]"},
        BadCase{"force_without_group", kBase + "[[force]]\nreference_area = 1\n", "test.toml:8: [[force]] needs group"},
        BadCase{"force_half_reference", kBase + "[[force]]\ngroup = \"lid\"\nreference_velocity = 1\n",
                "test.toml:8: [[force]] needs both reference_velocity and reference_area"},
        BadCase{"force_zero_area", kBase + "[[force]]\ngroup = \"lid\"\nreference_velocity = 1\nreference_area = 0\n",
                "test.toml:11: [[force]] reference_area must be positive (got 0)"},
        BadCase{"force_unknown_key", kBase + "[[force]]\ngroup = \"lid\"\ndirection = [1, 0, 0]\n",
                "test.toml:10: unknown key 'direction' in [[force]]"},
        BadCase{"force_not_array", kBase + "[force]\ngroup = \"lid\"\n", "test.toml:8: forces are written as [[force]] tables"},
        BadCase{"toml_syntax", kBase + "[scheme\n", "test.toml:8: "}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(FlowCase, TheCylinderSampleHasADragGroup) {
  const FlowCase c = read_flow_case(std::string(SS_SOURCE_DIR) + "/meshes/dfg_cylinder_flow.toml");
  ASSERT_EQ(c.forces.size(), 1u);
  EXPECT_EQ(c.forces[0].group, "cylinder");
  EXPECT_EQ(c.forces[0].reference_velocity, 0.2);
  EXPECT_EQ(c.forces[0].reference_area, 0.041);
  EXPECT_GT(c.forces[0].line, 0);
  ASSERT_EQ(c.boundaries.size(), 4u);
  EXPECT_NEAR(c.boundaries[0].velocity(0, 0.205, 0.205).x, 0.45, 1e-12);  // Um on the centre line
}

// DFG 3D-3Z: Crank–Nicolson by default, the inflow's centre line 2.25 sin(πt/8), coefficients with Ū = 1.
TEST(FlowCase, TheUnsteadyCylinderSampleRisesAndFalls) {
  const FlowCase c = read_flow_case(std::string(SS_SOURCE_DIR) + "/meshes/dfg_3d3z_flow.toml");
  EXPECT_TRUE(c.crank_nicolson);
  EXPECT_EQ(c.time.end_time, 8.0);
  ASSERT_EQ(c.forces.size(), 1u);
  EXPECT_EQ(c.forces[0].reference_velocity, 1.0);
  ASSERT_EQ(c.boundaries.size(), 4u);
  EXPECT_NEAR(c.boundaries[0].velocity(0, 0.205, 0.205, 4.0).x, 2.25, 1e-12);
  EXPECT_NEAR(c.boundaries[0].velocity(0, 0.205, 0.205, 2.0).x, 2.25 * std::sqrt(0.5), 1e-12);
  EXPECT_NEAR(c.boundaries[0].velocity(0, 0.205, 0.205, 8.0).x, 0.0, 1e-12);
}

// Ethier–Steinman: the same exact field on every face, at the start and as [exact], the closed form.
TEST(FlowCase, TheEthierSteinmanSampleIsTheExactSolution) {
  const FlowCase c = read_flow_case(std::string(SS_SOURCE_DIR) + "/meshes/ethier_steinman_flow.toml");
  EXPECT_TRUE(c.crank_nicolson);
  ASSERT_TRUE(c.exact_velocity.has_value());
  ASSERT_EQ(c.boundaries.size(), 6u);
  const double pi = 3.14159265358979323846, a = pi / 4, d = pi / 2, x = 0.3, y = 0.6, z = 0.8, t = 0.15;
  const double u = -a * (std::exp(a * x) * std::sin(a * y + d * z) + std::exp(a * z) * std::cos(a * x + d * y)) *
                   std::exp(-c.viscosity * d * d * t);
  EXPECT_NEAR((*c.exact_velocity)(x, y, z, t).x, u, 1e-12);
  for (const FlowBoundary& b : c.boundaries) EXPECT_EQ(b.velocity(x, y, z, t), (*c.exact_velocity)(x, y, z, t)) << b.group;
  EXPECT_EQ(c.initial_velocity(x, y, z, 0.0), (*c.exact_velocity)(x, y, z, 0.0));
}

// The DFG samples declare their cylinder (meshes/dfg_cylinder.geo: radius 0.05, axis along z through
// x = 0.5, y = 0.2), so --refine converges to it.
TEST(FlowCase, TheCylinderSamplesDeclareTheirCylinder) {
  for (const char* file : {"dfg_cylinder_flow.toml", "dfg_cylinder_steady_flow.toml", "dfg_3d3z_flow.toml"}) {
    const FlowCase c = read_flow_case(std::string(SS_SOURCE_DIR) + "/meshes/" + file);
    ASSERT_EQ(c.surfaces.size(), 1u) << file;
    EXPECT_EQ(c.surfaces[0].group, "cylinder") << file;
    EXPECT_EQ(c.surfaces[0].shape, SurfaceShape::cylinder) << file;
    EXPECT_EQ(c.surfaces[0].point, glm::dvec3(0.5, 0.2, 0.0)) << file;
    EXPECT_EQ(c.surfaces[0].direction, glm::dvec3(0.0, 0.0, 1.0)) << file;
    EXPECT_EQ(c.surfaces[0].radius, 0.05) << file;
  }
}

// Found by fuzzing: a file name longer than the system allows is a one-line error, not a throw of
// std::filesystem_error that nobody catches.
TEST(FlowCase, OverlongMeshFileNameIsAnError) {
  try {
    parse_flow_case("[mesh]\nfile = \"" + std::string(5000, 'm') + ".msh\"\n" + kFluid + kTime, kCasePath);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("test.toml:2: mesh file '"), std::string::npos) << what;
    EXPECT_NE(what.find("cannot be looked up: File name too long"), std::string::npos) << what;
  }
}

TEST(FlowCase, MissingCaseFileIsAnError) {
  try {
    read_flow_case("/nonexistent/flow.toml");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("cannot open case file '/nonexistent/flow.toml'"), std::string::npos) << e.what();
  }
}

// [heat], [buoyancy] and the thermal keys of [[boundary]] (heat carried by the flow).
TEST(FlowCase, HeatAndBuoyancyTablesParse) {
  const FlowCase c = parse_flow_case(
      kBase +
          "[heat]\nconductivity = 0.5\nheat_capacity = 2\nsource = \"x\"\ninitial = 3\nreference_length = 0.5\n"
          "advection = \"limited\"\n"
          "reference_temperature_difference = 2\n[buoyancy]\ngravity = [0, 0, -9.81]\nexpansion = 0.01\n"
          "reference_temperature = 1.5\n[[boundary]]\ngroup = \"lid\"\ntype = \"wall\"\ntemperature = \"1 + x\"\n"
          "[[boundary]]\ngroup = \"walls\"\ntype = \"wall\"\nheat_flux = 4\n[solver.temperature]\ntolerance = 1e-8\n"
          "[output]\nslice_field = \"temperature\"\n",
      kCasePath);
  ASSERT_TRUE(c.heat && c.buoyancy);
  EXPECT_EQ(c.heat->conductivity, 0.5);
  EXPECT_EQ(c.heat->heat_capacity, 2.0);
  EXPECT_EQ(c.heat->advection, "limited");
  EXPECT_EQ(c.slice_field, "temperature");
  EXPECT_EQ(c.heat->source(2.0, 0, 0), 2.0);
  EXPECT_EQ(c.heat->initial(0, 0, 0), 3.0);
  EXPECT_EQ(c.heat->reference_length, 0.5);
  EXPECT_EQ(c.heat->reference_temperature_difference, 2.0);
  EXPECT_EQ(c.buoyancy->gravity, glm::dvec3(0, 0, -9.81));
  EXPECT_EQ(c.buoyancy->expansion, 0.01);
  EXPECT_EQ(c.buoyancy->reference_temperature, 1.5);
  ASSERT_TRUE(c.boundaries[0].temperature && !c.boundaries[0].heat_flux);
  EXPECT_EQ((*c.boundaries[0].temperature)(2.0, 0, 0), 3.0);
  ASSERT_TRUE(c.boundaries[1].heat_flux && !c.boundaries[1].temperature);
  EXPECT_EQ((*c.boundaries[1].heat_flux)(0, 0, 0), 4.0);
  EXPECT_EQ(c.temperature.tolerance, 1e-8);
  EXPECT_FALSE(parse_flow_case(kBase, kCasePath).heat);
}

INSTANTIATE_TEST_SUITE_P(
    Heat, FlowCaseErrors,
    ::testing::Values(
        BadCase{"buoyancy_without_heat", kBase + "[buoyancy]\ngravity = [0, 0, -9.81]\nexpansion = 0.01\n",
                "test.toml:8: [buoyancy] needs a temperature: add a [heat] table"},
        BadCase{"temperature_without_heat", kBase + "[[boundary]]\ngroup = \"lid\"\ntype = \"wall\"\ntemperature = 1\n",
                "test.toml:8: [[boundary]] for group lid has temperature but the case has no [heat] table"},
        BadCase{"temperature_and_flux",
                kBase + "[heat]\n[[boundary]]\ngroup = \"lid\"\ntype = \"wall\"\ntemperature = 1\nheat_flux = 2\n",
                "test.toml:13: [[boundary]] for group lid has both temperature and heat_flux; give one"},
        BadCase{"temperature_in_time", kBase + "[heat]\n[[boundary]]\ngroup = \"lid\"\ntype = \"wall\"\ntemperature = \"t\"\n",
                "test.toml:12: [[boundary]] temperature = \"t\" depends on t; thermal conditions are constant in time"},
        BadCase{"negative_conductivity", kBase + "[heat]\nconductivity = -1\n", "test.toml:9: [heat] conductivity must be positive (got -1)"},
        BadCase{"temperature_slice_without_heat", kBase + "[output]\nslice_field = \"temperature\"\n",
                "test.toml:9: [output] slice_field = \"temperature\" needs a [heat] table"},
        BadCase{"unknown_slice_field", kBase + "[heat]\n[output]\nslice_field = \"pressure\"\n",
                "test.toml:10: [output] slice_field must be \"velocity\" or \"temperature\" (got \"pressure\")"},
        BadCase{"unknown_advection", kBase + "[heat]\nadvection = \"central\"\n",
                "test.toml:9: [heat] advection must be \"upwind\" or \"limited\" (got \"central\")"},
        BadCase{"half_reference", kBase + "[heat]\nreference_length = 1\n",
                "test.toml:8: [heat] needs both reference_length and reference_temperature_difference"},
        BadCase{"buoyancy_without_gravity", kBase + "[heat]\n[buoyancy]\nexpansion = 0.01\n",
                "test.toml:9: [buoyancy] needs gravity = [gx, gy, gz] and expansion"},
        BadCase{"heat_unknown_key", kBase + "[heat]\ndiffusivity = 1\n", "test.toml:9: unknown key 'diffusivity' in [heat]"},
        BadCase{"temperature_solver_without_heat", kBase + "[solver.temperature]\ntolerance = 1e-8\n",
                "test.toml:8: [solver.temperature] needs a [heat] table"}),
    [](const ::testing::TestParamInfo<BadCase>& info) { return std::string(info.param.name); });

TEST(FlowCase, ReadsABodyForce) {
  const std::string text = "[mesh]\nfile = \"cavity.msh\"\n[fluid]\nviscosity = 1\nbody_force = [2, 0, -1]\n"
                           "[[boundary]]\ngroup = \"walls\"\ntype = \"wall\"\n[time]\ndt = 0.1\nsteps = 1\n";
  EXPECT_EQ(parse_flow_case(text, kCasePath).body_force, glm::dvec3(2, 0, -1));
}

}  // namespace
}  // namespace ss
