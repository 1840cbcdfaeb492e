// The order in Δt of the flow time stepping, on a fixed mesh (CPU reference, double, solvers to
// 1e-11): Ethier & Steinman's unsteady solution (flow_test_util.hpp) on a 4 × 4 × 4 box with its
// exact velocity on every face and as the start, to t = 0.1 with Δt = 0.02 / 2^k, k = 0..4.
// Every run has the same spatial error, so the differences of successive runs' face fluxes fall as
// Δt^q: q = log2(|U_Δt − U_Δt/2| / |U_Δt/2 − U_Δt/4|), three values. Crank–Nicolson time stepping
// (θ = ½, Adams–Bashforth 2 explicit convection, or implicit convection at the half step) must be
// second order for both methods on the last two (the first is pre-asymptotic); the θ-scheme with
// θ = 1 first order, which shows the measurement can tell.
// Also: a Crank–Nicolson run restarted mid-way from its state equals the straight run (the
// convection history travels with the state).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <utility>
#include <vector>

#include "mesh/box_mesh.hpp"
#include "physics/flow_test_util.hpp"

namespace ss::test {
namespace {

constexpr double kViscosity = 0.1, kEnd = 0.1;

const LoadedMesh& cube() {
  static const LoadedMesh m = prepare_mesh(make_box_mesh(4, 4, 4, glm::dvec3(1.0)));
  return m;
}

FlowProblem ethier_steinman_problem(FlowMethod method, TimeScheme scheme, bool implicit_convection, double dt) {
  const VelocityFunction exact = [](const glm::dvec3& x, double t) { return ethier_steinman(x, t, kViscosity); };
  FlowProblem p;
  p.method = method;
  p.viscosity = kViscosity;
  p.time_scheme = scheme;
  p.theta = scheme == TimeScheme::crank_nicolson ? 0.5 : 1.0;
  p.implicit_convection = implicit_convection;
  p.time.dt = dt;
  p.time.end_time = kEnd;
  p.pressure.tolerance = p.momentum.tolerance = p.streamfunction.tolerance = 1e-11;
  p.pressure.max_iterations = p.momentum.max_iterations = p.streamfunction.max_iterations = 20000;
  p.initial_velocity = exact;
  FlowCondition boundary = wall(exact);
  boundary.time_dependent = true;
  assign_by_group(p, cube(), {{"xmin", boundary}, {"xmax", boundary}, {"ymin", boundary}, {"ymax", boundary},
                              {"zmin", boundary}, {"zmax", boundary}});
  return p;
}

double distance(const std::vector<double>& a, const std::vector<double>& b) {
  double sum = 0;
  for (size_t i = 0; i < a.size(); ++i) sum += (a[i] - b[i]) * (a[i] - b[i]);
  return std::sqrt(sum);
}

// The three observed orders from five runs at Δt = 0.02 / 2^k.
std::vector<double> observed_orders(FlowMethod method, TimeScheme scheme, bool implicit_convection) {
  std::vector<std::vector<double>> fluxes;
  for (int k = 0; k < 5; ++k) {
    const FlowState s = run_flow_on_cpu(cube(), ethier_steinman_problem(method, scheme, implicit_convection, 0.02 / (1 << k)));
    EXPECT_NEAR(s.time, kEnd, 1e-12);
    fluxes.push_back(s.flux);
  }
  std::vector<double> orders;
  for (int k = 0; k + 2 < 5; ++k)
    orders.push_back(std::log2(distance(fluxes[k], fluxes[k + 1]) / distance(fluxes[k + 1], fluxes[k + 2])));
  std::printf("temporal order (%s, %s%s): %.3f, %.3f, %.3f\n", method == FlowMethod::exact ? "exact" : "classical",
              to_string(scheme), implicit_convection ? ", implicit convection" : "", orders[0], orders[1], orders[2]);
  return orders;
}

// The last two orders of Crank–Nicolson (the first is pre-asymptotic).
void expect_second_order(FlowMethod method, bool implicit_convection) {
  const std::vector<double> q = observed_orders(method, TimeScheme::crank_nicolson, implicit_convection);
  EXPECT_GE(q[1], 1.8);
  EXPECT_GE(q[2], 1.8);
}

TEST(FlowTimeOrder, CrankNicolsonIsSecondOrderForTheClassicalMethod) { expect_second_order(FlowMethod::classical, false); }
TEST(FlowTimeOrder, CrankNicolsonIsSecondOrderForTheExactMethod) { expect_second_order(FlowMethod::exact, false); }
TEST(FlowTimeOrder, CrankNicolsonIsSecondOrderWithImplicitConvection) { expect_second_order(FlowMethod::classical, true); }

TEST(FlowTimeOrder, ThetaSchemeIsFirstOrder) {
  const std::vector<double> q = observed_orders(FlowMethod::classical, TimeScheme::theta, false);
  EXPECT_GT(q[2], 0.8);
  EXPECT_LT(q[2], 1.3);
}

TEST(FlowTimeOrder, CrankNicolsonRestartEqualsTheStraightRun) {
  for (const auto& [method, implicit_convection] :
       {std::pair{FlowMethod::classical, false}, {FlowMethod::exact, false}, {FlowMethod::classical, true}}) {
    FlowProblem p = ethier_steinman_problem(method, TimeScheme::crank_nicolson, implicit_convection, 0.01);
    const FlowState straight = run_flow_on_cpu(cube(), p);
    p.time.end_time = 0.05;
    const FlowState half = run_flow_on_cpu(cube(), p);
    ASSERT_EQ(half.previous_convection.size(), implicit_convection ? 0u : half.flux.size());
    p.time.end_time = kEnd;
    CpuFlowRun second(cube(), p);
    second.solver.restore(half);
    FlowStepInfo info;
    while (!second.solver.finished()) ASSERT_TRUE(second.solver.step(info)) << second.solver.failure();
    const FlowState restarted = second.solver.state();
    EXPECT_EQ(restarted.step, straight.step);
    EXPECT_LE(distance(restarted.flux, straight.flux), 1e-12 * distance(straight.flux, std::vector<double>(straight.flux.size())));
  }
}

}  // namespace
}  // namespace ss::test
