// DFG benchmark 3D-1Z (Schäfer & Turek 1996): steady flow past a cylinder across a channel at Re 20,
// the project's sample cases on their 25 K-tet mesh, on the CPU reference. The classical method
// reaches the steady state in steady mode (meshes/dfg_cylinder_steady_flow.toml: 44 pseudo-time
// steps; marched in time from rest, meshes/dfg_cylinder_flow.toml, it gives the same drag to 0.05 %
// at t = 3 in 955 steps); the exact method continues that state for one flow-through time of the
// cylinder (D/U = 0.5) with meshes/dfg_cylinder_flow.toml's time stepping: its restart projects the classical flux onto a streamfunction, which must leave the flux as it
// is (the boundary lift and the two tree–cotree harmonic fields of the hole carry it exactly), and its
// steps keep D U at round-off. The drag coefficient against the reference 6.18533 (Braack & Richter
// 2006; the benchmark's accepted range is 6.05–6.25), the lift against 0.009401 and the pressure
// difference Δp (the sample's probe "dp") against 0.171737, for both methods.
// (The exact method from rest to t = 3 gives the same drag, 6.0486 against 6.0502, but takes 9x the
// classical run: 10 minutes on one core; docs/validation.md's table (*The DFG cylinder benchmark*) has it on finer meshes, from the GPU machine.)
// The printed lines are docs/validation.md's table.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "cases/flow_case.hpp"
#include "problems/flow_case_problem.hpp"
#include "postprocess/flow_fields.hpp"
#include "postprocess/flow_probes.hpp"
#include "postprocess/flow_forces.hpp"
#include "physics/flow_test_util.hpp"
#include "physics/flow_time_loop.hpp"

namespace ss::test {
namespace {

constexpr double kReferenceDrag = 6.18533, kReferenceLift = 0.009401, kReferencePressureDifference = 0.171737;

struct Coefficients {
  double drag = 0, lift = 0, max_divergence = 0, pressure_difference = 0;
};

FlowProblem dfg_problem(const LoadedMesh& m, const char* sample, FlowMethod method, double end_time) {
  FlowCase c = read_flow_case(std::string(SS_SOURCE_DIR) + "/meshes/" + sample);
  c.time.end_time = end_time;
  FlowProblem p = build_flow_problem(c, m);
  p.method = method;
  return p;
}

// Δp = p(0.45, 0.2, 0.205) − p(0.55, 0.2, 0.205): the sample case's probe "dp" on the node pressure.
double pressure_difference(const LoadedMesh& m, const FlowProblem& p, const FlowState& state) {
  const FlowCase c = read_flow_case(std::string(SS_SOURCE_DIR) + "/meshes/dfg_cylinder_flow.toml");
  const FlowProbes probes(m, c.probes);
  CpuMeshOperators ops(m);
  const std::vector<double> v = probes.sample(0, compute_flow_fields(ops, m, p, state));
  return v.at(0) - v.at(1);
}

Coefficients coefficients_of(const LoadedMesh& m, const FlowProblem& p, const FlowState& state, double max_divergence) {
  const FlowForce force = FlowForceMeter(m, p).forces(state).at(0);
  const glm::dvec3 c = force_coefficients(p.forces.at(0), force.total());
  const double dp = pressure_difference(m, p, state);
  std::printf("DFG 3D-1Z, %s, %d tets, step %d, t = %g: drag %.4f (%+.2f %%; pressure %.4f, viscous %.4f), lift %.5f "
              "(reference %.6f), dp %.4f (%+.2f %%)\n",
              p.method == FlowMethod::exact ? "exact" : "classical", m.topology.num_cells, state.step, state.time, c.x,
              100 * (c.x / kReferenceDrag - 1), force_coefficients(p.forces[0], force.pressure).x,
              force_coefficients(p.forces[0], force.viscous).x, c.y, kReferenceLift, dp, 100 * (dp / kReferencePressureDifference - 1));
  return {c.x, c.y, max_divergence, dp};
}

// Bands around what this 25 K-tet mesh measures, so that a regression fails (docs/validation.md has
// the finer meshes, which converge to the references):
//  - c_D 6.0529 (classical, steady mode), 6.0529 (exact): −2.1 % of the reference, the 21-sided polygon of the
//    cylinder; ±0.3 % around 6.051 holds both and fails a drift of half a percent.
//  - c_L 0.02753, 0.02762 against 0.009401: the mesh's asymmetry (0.4 % of the drag) dominates the
//    lift here; 0.020–0.034 holds both, and a zero or sign-flipped lift fails.
//  - Δp 0.1564, 0.1564 against 0.171737 (−8.9 %: the node pressure at the cylinder's front and back
//    is the least-squares extrapolation of the cells at the wall, about one cell wide on this coarse
//    mesh; the mean of those cells gave 0.1468); ±2 % around 0.1565.
void expect_matches_the_benchmark(const Coefficients& r) {
  EXPECT_NEAR(r.drag, 6.051, 0.003 * 6.051);
  EXPECT_NEAR(r.drag, kReferenceDrag, 0.025 * kReferenceDrag);
  EXPECT_GT(r.lift, 0.020);
  EXPECT_LT(r.lift, 0.034);
  EXPECT_NEAR(r.pressure_difference, 0.1565, 0.02 * 0.1565);
  EXPECT_NEAR(r.pressure_difference, kReferencePressureDifference, 0.10 * kReferencePressureDifference);
}

TEST(DfgCylinder, BothMethodsMatchTheBenchmark) {
  const LoadedMesh& m = project_mesh("dfg_cylinder.msh", 0);
  // 1. The classical method to the steady state (steady mode).
  const FlowProblem classical = dfg_problem(m, "dfg_cylinder_steady_flow.toml", FlowMethod::classical, 100.0);
  ASSERT_TRUE(classical.steady.enabled);
  CpuFlowRun marched(m, classical);
  const FlowRunResult result = march_flow(marched.cpu, marched.ops, classical, m, marched.data, nullptr, FlowRunHooks{}, "cpu");
  ASSERT_TRUE(result.steady && result.steady->stop_reason == "converged") << "after " << result.state.step << " steps";
  const FlowState& steady = result.state;
  expect_matches_the_benchmark(coefficients_of(m, classical, steady, 0.0));

  // 2. The exact method from that state: the projection keeps the flux, the steps keep D U at round-off.
  const FlowProblem exact = dfg_problem(m, "dfg_cylinder_flow.toml", FlowMethod::exact, steady.time + 0.5);
  CpuFlowRun run(m, exact);
  run.solver.restore(steady);
  const double moved = largest_change(steady.flux, run.cpu.download(run.solver.flux()));
  std::printf("DFG 3D-1Z, the exact restart's projection moved the flux by %.2e of its largest\n", moved);
  EXPECT_LE(moved, 1e-5);  // the classical flux is divergence-free to its pressure tolerance
  double max_divergence = run.solver.diagnostics().max_divergence;
  FlowStepInfo info;
  while (!run.solver.finished()) {
    ASSERT_TRUE(run.solver.step(info)) << run.solver.failure();
    max_divergence = std::max(max_divergence, info.max_divergence);
  }
  const Coefficients r = coefficients_of(m, exact, run.solver.state(), max_divergence);
  expect_matches_the_benchmark(r);
  EXPECT_LE(r.max_divergence, 1e-12);
}

}  // namespace
}  // namespace ss::test
