// build_refined_heat_problem (level K from level K − 1, without level K's mesh) against its twin,
// build_heat_problem on the host's refined mesh (*IsEquivalentToRef): the same fixed nodes with
// bit-identical values and initial values (the same midpoints), the loads within 1e-13 of the
// largest (the sums run in another order), and each fine cell's materials its parent's. On the
// crankshaft case (two Dirichlet groups), and on the cube with every kind of input at once: a
// source formula, a Neumann flux formula, two Dirichlet formulas sharing an edge (the first listed
// wins), a formula initial value; both numberings, refined from level 0 and from level 1.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "mesh/load_mesh.hpp"
#include "cases/heat_case.hpp"
#include "problems/heat_problem.hpp"

namespace ss::test {
namespace {

const std::string kCubeCase = R"(
[mesh]
file = "cube.msh"
[material]
conductivity = 2.0
heat_capacity = 3.0
source = "1 + x + 2*y*z"
[[boundary]]
group = "left"
type = "dirichlet"
value = "1 + x*y"
[[boundary]]
group = "bottom"
type = "dirichlet"
value = "5 + z"
[[boundary]]
group = "right"
type = "neumann"
value = "sin(3*y) + 2"
[time]
dt = 0.1
steps = 2
initial = "x*z"
)";

void expect_equivalent(const HeatCase& c, const LoadedMesh& coarse, const LoadedMesh& fine, RefineNumbering numbering,
                       const std::string& what) {
  const HeatProblem want = build_heat_problem(c, fine);
  const HeatProblem got = build_refined_heat_problem(c, coarse, numbering);
  EXPECT_EQ(got.dirichlet_nodes, want.dirichlet_nodes) << what;
  EXPECT_EQ(got.dirichlet_values, want.dirichlet_values) << what;
  EXPECT_EQ(got.initial, want.initial) << what;
  ASSERT_EQ(got.conductivity.size() * 8, want.conductivity.size()) << what;
  for (size_t cell = 0; cell < want.conductivity.size(); ++cell) {
    ASSERT_EQ(got.conductivity[cell / 8], want.conductivity[cell]) << what << ", fine cell " << cell;
    ASSERT_EQ(got.heat_capacity[cell / 8], want.heat_capacity[cell]) << what << ", fine cell " << cell;
  }
  ASSERT_EQ(got.load.size(), want.load.size()) << what;
  double largest = 0, worst = 0;
  for (size_t i = 0; i < want.load.size(); ++i) {
    largest = std::max(largest, std::fabs(want.load[i]));
    worst = std::max(worst, std::fabs(got.load[i] - want.load[i]));
  }
  EXPECT_LE(worst, 1e-13 * largest) << what;
  EXPECT_EQ(got.time.has_value(), want.time.has_value()) << what;
  std::printf("[ refined heat problem ] %s: %zu fixed nodes, loads within %.1e of the largest\n", what.c_str(),
              want.dirichlet_nodes.size(), largest > 0 ? worst / largest : 0.0);
}

TEST(RefinedHeatProblem, CrankshaftCaseIsEquivalentToRef) {
  const HeatCase c = read_heat_case(std::string(SS_SOURCE_DIR) + "/meshes/crank_heat.toml");
  expect_equivalent(c, load_mesh(c.mesh_file, 0), load_mesh(c.mesh_file, 1), RefineNumbering::interleaved, "crank 0 -> 1");
  expect_equivalent(c, load_mesh(c.mesh_file, 1), load_mesh(c.mesh_file, 2), RefineNumbering::interleaved, "crank 1 -> 2");
}

TEST(RefinedHeatProblem, EveryKindOfInputIsEquivalentToRef) {
  const HeatCase c = parse_heat_case(kCubeCase, std::string(SS_SOURCE_DIR) + "/meshes/inline_case.toml");
  expect_equivalent(c, load_mesh(c.mesh_file, 0), load_mesh(c.mesh_file, 1), RefineNumbering::interleaved, "cube 0 -> 1");
  LoadOptions keep;  // the file's order: refined nodes follow coarse_first
  keep.renumber = false;
  LoadOptions keep_fine = keep;
  keep_fine.refine = 1;
  expect_equivalent(c, load_mesh(c.mesh_file, keep), load_mesh(c.mesh_file, keep_fine), RefineNumbering::coarse_first,
                    "cube 0 -> 1, coarse_first");
}

}  // namespace
}  // namespace ss::test
