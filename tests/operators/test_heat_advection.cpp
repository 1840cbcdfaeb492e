// Upwind advection of a node temperature by face fluxes (src/operators/heat_advection.hpp):
//  - CPU, double: the edge fluxes of a uniform velocity are u·S summed over the edge's dual faces;
//    every node's dual cell is closed (Σ_j F_ij + u·S_boundary = 0); a constant T has zero rate;
//    the explicit step at the thermal Courant limit stays within the old values (max principle).
//  - GPU (float) vs CPU (double), R32F and RGBA32F, fragment and compute launch, tight and thesis
//    layouts, box meshes of awkward node counts: E U and the upwind rate and inflow to 1e-5 of their largest magnitude
//    (float-exact inputs; rows of ~15 terms, each rounded once: ~1e-6 expected).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include <glm/geometric.hpp>

#include "mesh/box_mesh.hpp"
#include "mesh/load_mesh.hpp"
#include "gpu_paths.hpp"
#include "operators/heat_advection.hpp"
#include "support/gl_fixture.hpp"
#include "support/test_data.hpp"

namespace ss::test {
namespace {

// The face fluxes of a uniform velocity u: U_f = u · n_f A_f (n from face_cells[f][0] to [1]).
std::vector<double> uniform_flux(const LoadedMesh& m, const glm::dvec3& u) {
  std::vector<double> U(size_t(m.topology.num_faces));
  for (size_t f = 0; f < U.size(); ++f) U[f] = glm::dot(u, m.geometry.face_normals[f]) * m.geometry.face_areas[f];
  return U;
}

TEST(HeatAdvection, UniformFlowEdgeFluxesCloseEveryDualCell) {
  const LoadedMesh m = prepare_mesh(make_box_mesh(3, 2, 4, glm::dvec3(1.0, 0.7, 1.3)));
  const glm::dvec3 u(0.3, -1.1, 0.7);
  const HeatAdvectionData d = build_heat_advection(m);
  std::vector<double> F;
  d.edge_flux.multiply(uniform_flux(m, u), F);
  // Expected: u · Σ_c S_e,c.
  std::vector<double> expect(size_t(m.topology.num_edges), 0.0);
  for (size_t c = 0; c < size_t(m.topology.num_cells); ++c)
    for (size_t k = 0; k < 6; ++k)
      expect[size_t(m.topology.cell_edges[c][k])] += glm::dot(u, m.geometry.dual_face_areas[c * 6 + k]);
  for (size_t e = 0; e < F.size(); ++e) ASSERT_NEAR(F[e], expect[e], 1e-13) << "edge " << e;
  // Σ_j F_ij + u · S_boundary,i = 0 at every node.
  for (std::int32_t i = 0; i < d.num_nodes; ++i) {
    double sum = glm::dot(u, m.geometry.boundary_dual_areas[size_t(i)]);
    for (std::int32_t k = d.offsets[size_t(i)]; k < d.offsets[size_t(i) + 1]; ++k) {
      const std::int32_t e = d.entry_edges[size_t(k)];
      sum += e > 0 ? F[size_t(e - 1)] : -F[size_t(-e - 1)];
    }
    ASSERT_NEAR(sum, 0.0, 1e-13) << "node " << i;
  }
}

TEST(HeatAdvection, ConstantIsKeptAndTheCourantLimitedStepIsBounded) {
  const LoadedMesh m = prepare_mesh(make_box_mesh(4, 3, 3));
  const HeatAdvectionData d = build_heat_advection(m);
  std::vector<double> F, rate, inflow;
  d.edge_flux.multiply(uniform_flux(m, glm::dvec3(1.0, 0.4, -0.2)), F);
  upwind_advection(d, F, std::vector<double>(size_t(d.num_nodes), 3.5), rate, inflow);
  for (double r : rate) ASSERT_EQ(r, 0.0);
  double inflow_sum = 0;
  for (double q : inflow) inflow_sum += q;
  EXPECT_GT(inflow_sum, 0.1);  // the flux is not lost
  // A random field stepped at Courant number 1 stays within [min, max] of the old one.
  const std::vector<double> T = uniform_values(d.num_nodes, 5);
  upwind_advection(d, F, T, rate, inflow);
  double courant = 0;
  for (size_t i = 0; i < T.size(); ++i) courant = std::max(courant, inflow[i] / m.geometry.dual_volumes[i]);
  const double dt = 1.0 / courant;
  const double lo = *std::min_element(T.begin(), T.end()), hi = *std::max_element(T.begin(), T.end());
  for (size_t i = 0; i < T.size(); ++i) {
    const double next = T[i] + dt * rate[i] / m.geometry.dual_volumes[i];
    ASSERT_GE(next, lo - 1e-12) << i;
    ASSERT_LE(next, hi + 1e-12) << i;
  }
  // Twice the limit leaves the bounds somewhere (the limit is not loose by a factor 2).
  bool outside = false;
  for (size_t i = 0; i < T.size(); ++i) {
    const double next = T[i] + 2.5 * dt * rate[i] / m.geometry.dual_volumes[i];
    outside = outside || next < lo || next > hi;
  }
  EXPECT_TRUE(outside);
}

class HeatAdvectionGpu : public GlTest, public ::testing::WithParamInterface<GpuPath> {};

TEST_P(HeatAdvectionGpu, IsEquivalentToRef) {
  for (const LayoutPolicy policy : {LayoutPolicy::tight, LayoutPolicy::thesis}) {
    LayoutOptions layout;
    layout.packing = GetParam().packing;
    layout.policy = policy;
    GpuOptions options;
    options.launch = GetParam().launch;
    GpuBackend gpu = make_gpu(layout, options);
    CpuBackend cpu;
    // Node counts 8, 12, 27, 975, 9261: awkward sizes for both packings.
    for (const glm::ivec3 n : {glm::ivec3(1, 1, 1), glm::ivec3(2, 1, 1), glm::ivec3(2, 2, 2), glm::ivec3(4, 14, 12),
                               glm::ivec3(20, 20, 20)}) {
      const LoadedMesh m = prepare_mesh(make_box_mesh(n.x, n.y, n.z));
      const HeatAdvectionData d = build_heat_advection(m);
      GpuHeatAdvection gop(gpu, d);
      CpuHeatAdvection cop(cpu, d);
      const std::vector<double> hU = mixed_values(m.topology.num_faces, 7, -2, 1);
      const std::vector<double> hT = mixed_values(d.num_nodes, 8, -1, 2);
      std::vector<double> cF, crate, cinflow;
      cop.edge_fluxes(hU, cF);
      Field U = gpu.upload(hU), F = gpu.make_vector(d.num_edges);
      gop.edge_fluxes(U, F);
      const double flux_diff = max_rel_diff(gpu.download(F), cF);
      // The rate from the same float-exact edge fluxes on both sides.
      std::vector<double> hF = cF;
      for (double& v : hF) v = double(float(v));
      cop.apply(hF, hT, crate, cinflow);
      Field Ff = gpu.upload(hF), T = gpu.upload(hT);
      Field rate = gpu.make_vector(d.num_nodes), inflow = gpu.make_vector(d.num_nodes);
      gop.apply(Ff, T, rate, inflow);
      const double rate_diff = max_rel_diff(gpu.download(rate), crate);
      const double inflow_diff = max_rel_diff(gpu.download(inflow), cinflow);
      std::printf("  %s nodes %6d  edge_fluxes %.3g  rate %.3g  inflow %.3g\n", to_string(policy), d.num_nodes,
                  flux_diff, rate_diff, inflow_diff);
      EXPECT_LE(flux_diff, 1e-5);
      EXPECT_LE(rate_diff, 1e-5);
      EXPECT_LE(inflow_diff, 1e-5);
      EXPECT_GT(max_abs(crate), 0.0);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Paths, HeatAdvectionGpu, kGpuPaths, gpu_path_name);

}  // namespace
}  // namespace ss::test
