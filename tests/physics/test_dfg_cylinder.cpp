// DFG benchmark 3D-1Z (Schäfer & Turek 1996): steady flow past a cylinder across a channel at Re 20,
// the project's sample case meshes/dfg_cylinder_flow.toml on its 25 K-tet mesh, run on the CPU
// reference by both methods to t = 3 (the drag is steady to 0.3 % by then; the sample runs to 4).
// The drag coefficient against the reference 6.18533 (Braack & Richter 2006; the benchmark's
// accepted range is 6.05–6.25), the lift against 0.009401; the exact method handles the hole (the
// cylinder spans the channel: two tree–cotree generators) and keeps D U at round-off throughout.
// The printed lines are the README's table (finer meshes there, from the GPU machine).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "physics/flow_case.hpp"
#include "physics/flow_case_problem.hpp"
#include "physics/flow_forces.hpp"
#include "physics/flow_test_util.hpp"

namespace ss::test {
namespace {

constexpr double kReferenceDrag = 6.18533, kReferenceLift = 0.009401;

struct Coefficients {
  double drag = 0, lift = 0, max_divergence = 0;
};

Coefficients run_dfg(FlowMethod method) {
  FlowCase c = read_flow_case(std::string(SS_SOURCE_DIR) + "/meshes/dfg_cylinder_flow.toml");
  c.time.end_time = 3.0;
  const LoadedMesh& m = project_mesh("dfg_cylinder.msh", 0);
  FlowProblem p = build_flow_problem(c, m);
  p.method = method;
  Coefficients r;
  const FlowState state = run_flow_on_cpu(
      m, p, [&r](const FlowStepInfo& info) { r.max_divergence = std::max(r.max_divergence, info.max_divergence); });
  if (::testing::Test::HasFailure()) return r;
  const FlowForce force = FlowForceMeter(m, p).forces(state).at(0);
  const glm::dvec3 coefficients = force_coefficients(p.forces.at(0), force.total());
  r.drag = coefficients.x, r.lift = coefficients.y;
  std::printf("DFG 3D-1Z, %s, %d tets, %d steps: drag %.4f (%+.2f %%; pressure %.4f, viscous %.4f), lift %.4f\n",
              method == FlowMethod::exact ? "exact" : "classical", m.topology.num_cells, state.step, r.drag,
              100 * (r.drag / kReferenceDrag - 1), force_coefficients(p.forces[0], force.pressure).x,
              force_coefficients(p.forces[0], force.viscous).x, r.lift);
  return r;
}

void expect_matches_the_benchmark(const Coefficients& r) {
  EXPECT_NEAR(r.drag, kReferenceDrag, 0.04 * kReferenceDrag);
  EXPECT_NEAR(r.lift, kReferenceLift, 0.05);  // 0.027 (classical), 0.046 (exact): 0.5–0.8 % of the drag
}

TEST(DfgCylinder, ClassicalDragMatchesTheBenchmark) {
  const Coefficients r = run_dfg(FlowMethod::classical);
  expect_matches_the_benchmark(r);
}

TEST(DfgCylinder, ExactDragMatchesTheBenchmark) {
  const Coefficients r = run_dfg(FlowMethod::exact);
  expect_matches_the_benchmark(r);
  EXPECT_LE(r.max_divergence, 1e-12);
}

}  // namespace
}  // namespace ss::test
