// Wall-exact node values (postprocess/flow_node_values.hpp): on the lid-driven cavity the nodes of the
// lid read the lid velocity exactly, every wall node (the lid's edge too: a wall at rest wins) reads
// 0, and the interior nodes keep the volume-weighted mean of the cells around them; an outlet's
// nodes read the outlet pressure at the node; the GPU run's node fields equal the CPU reference's.
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include <glm/geometric.hpp>

#include "postprocess/flow_fields.hpp"
#include "operators/gpu_mesh_operators.hpp"
#include "physics/flow_gpu_test_util.hpp"
#include "support/gl_fixture.hpp"

namespace ss::test {
namespace {

FlowProblem cavity_problem(const LoadedMesh& m, int steps) {
  FlowProblem p;
  p.viscosity = 0.01;  // Re = 100 with the unit lid speed
  p.time.dt = 0.01;
  p.time.steps = steps;
  p.pressure.tolerance = p.momentum.tolerance = 1e-6;
  p.momentum.max_iterations = p.pressure.max_iterations = 200;
  assign_by_group(p, m, {{"lid", wall([](const glm::dvec3&, double) { return glm::dvec3(1, 0, 0); })},
                         {"walls", wall()}});
  return p;
}

// The nodes of the boundary faces of group `name`.
std::set<std::int32_t> group_nodes(const LoadedMesh& m, const std::string& name) {
  std::set<std::int32_t> nodes;
  for (std::int32_t f : m.topology.boundary_faces)
    if (m.mesh.surface_group_names.at(m.topology.face_groups[size_t(f)]) == name)
      for (std::int32_t n : m.topology.face_nodes[size_t(f)]) nodes.insert(n);
  return nodes;
}

// The volume-weighted mean of per-cell values around each node (the reconstruction inside).
template <class Value>
std::vector<Value> node_means(const LoadedMesh& m, const std::vector<Value>& cell) {
  std::vector<Value> sum(m.mesh.nodes.size(), Value(0.0));
  std::vector<double> weight(m.mesh.nodes.size(), 0.0);
  for (size_t c = 0; c < m.mesh.tets.size(); ++c)
    for (NodeId n : m.mesh.tets[c]) {
      sum[size_t(n)] += m.geometry.cell_volumes[c] * cell[c];
      weight[size_t(n)] += m.geometry.cell_volumes[c];
    }
  for (size_t n = 0; n < sum.size(); ++n) sum[n] /= weight[n];
  return sum;
}

TEST(FlowNodeValues, CavityLidAndWallNodesAreExact) {
  const LoadedMesh& m = project_mesh("cavity.msh", 0);
  const FlowProblem p = cavity_problem(m, 10);
  const FlowState s = run_flow_on_cpu(m, p);
  CpuMeshOperators ops(m);
  const FlowFields f = compute_flow_fields(ops, m, p, s);
  const std::set<std::int32_t> lid = group_nodes(m, "lid"), walls = group_nodes(m, "walls");
  const std::vector<glm::dvec3> mean = node_means(m, f.cell_velocity);
  int lid_only = 0;
  double mean_lid_u = 0;  // what the node read before: the cell mean
  for (std::int32_t n : lid) {
    if (walls.count(n)) continue;
    ++lid_only;
    mean_lid_u += mean[size_t(n)].x;
    EXPECT_EQ(f.node_velocity[size_t(n)], glm::dvec3(1, 0, 0)) << "lid node " << n;
  }
  ASSERT_GT(lid_only, 0);
  for (std::int32_t n : walls) EXPECT_EQ(f.node_velocity[size_t(n)], glm::dvec3(0.0)) << "wall node " << n;
  int interior = 0;
  for (size_t n = 0; n < m.mesh.nodes.size(); ++n) {
    if (lid.count(std::int32_t(n)) || walls.count(std::int32_t(n))) continue;
    ++interior;
    EXPECT_LT(glm::length(f.node_velocity[n] - mean[n]), 1e-14) << "interior node " << n;
  }
  ASSERT_GT(interior, 0);
  // Walls only: no node pressure is prescribed; interior nodes keep the cell mean (boundary nodes:
  // the extrapolation, next test).
  const std::vector<double> p_mean = node_means(m, f.pressure);
  for (size_t n = 0; n < m.mesh.nodes.size(); ++n) {
    if (!lid.count(std::int32_t(n)) && !walls.count(std::int32_t(n))) {
      EXPECT_NEAR(f.node_pressure[n], p_mean[n], 1e-12);
    }
  }
  ::testing::Test::RecordProperty("lid_node_mean_u_before", ::testing::PrintToString(mean_lid_u / lid_only));
}

// A linear cell pressure p_c = 1 + 2x_c − y_c + 3z_c: every wall node reads the linear field at the
// node (the least-squares fit is exact for it; the cells' mean lags by half a cell's gradient).
TEST(FlowNodeValues, WallNodePressureIsExactForALinearField) {
  const LoadedMesh& m = project_mesh("cavity.msh", 0);
  const FlowProblem p = cavity_problem(m, 1);
  FlowState s;
  s.flux.assign(size_t(m.topology.num_faces), 0.0);
  const auto linear = [](const glm::dvec3& x) { return 1 + 2 * x.x - x.y + 3 * x.z; };
  for (const glm::dvec3& c : m.geometry.cell_centroids) s.pressure.push_back(linear(c));
  CpuMeshOperators ops(m);
  const FlowFields f = compute_flow_fields(ops, m, p, s);
  const std::set<std::int32_t> lid = group_nodes(m, "lid"), walls = group_nodes(m, "walls");
  const std::vector<double> p_mean = node_means(m, f.pressure);
  double largest_mean_error = 0;
  for (const std::set<std::int32_t>* group : {&lid, &walls})
    for (std::int32_t n : *group) {
      const double exact = linear(glm::dvec3(m.mesh.nodes[size_t(n)]));
      EXPECT_NEAR(f.node_pressure[size_t(n)], exact, 1e-10) << "wall node " << n;
      largest_mean_error = std::max(largest_mean_error, std::fabs(p_mean[size_t(n)] - exact));
    }
  EXPECT_GT(largest_mean_error, 0.05);  // the mean would fail the check above
}

// A duct with an inlet profile u(y, z) and an outlet at p = 2 + y: inlet nodes read the profile at
// the node, outlet nodes p_b at the node, wall nodes 0 (the inlet's rim too: the wall wins).
TEST(FlowNodeValues, InletProfileAndOutletPressureAtTheNodes) {
  const LoadedMesh& m = project_mesh("duct.msh", 0);
  FlowProblem p;
  const VelocityFunction inflow = [](const glm::dvec3& x, double) { return glm::dvec3(1 + x.y + 2 * x.z, 0, 0); };
  FlowCondition outlet = pressure_outlet(0);
  outlet.pressure = [](const glm::dvec3& x, double) { return 2 + x.y; };
  assign_by_group(p, m, {{"inlet", wall(inflow)}, {"outlet", outlet}, {"walls", wall()}});
  FlowState s;
  s.flux = face_fluxes(m, [](const glm::dvec3& x, double) { return glm::dvec3(1 + x.y, x.z, 0); }, 0.0);
  s.pressure.resize(size_t(m.topology.num_cells));
  for (size_t c = 0; c < s.pressure.size(); ++c) s.pressure[c] = m.geometry.cell_centroids[c].x;
  CpuMeshOperators ops(m);
  const FlowFields f = compute_flow_fields(ops, m, p, s);
  const std::set<std::int32_t> in = group_nodes(m, "inlet"), out = group_nodes(m, "outlet"),
                               walls = group_nodes(m, "walls");
  for (std::int32_t n : in) {
    const glm::dvec3 expected = walls.count(n) ? glm::dvec3(0.0) : inflow(m.mesh.nodes[size_t(n)], 0.0);
    EXPECT_EQ(f.node_velocity[size_t(n)], expected) << "inlet node " << n;
  }
  for (std::int32_t n : walls) EXPECT_EQ(f.node_velocity[size_t(n)], glm::dvec3(0.0)) << "wall node " << n;
  for (std::int32_t n : out) EXPECT_EQ(f.node_pressure[size_t(n)], 2 + m.mesh.nodes[size_t(n)].y) << "outlet node " << n;
  const std::vector<glm::dvec3> mean = node_means(m, f.cell_velocity);
  const std::vector<double> p_mean = node_means(m, f.pressure);
  for (std::int32_t n : out) {
    if (walls.count(n)) continue;
    EXPECT_LT(glm::length(f.node_velocity[size_t(n)] - mean[size_t(n)]), 1e-14);
  }
  // The other nodes: wall and inlet nodes the linear cell pressure's value x_n, interior ones the mean.
  for (size_t n = 0; n < m.mesh.nodes.size(); ++n) {
    const std::int32_t node = std::int32_t(n);
    if (out.count(node)) continue;
    const bool boundary = in.count(node) || walls.count(node);
    EXPECT_NEAR(f.node_pressure[n], boundary ? m.mesh.nodes[n].x : p_mean[n], 1e-10) << "node " << n;
  }
}

class FlowNodeValuesGpu : public GlTest {};

// The GPU run (float kernels) read back: its prescribed node values equal the CPU reference's
// exactly (both evaluate the same boundary values in double), the rest within 1e-4 of the max speed
// (what --compare promises of the cell velocities).
TEST_F(FlowNodeValuesGpu, CavityNodeFieldsEqualCpu) {
  const LoadedMesh& m = project_mesh("cavity.msh", 0);
  const FlowProblem p = cavity_problem(m, 5);
  const FlowState reference = run_flow_on_cpu(m, p);
  GpuBackend gpu = make_gpu();
  const FlowState state = run_flow_on_gpu(gpu, m, p);
  ASSERT_FALSE(HasFailure());
  CpuMeshOperators ops(m);
  const FlowFields g = compute_flow_fields(ops, m, p, state);
  const FlowFields c = compute_flow_fields(ops, m, p, reference);
  const std::set<std::int32_t> lid = group_nodes(m, "lid"), walls = group_nodes(m, "walls");
  double max_speed = 0, max_diff = 0;
  for (size_t n = 0; n < m.mesh.nodes.size(); ++n) {
    if (lid.count(std::int32_t(n)) || walls.count(std::int32_t(n))) {
      EXPECT_EQ(g.node_velocity[n], c.node_velocity[n]) << "boundary node " << n;
      continue;
    }
    max_speed = std::max(max_speed, glm::length(c.node_velocity[n]));
    max_diff = std::max(max_diff, glm::length(g.node_velocity[n] - c.node_velocity[n]));
  }
  ASSERT_GT(max_speed, 0.02);  // the run did move the interior (0.0498 after 5 steps)
  EXPECT_LE(max_diff / max_speed, 1e-4);
  ::testing::Test::RecordProperty("max_node_velocity_diff", ::testing::PrintToString(max_diff / max_speed));
}

}  // namespace
}  // namespace ss::test
