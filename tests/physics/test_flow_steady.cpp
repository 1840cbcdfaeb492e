// Steady mode (physics/flow_steady.hpp, physics/flow_time_loop.hpp) on the lid-driven cavity at Re 100:
// pseudo-time marching with implicit convection and a growing CFL number reaches the state a time
// march at CFL 10 settles to (which stays bounded and reaches the explicit scheme's steady energy),
// with local pseudo-time steps or one Δt; the controller's rules; a restarted march goes on.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <utility>
#include <vector>

#include "physics/flow_time_loop.hpp"
#include "physics/flow_test_util.hpp"

namespace ss::test {
namespace {

FlowProblem steady_cavity(const LoadedMesh& m) {
  FlowProblem p;
  p.viscosity = 0.01;  // Re = 100 with the unit lid speed
  p.implicit_convection = true;
  p.steady.enabled = true;  // the defaults: tolerance 1e-4, CFL 1 → 100, grad–div κ = 5
  p.time.dt = 0.005, p.time.steps = 200, p.time.cfl = 1.0, p.time.max_dt = 1e300;
  p.pressure.tolerance = 1e-8, p.momentum.tolerance = 1e-8;
  p.pressure.multigrid = true;
  assign_by_group(p, m, {{"lid", wall([](const glm::dvec3&, double) { return glm::dvec3(1, 0, 0); })},
                         {"walls", wall()}});
  return p;
}


FlowRunResult run_steady(const LoadedMesh& m, const FlowProblem& p, const FlowState* initial = nullptr) {
  CpuFlowRun run(m, p);
  return march_flow(run.cpu, run.ops, p, m, run.data, initial, FlowRunHooks{}, "cpu");
}

// The explicit scheme's steady state on this mesh: kinetic energy ½ Σ H_f U_f² after marching with
// explicit convection at CFL 0.5 to t = 20 (2,894 steps; the energy no longer changes in its 7th digit).
constexpr double kExplicitSteadyEnergy = 2.443490e-02;

// What the time march at CFL 10 showed on its way (it is the steady run's reference below).
struct TimeMarch {
  FlowState state;
  int steps = 0;
  double largest_cfl = 0, largest_energy = 0, last_energy = 0;
};

// The reference: implicit convection marched in time at CFL 10 to t = 20 (161 steps).
TimeMarch time_marched(const LoadedMesh& m, const FlowProblem& steady) {
  FlowProblem marched = steady;
  marched.steady.enabled = false;
  marched.time.cfl = 10, marched.time.max_dt = 10, marched.time.steps = 0, marched.time.end_time = 20;
  TimeMarch t;
  t.state = run_flow_on_cpu(m, marched, [&](const FlowStepInfo& i) {
    t.steps = i.step;
    t.largest_energy = std::max(t.largest_energy, i.kinetic_energy);
    t.largest_cfl = std::max(t.largest_cfl, i.cfl);
    t.last_energy = i.kinetic_energy;
  });
  return t;
}

// Two ways to the steady state of implicit convection at Re 100, checked against each other and
// against the explicit scheme's steady energy: the time march at CFL 10 (beyond the explicit limit)
// stays bounded and settles to it; the pseudo-time march (steady mode) reaches the same fields.
TEST(FlowSteady, CavityReachesTheTimeMarchedSteadyState) {
  const LoadedMesh& m = project_mesh("cavity.msh", 0);
  FlowProblem p = steady_cavity(m);
  p.steady.tolerance = 1e-5;
  const TimeMarch marched = time_marched(m, p);
  std::printf("time march: %d steps, CFL up to %.2f, energy %.7e (largest %.7e)\n", marched.steps,
              marched.largest_cfl, marched.last_energy, marched.largest_energy);
  EXPECT_GT(marched.largest_cfl, 9.5);  // the run did march at the target
  // Bounded: the energy rises monotonically to the steady value (measured: never above it in the 7th digit).
  EXPECT_LE(marched.largest_energy, kExplicitSteadyEnergy * (1 + 1e-4));
  // Measured 4.5e-7 relative below the explicit steady value at t = 20.
  EXPECT_NEAR(marched.last_energy, kExplicitSteadyEnergy, 1e-5 * kExplicitSteadyEnergy);

  const FlowRunResult r = run_steady(m, p);
  ASSERT_TRUE(r.steady);
  EXPECT_EQ(r.steady->stop_reason, "converged");
  EXPECT_EQ(r.steady->residuals.size(), size_t(r.totals.steps));
  EXPECT_LE(r.steady->residuals.back(), p.steady.tolerance);
  EXPECT_EQ(r.steady->cfl.front(), p.steady.cfl_start);
  EXPECT_GT(r.steady->cfl.back(), 10 * p.steady.cfl_start);  // it grew: measured 85 at the end
  const double difference = cell_velocity_difference(m, r.state.flux, marched.state.flux).relative();
  std::printf("steady: %d steps (%.1f s), cell velocities within %.2e of the max speed of the time-marched run, "
              "kinetic energy %.2e (relative) from the explicit run's\n",
              r.totals.steps, r.seconds, difference, std::fabs(r.last.kinetic_energy / kExplicitSteadyEnergy - 1.0));
  // Measured 2.1e-6 (61 steps).
  EXPECT_LE(difference, 1e-4);
  // Against the explicit run's energy: measured 1.3e-6 relative.
  EXPECT_NEAR(r.last.kinetic_energy, kExplicitSteadyEnergy, 1e-4 * kExplicitSteadyEnergy);
}

// At Re 1000 the march is held back by the pressure, not the velocity: the projection's update φ
// shrinks like 1/Δt. With the grad–div term's pressure in the update (grad_div_term.hpp) the march
// takes CFL 100 and reaches, in a third of the steps, the state the plain march reaches at CFL 10.
TEST(FlowSteady, GradDivPressureCutsTheStepsAtRe1000) {
  const LoadedMesh& m = project_mesh("cavity.msh", 0);
  FlowProblem fast = steady_cavity(m);
  fast.viscosity = 0.001;
  fast.time.dt = 0.01, fast.time.max_dt = 10, fast.time.steps = 400;
  fast.momentum.block_jacobi = true;
  FlowProblem plain = fast;
  plain.steady.grad_div = 0, plain.steady.cfl_max = 10;
  plain.momentum.block_jacobi = false;
  const FlowRunResult a = run_steady(m, fast), b = run_steady(m, plain);
  ASSERT_EQ(a.steady->stop_reason, "converged");
  ASSERT_EQ(b.steady->stop_reason, "converged");
  const double difference = cell_velocity_difference(m, a.state.flux, b.state.flux).relative();
  std::printf("Re 1000: %d steps at CFL 100 with the grad-div pressure, %d at CFL 10 without; %.1e apart\n",
              a.totals.steps, b.totals.steps, difference);
  EXPECT_LT(2 * a.totals.steps, b.totals.steps);  // measured 88 against 232
  EXPECT_LE(difference, 2e-3);  // both stop at a steady residual of 1e-4: measured 7.8e-4
}

// Local pseudo-time steps (the default) and one Δt for every cell march to the same steady state;
// the local steps take no more (the cavity mesh's cells differ in size by a factor of about 4; at CFL
// 100 the pseudo-time is no longer what the march waits for, and the two take 51 and 52 steps).
TEST(FlowSteady, LocalPseudoTimeStepsReachTheSameStateInFewerSteps) {
  const LoadedMesh& m = project_mesh("cavity.msh", 0);
  FlowProblem local = steady_cavity(m);
  ASSERT_TRUE(local.steady.local_time_steps);
  FlowProblem global = local;
  global.steady.local_time_steps = false;
  const FlowRunResult a = run_steady(m, local), b = run_steady(m, global);
  ASSERT_EQ(a.steady->stop_reason, "converged");
  ASSERT_EQ(b.steady->stop_reason, "converged");
  const double difference = cell_velocity_difference(m, a.state.flux, b.state.flux).relative();
  std::printf("local steps: %d, one step: %d, cell velocities within %.2e of the max speed\n", a.totals.steps,
              b.totals.steps, difference);
  EXPECT_LE(a.totals.steps, b.totals.steps);
  EXPECT_LE(difference, 2e-4);  // both stop at a steady residual of 1e-4: measured 3.0e-5 (51 and 52 steps)
}

// The grad–div term (the default; CavityReachesTheTimeMarchedSteadyState runs with it) holds the
// momentum solve's iterations down at large steps: 10 steps at CFL 100, with and without it.
TEST(FlowSteady, GradDivTermCutsTheMomentumIterationsAtCfl100) {
  const LoadedMesh& m = project_mesh("cavity.msh", 0);
  FlowProblem with = steady_cavity(m);
  ASSERT_GT(with.steady.grad_div, 0.0);
  with.steady.cfl_start = with.steady.cfl_max = 100;
  with.time.steps = 10;
  with.time.dt = 5.0;  // the first step near CFL 100 already
  with.steady.momentum_tolerance = 1e-3;  // solves far enough to show the term's effect on the system
  FlowProblem without = with;
  without.steady.grad_div = 0;
  const FlowRunResult a = run_steady(m, with), b = run_steady(m, without);
  ASSERT_EQ(a.totals.steps, 10);
  ASSERT_EQ(b.totals.steps, 10);
  std::printf("10 steps at CFL 100: %ld momentum iterations with the grad-div term, %ld without\n",
              a.totals.momentum_iterations, b.totals.momentum_iterations);
  EXPECT_LT(2 * a.totals.momentum_iterations, b.totals.momentum_iterations);  // measured 310 against 916
}

// The block Jacobi preconditioner of the same steady system at CFL 100 (with the grad–div term):
// fewer BiCGStab iterations than the point Jacobi, the same steady march.
TEST(FlowSteady, BlockJacobiCutsTheMomentumIterationsAtCfl100) {
  const LoadedMesh& m = project_mesh("cavity.msh", 0);
  FlowProblem point = steady_cavity(m);
  point.viscosity = 0.001;  // Re 1000: convection dominates
  point.steady.cfl_start = point.steady.cfl_max = 100;
  point.time.steps = 10;
  point.time.dt = 5.0;
  point.steady.momentum_tolerance = 1e-3;
  FlowProblem block = point;
  block.momentum.block_jacobi = true, block.momentum.jacobi = false;
  const FlowRunResult a = run_steady(m, block), b = run_steady(m, point);
  ASSERT_EQ(a.totals.steps, 10);
  ASSERT_EQ(b.totals.steps, 10);
  const double difference = cell_velocity_difference(m, a.state.flux, b.state.flux).relative();
  std::printf("10 steps at CFL 100: %ld momentum iterations with block Jacobi, %ld with Jacobi; fields %.1e apart\n",
              a.totals.momentum_iterations, b.totals.momentum_iterations, difference);
  EXPECT_LT(3 * a.totals.momentum_iterations, 2 * b.totals.momentum_iterations);  // measured 407 against 790
  EXPECT_LE(difference, 5e-3);  // both solves to 1e-3 of their initial residual: measured 1.7e-3
}

// "automatic" ([solver.momentum] default at CFL targets above 10): the point Jacobi, which turns
// to block Jacobi for the rest of the run once the mean of its last 5 solves exceeds 20 iterations.
// At Re 1000 and CFL 100 it turns after the fifth step (until then the steps equal the point
// Jacobi's); at Re 100 and CFL 10 it never does and the run is the point Jacobi's.
TEST(FlowSteady, AutomaticPreconditionerTurnsToBlockJacobiWhenJacobiIsSlow) {
  const LoadedMesh& m = project_mesh("cavity.msh", 0);
  const auto automatic_and_point = [&](double viscosity, double cfl) {
    FlowProblem point = steady_cavity(m);
    point.viscosity = viscosity;
    point.steady.cfl_start = point.steady.cfl_max = cfl;
    point.time.steps = 10;
    point.time.dt = 0.05 * cfl;  // the first step near the CFL target already
    point.steady.momentum_tolerance = 1e-3;
    FlowProblem automatic = point;
    automatic.momentum.block_jacobi_when_slow = true;
    return std::make_pair(run_steady(m, automatic), run_steady(m, point));
  };
  const auto [slow, slow_point] = automatic_and_point(0.001, 100.0);
  const std::vector<int>& its = slow.steady->momentum_iterations;
  ASSERT_EQ(its.size(), 10u);
  for (int k = 0; k < kSlowSolves; ++k) EXPECT_EQ(its[size_t(k)], slow_point.steady->momentum_iterations[size_t(k)]);
  EXPECT_GT(slow.totals.momentum_preconditioner_setups, 0);
  std::printf("Re 1000, CFL 100: %ld momentum iterations automatic (%d block Jacobi builds), %ld Jacobi\n",
              slow.totals.momentum_iterations, slow.totals.momentum_preconditioner_setups,
              slow_point.totals.momentum_iterations);
  EXPECT_LT(slow.totals.momentum_iterations, slow_point.totals.momentum_iterations);  // measured 504 against 783
  const auto [fast, fast_point] = automatic_and_point(0.01, 10.0);
  EXPECT_EQ(fast.totals.momentum_preconditioner_setups, 0);
  EXPECT_EQ(fast.steady->momentum_iterations, fast_point.steady->momentum_iterations);  // 15 a solve
  std::printf("Re 100, CFL 10: %ld momentum iterations automatic, %ld Jacobi\n", fast.totals.momentum_iterations,
              fast_point.totals.momentum_iterations);
}

// Stopped at max_steps and restarted from its state, the march goes on to the same steady state.
TEST(FlowSteady, RestartedMarchReachesTheSameState) {
  const LoadedMesh& m = project_mesh("cavity.msh", 0);
  FlowProblem p = steady_cavity(m);
  p.steady.tolerance = 1e-2;  // short: the restart, not the steady state, is under test here
  const FlowRunResult whole = run_steady(m, p);
  ASSERT_EQ(whole.steady->stop_reason, "converged");
  FlowProblem first = p;
  first.time.steps = 15;
  const FlowRunResult part = run_steady(m, first);
  EXPECT_EQ(part.steady->stop_reason, "max_steps");
  EXPECT_EQ(part.state.step, 15);
  const FlowRunResult rest = run_steady(m, p, &part.state);
  EXPECT_EQ(rest.steady->stop_reason, "converged");
  EXPECT_EQ(rest.first_step, 15);
  // Resumed at the CFL number the field had reached (the target is not in the checkpoint; Δt grows
  // by at most 1.2 a step, so the field's CFL number lags the target: measured 2.4 at step 15).
  EXPECT_GT(rest.steady->cfl.front(), p.steady.cfl_start);
  const double difference = cell_velocity_difference(m, rest.state.flux, whole.state.flux).relative();
  std::printf("restarted: %d + %d steps (uninterrupted %d), within %.2e of the max speed\n", part.totals.steps,
              rest.totals.steps, whole.totals.steps, difference);
  // Measured 1.1e-3: the restarted CFL sequence differs a little, and both stop at r <= 1e-2.
  EXPECT_LE(difference, 2e-3);
}

TEST(FlowSteady, ControllerGrowsTheCflAndStops) {
  const FlowSteadySettings settings{true, 1e-3, 1.0, 10.0};
  SteadyController c(settings, 0.1);
  EXPECT_EQ(c.cfl(), 1.0);  // clipped to cfl_start
  EXPECT_FALSE(c.update(1.0));
  EXPECT_EQ(c.cfl(), 1.0);  // no previous residual yet
  EXPECT_FALSE(c.update(0.8));
  EXPECT_DOUBLE_EQ(c.cfl(), 1.25);  // CFL · r_{k−1}/r_k
  EXPECT_FALSE(c.update(0.1));
  EXPECT_DOUBLE_EQ(c.cfl(), 2.5);  // growth clipped to 2
  EXPECT_FALSE(c.update(0.05));
  EXPECT_FALSE(c.update(0.025));
  EXPECT_DOUBLE_EQ(c.cfl(), 10.0);
  EXPECT_FALSE(c.update(0.0125));
  EXPECT_DOUBLE_EQ(c.cfl(), 10.0);  // clipped to cfl_max
  EXPECT_FALSE(c.update(0.5));
  EXPECT_DOUBLE_EQ(c.cfl(), 5.0);  // a rising residual halves it at most
  EXPECT_TRUE(c.update(1e-3));
  EXPECT_EQ(c.report().stop_reason, "converged");
  EXPECT_EQ(c.report().residuals.size(), 8u);

  SteadyController d(settings, 1.0);
  EXPECT_FALSE(d.update(1.0));
  EXPECT_TRUE(d.update(2e4));  // beyond 1e4 × the smallest residual
  EXPECT_EQ(d.report().stop_reason, "diverged");
  SteadyController e(settings, 1.0);
  EXPECT_TRUE(e.update(std::nan("")));
  EXPECT_EQ(e.report().stop_reason, "diverged");
  SteadyController f(settings, 1.0);
  EXPECT_FALSE(f.update(1.0));
  f.out_of_steps();
  EXPECT_EQ(f.report().stop_reason, "max_steps");
}

}  // namespace
}  // namespace ss::test
