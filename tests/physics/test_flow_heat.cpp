// Heat carried by the flow (physics/flow_temperature.hpp), against exact solutions:
//  - a fluid at rest conducts as the heat command does (same θ-scheme, source, fixed and flux
//    boundaries, initial field);
//  - plug flow through a duct with fixed inlet and outlet temperatures: the steady 1D
//    advection–diffusion profile T(x) = (e^{Pe x/L} − 1)/(e^{Pe} − 1)
//    and the steady energy balance of the reported heat, on the CPU reference and on the GPU; GPU = CPU
//    over a few steps on both launch paths;
//  - Boussinesq buoyancy of a stable stratification T = z at rest: the pressure balances it,
//    dp/dz = β |g| (T − T_ref), and the fluid stays at rest;
//  - natural convection in a differentially heated cube (Ra 1e4): direction, balance and a loose
//    Nusselt number on a coarse mesh; the limited advection's steady Nusselt number far nearer the
//    published one than the upwind's, T within the wall values;
//  - forced convection in a square duct with a fixed wall temperature: the developed Nusselt number
//    against Shah & London's 2.976, converging from above with the mesh.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <utility>

#include "cpu/cpu_backend.hpp"
#include "mesh/box_mesh.hpp"
#include "operators/heat_operator.hpp"
#include "postprocess/flow_heat_flux.hpp"
#include "physics/flow_heat_test_util.hpp"
#include "physics/flow_temperature.hpp"
#include "cases/heat_case.hpp"
#include "problems/heat_problem.hpp"
#include "physics/heat_solver.hpp"
#include "support/gl_fixture.hpp"
#include "support/project_mesh.hpp"
#include "util/error.hpp"

namespace ss::test {
namespace {

const std::string kClosedBox =
    "[[boundary]]\ngroup = \"xmin\"\ntype = \"wall\"\ntemperature = \"1 + y*z\"\n"
    "[[boundary]]\ngroup = \"xmax\"\ntype = \"wall\"\n"
    "[[boundary]]\ngroup = \"ymin\"\ntype = \"wall\"\n"
    "[[boundary]]\ngroup = \"ymax\"\ntype = \"wall\"\n"
    "[[boundary]]\ngroup = \"zmin\"\ntype = \"wall\"\n"
    "[[boundary]]\ngroup = \"zmax\"\ntype = \"wall\"\nheat_flux = 2\n";

// The closed box at rest with a source, a fixed and a flux boundary: the flow case with [heat] and
// the same problem written as a heat case, solved by the heat command's solver (CPU, double).
FlowCase resting_box_case() {
  return heat_flow_case(
      "[fluid]\nviscosity = 0.1\n[heat]\nconductivity = 0.7\nheat_capacity = 2\nsource = \"1 + x\"\ninitial = \"z\"\n" +
      kClosedBox + "[time]\ndt = 0.05\nsteps = 6\n[solver.temperature]\ntolerance = 1e-12\n");
}

std::vector<double> resting_box_heat_solution(const LoadedMesh& m, std::vector<double>& initial) {
  const HeatCase h = parse_heat_case(
      "[mesh]\nfile = \"cube.msh\"\n[material]\nconductivity = 0.7\nheat_capacity = 2\nsource = \"1 + x\"\n"
      "[[boundary]]\ngroup = \"xmin\"\ntype = \"dirichlet\"\nvalue = \"1 + y*z\"\n"
      "[[boundary]]\ngroup = \"zmax\"\ntype = \"neumann\"\nvalue = 2\n"
      "[time]\ndt = 0.05\nsteps = 6\ntheta = 1\ninitial = \"z\"\n"
      "[solver]\ntolerance = 1e-12\npreconditioner = \"jacobi\"\n",
      std::string(SS_SOURCE_DIR) + "/meshes/test.toml");
  const HeatProblem problem = build_heat_problem(h, m);
  CpuBackend cpu;
  CpuHeatOperator op(std::make_shared<const HeatOperatorData>(assemble_heat_system(m, problem)));
  HeatSolveReport report;
  const std::vector<double> T = solve_heat(cpu, op, problem, report);
  EXPECT_TRUE(report.converged) << report.stop_reason;
  initial = problem.initial;
  return T;
}

// max |a − b| / max |b|, and max |b − initial| (how far the run moved T).
std::pair<double, double> relative_difference(const std::vector<double>& a, const std::vector<double>& b,
                                              const std::vector<double>& initial) {
  EXPECT_EQ(a.size(), b.size());
  double diff = 0, scale = 0, change = 0;
  for (size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
    diff = std::max(diff, std::fabs(a[i] - b[i]));
    scale = std::max(scale, std::fabs(b[i]));
    change = std::max(change, std::fabs(b[i] - initial[i]));
  }
  return {diff / scale, change};
}

TEST(FlowHeat, AtRestItConductsAsTheHeatCommand) {
  const LoadedMesh m = prepare_mesh(make_box_mesh(4, 3, 3));
  const FlowRunResult flow = run_heat_flow_on_cpu(resting_box_case(), m);
  std::vector<double> initial;
  const std::vector<double> T = resting_box_heat_solution(m, initial);
  const auto [diff, change] = relative_difference(flow.state.temperature, T, initial);
  std::printf("  max |T_flow - T_heat| / max |T| %.3g (max change over the run %.3g)\n", diff, change);
  EXPECT_GT(change, 0.1);  // the six steps moved T: the comparison is not of two initial fields
  EXPECT_LE(diff, 1e-9);   // measured 1.8e-12 (CG tolerances 1e-12 on both sides)
  // The fluid stayed at rest.
  for (double U : flow.state.flux) ASSERT_EQ(U, 0.0);
}

// Plug flow at speed 1 along a duct of length L = 1 (slip walls), T = 0 at the inlet and 1 at the
// outlet, Pe = ρc U L / k = 5: T(x) = (e^{Pe x} − 1)/(e^{Pe} − 1). Marched to t = 3 (the slowest
// mode decays like e^{−(Pe²/4 + π²) k t / ρc L²}: e^{−13}).
constexpr double kPe = 5.0;
std::string plug_duct_case(double dt, double end_time) {
  return "[fluid]\nviscosity = 0.05\n[heat]\nconductivity = 0.2\nheat_capacity = 1\n"
         "[initial]\nvelocity = [1, 0, 0]\n"
         "[[boundary]]\ngroup = \"xmin\"\ntype = \"velocity\"\nvelocity = [1, 0, 0]\ntemperature = 0\n"
         "[[boundary]]\ngroup = \"xmax\"\ntype = \"pressure\"\ntemperature = 1\n"
         "[[boundary]]\ngroup = \"ymin\"\ntype = \"slip\"\n[[boundary]]\ngroup = \"ymax\"\ntype = \"slip\"\n"
         "[[boundary]]\ngroup = \"zmin\"\ntype = \"slip\"\n[[boundary]]\ngroup = \"zmax\"\ntype = \"slip\"\n"
         "[time]\ndt = " + std::to_string(dt) + "\nend_time = " + std::to_string(end_time) + "\n";
}

double plug_exact(double x) { return std::expm1(kPe * x) / std::expm1(kPe); }

LoadedMesh plug_duct_mesh(int nx) { return prepare_mesh(make_box_mesh(nx, 2, 2, glm::dvec3(1.0, 0.25, 0.25))); }

// max_i |T_i − T(x_i)|
double plug_error(const LoadedMesh& m, const std::vector<double>& T) {
  double e = 0;
  for (size_t i = 0; i < T.size(); ++i) e = std::max(e, std::fabs(T[i] - plug_exact(m.mesh.nodes[i].x)));
  return e;
}

TEST(FlowHeat, PlugFlowDuctMatchesExactAdvectionDiffusion) {
  const LoadedMesh m = plug_duct_mesh(16);
  const FlowCase c = heat_flow_case(plug_duct_case(0.01, 3.0));
  const FlowRunResult r = run_heat_flow_on_cpu(c, m);
  const double error = plug_error(m, r.state.temperature);
  // Without advection the profile is linear: its distance from the exact one is what a lost
  // advection term would leave.
  double linear = 0;
  for (size_t i = 0; i < m.mesh.nodes.size(); ++i)
    linear = std::max(linear, std::fabs(m.mesh.nodes[i].x - plug_exact(m.mesh.nodes[i].x)));
  // Steady energy balance: the heat the two fixed groups give the fluid leaves with it,
  // ρc U A (T_out − T_in) = 0.0625.
  const FlowHeatProblem h = build_flow_heat_problem(c, m);
  const std::vector<FlowGroupHeat> heat = FlowHeatMeter(m, h).measure(r.state);
  ASSERT_EQ(heat.size(), 2u);
  const double balance = heat[0].heat + heat[1].heat;
  std::printf("  max |T - exact| %.4f (linear profile: %.3f); heat in %.6f (exact 0.0625); max thermal Courant %.3f\n",
              error, linear, balance, r.heat->max_courant);
  // Measured 0.069: first-order upwind's numerical diffusion (on these Kuhn tets it acts as about
  // k + 0.05, an effective Pe of 4; 0.045 at half the cell size along x); a lost or flipped
  // advection term is off by > 0.4.
  EXPECT_LE(error, 0.09);
  EXPECT_GT(linear, 0.4);
  EXPECT_NEAR(balance, 0.0625, 1e-3 * 0.0625);  // measured 0.062501
  EXPECT_LE(r.heat->max_courant, 1.0);          // 0.64 at Δt = 0.01
}

// Δt twice the plug duct's: the thermal Courant number 1.28 stops the run at its first step with
// one line saying so.
TEST(FlowHeat, ThermalCourantAboveOneStopsTheRun) {
  const LoadedMesh m = plug_duct_mesh(16);
  try {
    run_heat_flow_on_cpu(heat_flow_case(plug_duct_case(0.02, 1.0)), m);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("cpu run stopped: thermal Courant number 1.28"), std::string::npos) << what;
    EXPECT_NE(what.find("exceeds 1"), std::string::npos) << what;
    EXPECT_NE(what.find("(step 1, t = 0.02)"), std::string::npos) << what;
  }
}

class FlowHeatGpu : public GlTest, public ::testing::WithParamInterface<LaunchPath> {};

// A few steps on both launch paths: the GPU's temperature equals the CPU reference's.
TEST_P(FlowHeatGpu, PlugFlowDuctStepsEqualTheCpuReference) {
  const LoadedMesh m = plug_duct_mesh(16);
  const FlowCase c = heat_flow_case(plug_duct_case(0.01, 0.2));
  GpuOptions options;
  options.launch = GetParam();
  GpuBackend gpu = make_gpu(LayoutOptions{}, options);
  const FlowRunResult g = run_heat_flow_on_gpu(gpu, c, m);
  const FlowRunResult r = run_heat_flow_on_cpu(c, m);
  double diff = 0;
  for (size_t i = 0; i < r.state.temperature.size(); ++i)
    diff = std::max(diff, std::fabs(g.state.temperature[i] - r.state.temperature[i]));
  std::printf("  max |T_gpu - T_cpu| %.3g after %d steps\n", diff, g.state.step);
  // float32 kernels and solves (tolerance 1e-6) on a field of size 1: measured ~1e-7.
  EXPECT_LE(diff, 1e-5);
}

// The buoyant cube of the sample case (meshes/heated_cavity_flow.toml) for 15 steps from rest: the
// buoyancy drives the flow on the GPU as on the CPU reference.
// Both advection schemes (the limited one: a gradient pass, then its rate).
TEST_P(FlowHeatGpu, BuoyantCubeStepsEqualTheCpuReference) {
  for (const char* advection : {"upwind", "limited"}) {
  SCOPED_TRACE(advection);
  FlowCase c = read_flow_case(std::string(SS_SOURCE_DIR) + "/meshes/heated_cavity_flow.toml");
  c.time.steps = 15, c.time.end_time = 0;
  c.heat->advection = advection;
  const LoadedMesh& m = project_mesh("cube.msh", 0);
  GpuOptions options;
  options.launch = GetParam();
  GpuBackend gpu = make_gpu(LayoutOptions{}, options);
  const FlowRunResult g = run_heat_flow_on_gpu(gpu, c, m);
  const FlowRunResult r = run_heat_flow_on_cpu(c, m);
  double dT = 0, dU = 0, U = 0;
  for (size_t i = 0; i < r.state.temperature.size(); ++i)
    dT = std::max(dT, std::fabs(g.state.temperature[i] - r.state.temperature[i]));
  for (size_t f = 0; f < r.state.flux.size(); ++f)
    dU = std::max(dU, std::fabs(g.state.flux[f] - r.state.flux[f])), U = std::max(U, std::fabs(r.state.flux[f]));
  std::printf("  max |T_gpu - T_cpu| %.3g, max |U_gpu - U_cpu| / max |U| %.3g (max |U_f| %.3g) after %d steps\n", dT,
              dU / U, U, g.state.step);
  EXPECT_GT(U, 1e-4);  // the buoyancy has set the fluid moving
  EXPECT_LE(dT, 1e-5);
  EXPECT_LE(dU, 1e-4 * U);
  }
}

INSTANTIATE_TEST_SUITE_P(Paths, FlowHeatGpu, ::testing::Values(LaunchPath::fragment, LaunchPath::compute),
                         [](const ::testing::TestParamInfo<LaunchPath>& info) { return std::string(to_string(info.param)); });

class FlowHeatGpuCompute : public GlTest {};

// The physics check on the GPU (compute launch: the faster one on llvmpipe), to the steady state.
TEST_F(FlowHeatGpuCompute, PlugFlowDuctMatchesExactAdvectionDiffusion) {
  const LoadedMesh m = plug_duct_mesh(16);
  GpuBackend gpu = make_gpu(Packing::r32f, LaunchPath::compute);
  const FlowRunResult g = run_heat_flow_on_gpu(gpu, heat_flow_case(plug_duct_case(0.01, 2.0)), m);
  const double error = plug_error(m, g.state.temperature);
  std::printf("  gpu max |T - exact| %.4f\n", error);
  EXPECT_LE(error, 0.09);  // t = 2 (e^{−9} of the start left): measured 0.069 as on the CPU
}

// The same on the GPU: its loads (source, heat flux), fixed values and θ-steps in float.
TEST_F(FlowHeatGpuCompute, AtRestItConductsAsTheHeatCommand) {
  const LoadedMesh m = prepare_mesh(make_box_mesh(4, 3, 3));
  GpuBackend gpu = make_gpu(Packing::r32f, LaunchPath::compute);
  FlowCase c = resting_box_case();
  c.temperature.tolerance = 1e-6;  // float
  const FlowRunResult flow = run_heat_flow_on_gpu(gpu, c, m);
  std::vector<double> initial;
  const std::vector<double> T = resting_box_heat_solution(m, initial);
  const auto [diff, change] = relative_difference(flow.state.temperature, T, initial);
  std::printf("  gpu: max |T_flow - T_heat| / max |T| %.3g (max change over the run %.3g)\n", diff, change);
  EXPECT_GT(change, 0.1);
  EXPECT_LE(diff, 1e-5);  // float32 steps, CG to 1e-6 of each step's change
}

// A stable stratification at rest: T = z between a cold floor and a hot lid (adiabatic sides; P1
// holds it exactly), g = −9.81 ẑ, β = 0.1, T_ref = 0.3. The buoyancy −β (T − T_ref) g is the
// gradient of p(z) = β |g| (z²/2 − T_ref z): the pressure takes it and nothing moves. A flipped
// sign doubles the pressure's slope error; a lost term leaves p flat.
TEST(FlowHeat, BuoyancyOfAStableStratificationIsHeldByThePressure) {
  const LoadedMesh m = prepare_mesh(make_box_mesh(3, 3, 4));
  const FlowCase c = heat_flow_case(
      "[fluid]\nviscosity = 0.1\n[heat]\nconductivity = 1\ninitial = \"z\"\n"
      "[buoyancy]\ngravity = [0, 0, -9.81]\nexpansion = 0.1\nreference_temperature = 0.3\n"
      "[[boundary]]\ngroup = \"xmin\"\ntype = \"wall\"\n[[boundary]]\ngroup = \"xmax\"\ntype = \"wall\"\n"
      "[[boundary]]\ngroup = \"ymin\"\ntype = \"wall\"\n[[boundary]]\ngroup = \"ymax\"\ntype = \"wall\"\n"
      "[[boundary]]\ngroup = \"zmin\"\ntype = \"wall\"\ntemperature = 0\n"
      "[[boundary]]\ngroup = \"zmax\"\ntype = \"wall\"\ntemperature = 1\n"
      "[time]\ndt = 0.05\nsteps = 4\n[solver.pressure]\ntolerance = 1e-10\n[solver.momentum]\ntolerance = 1e-10\n");
  const FlowRunResult r = run_heat_flow_on_cpu(c, m);
  const double beta_g = 0.1 * 9.81;
  // p − its mean against the exact one − its mean, over the cells.
  const auto exact = [&](double z) { return beta_g * (0.5 * z * z - 0.3 * z); };
  double mean_p = 0, mean_exact = 0, volume = 0;
  for (size_t cell = 0; cell < r.state.pressure.size(); ++cell) {
    const double v = m.geometry.cell_volumes[cell];
    mean_p += v * r.state.pressure[cell], mean_exact += v * exact(m.geometry.cell_centroids[cell].z), volume += v;
  }
  mean_p /= volume, mean_exact /= volume;
  double error = 0, range = 0, max_flux = 0;
  for (size_t cell = 0; cell < r.state.pressure.size(); ++cell) {
    const double e = exact(m.geometry.cell_centroids[cell].z) - mean_exact;
    error = std::max(error, std::fabs(r.state.pressure[cell] - mean_p - e));
    range = std::max(range, std::fabs(e));
  }
  for (double U : r.state.flux) max_flux = std::max(max_flux, std::fabs(U));
  std::printf("  max |p - exact| %.3g of max |exact| %.3g; max |U_f| %.3g\n", error, range, max_flux);
  EXPECT_LE(error, 0.1 * range);
  // Unbalanced, a force β|g|(T − T_ref) ~ 0.7 over t = 0.2 would move the fluid at ~0.1 (face
  // fluxes ~5e-3 on faces of area ~0.05); the discrete balance leaves measured 4.3e-5.
  EXPECT_LE(max_flux, 5e-4);
}

// Natural convection in the differentially heated cube of the sample case
// (meshes/heated_cavity_flow.toml: Ra 1e4, Pr 0.71, to t = 40) on its coarse mesh (339 nodes):
// the hot fluid rises at the hot wall and sinks at the cold one, the two walls' heat balances, and
// the hot wall's mean Nusselt number is above the published 2.05 (Tric et al. 2000) by what this
// mesh resolves: measured 3.30 here, 2.58 with --refine 1, 2.28 with --refine 2, 1.00 with the
// buoyancy off (pure conduction, exact on P1). A lost buoyancy gives 1; a flipped one turns the circulation.
TEST(FlowHeat, DifferentiallyHeatedCubeConvects) {
  const FlowCase c = read_flow_case(std::string(SS_SOURCE_DIR) + "/meshes/heated_cavity_flow.toml");
  const LoadedMesh& m = project_mesh("cube.msh", 0);
  const FlowRunResult r = run_heat_flow_on_cpu(c, m);
  const FlowHeatProblem h = build_flow_heat_problem(c, m);
  const std::vector<FlowGroupHeat> heat = FlowHeatMeter(m, h).measure(r.state);
  ASSERT_EQ(heat.size(), 2u);
  ASSERT_TRUE(heat[0].nusselt && heat[1].nusselt);
  // Mean vertical velocity of the cells next to each heated wall.
  CpuMeshOperators ops(m);
  std::vector<double> ux, uy, uz;
  ops.interpolate(r.state.flux, ux, uy, uz);
  double hot = 0, cold = 0;
  for (size_t cell = 0; cell < uz.size(); ++cell) {
    const double x = m.geometry.cell_centroids[cell].x, v = m.geometry.cell_volumes[cell];
    if (x < 0.2) hot += v * uz[cell];
    if (x > 0.8) cold += v * uz[cell];
  }
  std::printf("  Nu hot %.4f, cold %.4f; vertical flow at the hot wall %.3g, at the cold wall %.3g\n", *heat[0].nusselt,
              *heat[1].nusselt, hot, cold);
  EXPECT_GT(hot, 0.0);
  EXPECT_LT(cold, 0.0);
  EXPECT_NEAR(*heat[0].nusselt, -*heat[1].nusselt, 1e-3 * *heat[0].nusselt);
  EXPECT_GE(*heat[0].nusselt, 2.05);
  EXPECT_LE(*heat[0].nusselt, 3.6);
}

// The same cube marched to its steady state by both advection schemes on the coarse mesh: the
// limited linear upwind's Nusselt number is far nearer the published 2.05 (measured 2.49 against
// upwind's 3.30; refined once 2.16 against 2.58), the two walls' heat balances, and T stays
// within the wall values.
TEST(FlowHeat, LimitedAdvectionBringsTheCubesNusseltNumberNearThePublishedOne) {
  std::ifstream in(std::string(SS_SOURCE_DIR) + "/meshes/heated_cavity_flow.toml");
  std::stringstream text;
  text << in.rdbuf();
  std::string base = text.str();
  base = base.substr(0, base.find("[time]")) + "[time]\ndt = 0.05\n[steady]\ntolerance = 1e-5\nmax_steps = 500\n";
  const LoadedMesh& m = project_mesh("cube.msh", 0);
  double nusselt[2] = {0, 0};
  for (int limited = 0; limited < 2; ++limited) {
    std::string t = base;
    if (limited) t.replace(t.find("heat_capacity = 1.0"), 19, "heat_capacity = 1.0\nadvection = \"limited\"");
    const FlowCase c = parse_flow_case(t, std::string(SS_SOURCE_DIR) + "/meshes/heated_cavity_flow.toml");
    ASSERT_EQ(c.heat->advection, limited ? "limited" : "upwind");
    const FlowRunResult r = run_heat_flow_on_cpu(c, m);
    ASSERT_TRUE(r.steady && r.steady->stop_reason == "converged");
    const FlowHeatProblem h = build_flow_heat_problem(c, m);
    const std::vector<FlowGroupHeat> heat = FlowHeatMeter(m, h).measure(r.state);
    nusselt[limited] = *heat[0].nusselt;
    EXPECT_NEAR(*heat[0].nusselt, -*heat[1].nusselt, 1e-3 * *heat[0].nusselt);
    for (double T : r.state.temperature) {
      EXPECT_GE(T, -0.5 - 1e-9);
      EXPECT_LE(T, 0.5 + 1e-9);
    }
  }
  std::printf("  Nu (hot wall) upwind %.4f, limited %.4f (published 2.05)\n", nusselt[0], nusselt[1]);
  EXPECT_LT(std::fabs(nusselt[1] - 2.05), 0.5 * std::fabs(nusselt[0] - 2.05));
  EXPECT_GT(nusselt[1], 2.05);  // from above, as the upwind one
}

// Forced convection in a square duct (side D = 1, so D_h = 4A/P = 1) with a fixed wall temperature:
// the fully developed Nusselt number Nu_T = 2.976 (Shah & London 1978, laminar, hydrodynamically
// developed, negligible axial conduction), against 7.541 between parallel plates and 0 for a fluid
// that carries no heat.
//
// Set-up: the duct along x, length L, ρc = 1, mean speed 1, k = 1/Pe (Pe = ρc U D_h / k). The
// velocity is the developed one, prescribed: w(y, z) of −∇²w = const, w = 0 on the walls,
//     w ∝ Σ_{n,m odd} sin(nπy) sin(mπz) / (n m (n² + m²)),   scaled to a mean of 1,
// as face fluxes U_f = ∫_f w x̂·n dA (face_fluxes). Inlet T = 0, walls T = 1, outlet zero gradient.
// FlowTemperature (the CPU reference of a flow run's temperature) marches to its steady state under
// that flux.
//
// Measure, on a section [x_a, x_b] of the developed region (node planes x_a..x_b, their dual cells
// spanning [x_a − h_x/2, x_b + h_x/2], wall area A_w = P (x_b − x_a + h_x)):
//   q_w = Σ Q_i / A_w          Q_i the heat the wall gives node i's dual cell (FlowHeatMeter::node_heat:
//                              (K T)_i − ρc R_i, the discrete flux the scheme conserves) over the
//                              section's wall nodes;
//   T_b(x) = ∫ w T dA / ∫ w dA on each node plane (trapezoid rule over the plane's nodes), and
//   ΔT = mean over the section's planes of (T_w − T_b(x));
//   Nu = q_w D_h / (k ΔT).
// Both q_w and T_w − T_b decay like e^{−4 Nu x / (Pe D_h)} in the developed region, so their
// section means have the local ratio (to O((λ h_x)²)). Cross-check: the decay rate itself,
// Nu_decay = −(Pe D_h / 4) d ln(T_w − T_b)/dx between the section's ends.
//
// Axial conduction raises Nu_T by a relative amount falling like 1/Pe² (circular tube, Shah & London:
// about 1 % at Pe = 10): a few tenths of a per cent at Pe = 20. First-order upwinding adds a numerical diffusion ~ ρc |u| h / 2 (along the flow and, on
// the Kuhn tets' diagonal edges, across it), which raises Nu on coarse meshes: cell Péclet numbers
// Pe h / D_h of a few.
struct DuctNusselt {
  double nusselt = 0, nusselt_decay = 0, bulk_section_end = 0;
  int steps = 0;
  double seconds = 0;
};

// Σ_{n,m odd ≤ kDuctTerms} of the duct profile, unscaled.
constexpr int kDuctTerms = 41;
double duct_series(double y, double z) {
  double s = 0;
  for (int n = 1; n <= kDuctTerms; n += 2)
    for (int m = 1; m <= kDuctTerms; m += 2)
      s += std::sin(n * M_PI * y) * std::sin(m * M_PI * z) / (n * m * double(n * n + m * m));
  return s;
}

DuctNusselt square_duct_nusselt(int n_axial, int n_cross, double length, double peclet, double x_a, double x_b) {
  const auto t0 = std::chrono::steady_clock::now();
  const LoadedMesh m = prepare_mesh(make_box_mesh(n_axial, n_cross, n_cross, glm::dvec3(length, 1.0, 1.0)));
  const double hx = length / n_axial, h = 1.0 / n_cross;
  // Mean of the series: (2/nπ)(2/mπ) per term.
  double mean = 0;
  for (int n = 1; n <= kDuctTerms; n += 2)
    for (int k = 1; k <= kDuctTerms; k += 2) mean += 4.0 / (M_PI * M_PI * n * k) / (n * k * double(n * n + k * k));
  // w on the cross-section's half-step grid (face_fluxes evaluates at edge midpoints): the exact
  // series at the nodes (even indices), the mean of the edge's two nodes at its midpoint (Kuhn edges
  // run along +y, +z or both). So U is the flux of w's P1 interpolant, which on Kuhn tets does not
  // depend on x: every cell's faces balance to round-off.
  const int g = 2 * n_cross + 1;
  std::vector<double> w(size_t(g * g));
  for (int j = 0; j < g; j += 2)
    for (int k = 0; k < g; k += 2) w[size_t(j * g + k)] = duct_series(0.5 * h * j, 0.5 * h * k) / mean;
  for (int j = 0; j < g; ++j)
    for (int k = 0; k < g; ++k) {
      if (j % 2 == 0 && k % 2 == 0) continue;
      const int j0 = j - j % 2, k0 = k - k % 2, j1 = j + j % 2, k1 = k + k % 2;
      w[size_t(j * g + k)] = 0.5 * (w[size_t(j0 * g + k0)] + w[size_t(j1 * g + k1)]);
    }
  const auto profile = [&](double y, double z) {
    return w[size_t(std::lround(y / (0.5 * h)) * g + std::lround(z / (0.5 * h)))];
  };
  const VelocityFunction u = [&](const glm::dvec3& x, double) { return glm::dvec3(profile(x.y, x.z), 0, 0); };
  char text[1024];
  std::snprintf(text, sizeof text,
                "[fluid]\nviscosity = 0.05\n[heat]\nconductivity = %.17g\nheat_capacity = 1\n"
                "reference_length = 1\nreference_temperature_difference = 1\n"
                "[[boundary]]\ngroup = \"xmin\"\ntype = \"velocity\"\nvelocity = [1, 0, 0]\ntemperature = 0\n"
                "[[boundary]]\ngroup = \"xmax\"\ntype = \"pressure\"\n"
                "[[boundary]]\ngroup = \"ymin\"\ntype = \"wall\"\ntemperature = 1\n"
                "[[boundary]]\ngroup = \"ymax\"\ntype = \"wall\"\ntemperature = 1\n"
                "[[boundary]]\ngroup = \"zmin\"\ntype = \"wall\"\ntemperature = 1\n"
                "[[boundary]]\ngroup = \"zmax\"\ntype = \"wall\"\ntemperature = 1\n"
                "[time]\ndt = 0.01\nsteps = 1\n[solver.temperature]\ntolerance = 1e-10\n",
                1.0 / peclet);
  const FlowCase c = heat_flow_case(text);
  const FlowHeatProblem hp = build_flow_heat_problem(c, m);
  FlowState state;
  state.flux = face_fluxes(m, u, 0.0);
  double divergence = 0, max_flux = 0;
  for (size_t cell = 0; cell < m.topology.cell_faces.size(); ++cell) {
    double d = 0;
    for (int k = 0; k < 4; ++k)
      d += m.topology.cell_face_signs[cell][size_t(k)] * state.flux[size_t(m.topology.cell_faces[cell][size_t(k)])];
    divergence = std::max(divergence, std::fabs(d));
  }
  for (double U : state.flux) max_flux = std::max(max_flux, std::fabs(U));
  EXPECT_LE(divergence, 1e-12 * max_flux);
  // Δt at thermal Courant 0.9: q_i / V_i from the upwind operator and the lumped ρc V_i.
  const HeatAdvectionData adv = build_heat_advection(m);
  const HeatOperatorData conduction = assemble_heat_system(m, hp.conduction, HeatTables::operator_only);
  std::vector<double> F, rate, inflow;
  adv.edge_flux.multiply(state.flux, F);
  upwind_advection(adv, F, hp.conduction.initial, rate, inflow);
  double max_rate = 0;
  for (size_t i = 0; i < inflow.size(); ++i) max_rate = std::max(max_rate, inflow[i] / conduction.mass[i]);
  const double dt = 0.9 / max_rate;
  CpuBackend cpu;
  FlowTemperature<CpuBackend> temperature(cpu, m, hp);
  temperature.start();
  DuctNusselt out;
  std::vector<double> T = temperature.download();
  for (;;) {  // to the steady state: max |ΔT| per unit time below 1e-7
    FlowHeatStepInfo info;
    EXPECT_TRUE(temperature.step(state.flux, dt, info)) << temperature.failure();
    ++out.steps;
    std::vector<double> next = temperature.download();
    double change = 0;
    for (size_t i = 0; i < T.size(); ++i) change = std::max(change, std::fabs(next[i] - T[i]));
    T = std::move(next);
    if (change <= 1e-7 * dt || out.steps >= 200000) break;
  }
  state.temperature = T;
  const std::vector<double> Q = FlowHeatMeter(m, hp).node_heat(state);
  // Node planes i_a..i_b; per plane Σ w a T and Σ w a (a: trapezoid weights of the plane's nodes).
  const int ia = int(std::lround(x_a / hx)), ib = int(std::lround(x_b / hx));
  std::vector<double> wT(size_t(n_axial + 1), 0.0), wa(size_t(n_axial + 1), 0.0);
  double heat = 0;
  for (size_t i = 0; i < T.size(); ++i) {
    const glm::dvec3 x = m.mesh.nodes[i];
    const int plane = int(std::lround(x.x / hx));
    const int j = int(std::lround(x.y / h)), k = int(std::lround(x.z / h));
    const double a = (j == 0 || j == n_cross ? 0.5 : 1.0) * (k == 0 || k == n_cross ? 0.5 : 1.0);
    const double wi = profile(x.y, x.z);
    wT[size_t(plane)] += wi * a * T[i], wa[size_t(plane)] += wi * a;
    if (plane >= ia && plane <= ib) heat += Q[i];
  }
  double theta = 0;
  for (int p = ia; p <= ib; ++p) theta += 1.0 - wT[size_t(p)] / wa[size_t(p)];
  theta /= (ib - ia + 1);
  const double wall_area = 4.0 * (ib - ia + 1) * hx;
  out.nusselt = (heat / wall_area) * 1.0 / ((1.0 / peclet) * theta);
  const double theta_a = 1.0 - wT[size_t(ia)] / wa[size_t(ia)], theta_b = 1.0 - wT[size_t(ib)] / wa[size_t(ib)];
  out.nusselt_decay = -(peclet / 4.0) * std::log(theta_b / theta_a) / ((ib - ia) * hx);
  out.bulk_section_end = theta_b;
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("  %d x %d x %d boxes (L = %g, Pe = %g, section x %g..%g): Nu %.4f (decay rate: %.4f), "
              "T_w - T_b %.3g at x = %g; %d steps of dt %.3g, %.1f s\n",
              n_axial, n_cross, n_cross, length, peclet, x_a, x_b, out.nusselt, out.nusselt_decay, theta_b, x_b,
              out.steps, dt, out.seconds);
  return out;
}

// Duct length 4, Pe = 20, section x = 2..3 (the thermal entry length is ~0.05 Pe D_h = 1; T_w − T_b
// falls to ~0.15 by x = 3). Boxes 8 h long for h across: the upwind's crosswind diffusion on the
// Kuhn diagonals goes as |u| h²/h_x, so boxes refined along the flow only raise Nu (8 × 8 × 8: 3.48,
// 32 × 8 × 8: 4.90, 64 × 8 × 8: 6.64).
constexpr double kDuctLength = 4, kDuctPeclet = 20, kSectionStart = 2, kSectionEnd = 3;
constexpr double kShahLondonNu = 2.976;

// CI: 16 × 32 × 32 boxes, with 8 × 16 × 16 to show the direction. Measured Nu 3.173 and 3.081 (the
// decay rates 2.757 and 2.827, lowered by the axial numerical diffusion ρc |u| h_x / 2), converging
// from above at first order (the test below for finer meshes). Parallel plates' 7.54 fails; so does
// conduction alone (the flux scaled by 1e-6: Nu 3.41 from the wall flux, the first conduction mode's,
// but T_w − T_b decays at a rate worth Nu 21), hence the bounds on both.
// CI runs 16 × 32 × 32 boxes (against 8 × 16 × 16); SS_SQUARE_DUCT_BOXES="AxC" runs A × C × C
// boxes instead (against A/2 × C/2 × C/2) with the same bounds: the finer rows of docs/validation.md.
TEST(FlowHeat, SquareDuctFixedWallTemperatureNusselt) {
  int axial = 16, cross = 32;
  if (const char* boxes = std::getenv("SS_SQUARE_DUCT_BOXES")) {
    ASSERT_EQ(std::sscanf(boxes, "%dx%d", &axial, &cross), 2) << "SS_SQUARE_DUCT_BOXES=" << boxes << ": expected AxC";
  }
  const DuctNusselt coarse = square_duct_nusselt(axial / 2, cross / 2, kDuctLength, kDuctPeclet, kSectionStart, kSectionEnd);
  const DuctNusselt r = square_duct_nusselt(axial, cross, kDuctLength, kDuctPeclet, kSectionStart, kSectionEnd);
  std::printf("square duct %d x %d x %d: Nu %.4f (coarser %.4f), Nu_decay %.4f\n", axial, cross, cross, r.nusselt,
              coarse.nusselt, r.nusselt_decay);
  EXPECT_LT(r.nusselt, coarse.nusselt);
  EXPECT_GE(r.nusselt, 0.99 * kShahLondonNu);
  EXPECT_LE(r.nusselt, 3.15);  // measured 3.081 at 16 × 32 × 32: 3.5 % above Shah & London
  EXPECT_GE(r.nusselt_decay, 2.7);  // measured 2.827
  EXPECT_LE(r.nusselt_decay, kShahLondonNu);
}

}  // namespace
}  // namespace ss::test
