// Upwind advection of a node temperature by face fluxes (src/operators/heat_advection.hpp):
//  - CPU, double: the edge fluxes of a uniform velocity are u·S summed over the edge's dual faces;
//    every node's dual cell is closed (Σ_j F_ij + u·S_boundary = 0); a constant T has zero rate;
//    the explicit step at the thermal Courant limit stays within the old values (max principle).
//  - GPU (float) vs CPU (double), R32F and RGBA32F, fragment and compute launch, tight and thesis
//    layouts, box meshes of awkward node counts: E U and the upwind rate and inflow to 1e-5 of their largest magnitude
//    (float-exact inputs; rows of ~15 terms, each rounded once: ~1e-6 expected); the same for the
//    node gradient and the limited rate;
//  - the limited rate is exact for a linear temperature in a uniform flow at interior nodes.
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

// Limited linear upwind (heat_advection.hpp) on a linear T = 0.4 + b · x in a uniform flow u: the
// Green–Gauss gradient is b at every interior node, and at a node whose neighbours are all interior
// the limiter takes the edge midpoints' values, so the rate is the exact −V_i u · b; the upwind
// rate misses it by its crosswind diffusion. A constant T has zero rate.
TEST(HeatAdvection, LimitedRateIsExactForALinearTemperature) {
  const LoadedMesh m = prepare_mesh(make_box_mesh(6, 5, 6, glm::dvec3(1.0, 0.8, 1.1)));
  const HeatAdvectionData d = build_heat_advection(m);
  const glm::dvec3 u(0.3, -1.1, 0.7), b(1.5, -0.6, 2.2);
  std::vector<double> F, T(size_t(d.num_nodes)), gx, gy, gz, rate, inflow, upwind, upwind_inflow;
  d.edge_flux.multiply(uniform_flux(m, u), F);
  for (size_t i = 0; i < T.size(); ++i) T[i] = 0.4 + glm::dot(b, m.mesh.nodes[i]);
  node_gradient(d, T, gx, gy, gz);
  limited_advection(d, F, T, gx, gy, gz, rate, inflow);
  upwind_advection(d, F, T, upwind, upwind_inflow);
  const auto interior = [&](std::int32_t i) { return glm::length(m.geometry.boundary_dual_areas[size_t(i)]) == 0.0; };
  int checked = 0;
  double upwind_error = 0;
  for (std::int32_t i = 0; i < d.num_nodes; ++i) {
    if (!interior(i)) continue;
    EXPECT_NEAR(gx[size_t(i)], b.x, 1e-12) << i;
    EXPECT_NEAR(gy[size_t(i)], b.y, 1e-12) << i;
    EXPECT_NEAR(gz[size_t(i)], b.z, 1e-12) << i;
    bool all_interior = true;
    for (std::int32_t k = d.offsets[size_t(i)]; k < d.offsets[size_t(i) + 1]; ++k)
      all_interior = all_interior && interior(d.neighbors[size_t(k)]);
    if (!all_interior) continue;
    const double exact = -m.geometry.dual_volumes[size_t(i)] * glm::dot(u, b);
    EXPECT_NEAR(rate[size_t(i)], exact, 1e-12 * std::fabs(exact)) << i;
    EXPECT_EQ(inflow[size_t(i)], upwind_inflow[size_t(i)]) << i;
    ++checked;
  }
  EXPECT_GE(checked, 8);
  // A quadratic T (monotone on the box: no extremum for the limiter to clip): the limited rate's
  // error at those nodes is a fraction of the upwind one's, whose crosswind diffusion acts on T''.
  const auto quadratic = [](const glm::dvec3& x) { return (x.x + 1) * (x.x + 1) + 0.5 * (x.y + 1) * (x.y + 1) - x.z; };
  const auto gradient = [](const glm::dvec3& x) { return glm::dvec3(2 * (x.x + 1), x.y + 1, -1.0); };
  for (size_t i = 0; i < T.size(); ++i) T[i] = quadratic(m.mesh.nodes[i]);
  node_gradient(d, T, gx, gy, gz);
  limited_advection(d, F, T, gx, gy, gz, rate, inflow);
  upwind_advection(d, F, T, upwind, upwind_inflow);
  double limited_error = 0;
  for (std::int32_t i = 0; i < d.num_nodes; ++i) {
    bool deep = interior(i);
    for (std::int32_t k = d.offsets[size_t(i)]; k < d.offsets[size_t(i) + 1]; ++k) deep = deep && interior(d.neighbors[size_t(k)]);
    if (!deep) continue;
    const double exact = -m.geometry.dual_volumes[size_t(i)] * glm::dot(u, gradient(m.mesh.nodes[size_t(i)]));
    limited_error = std::max(limited_error, std::fabs(rate[size_t(i)] - exact) / std::fabs(exact));
    upwind_error = std::max(upwind_error, std::fabs(upwind[size_t(i)] - exact) / std::fabs(exact));
  }
  std::printf("quadratic T: largest relative rate error limited %.3g, upwind %.3g\n", limited_error, upwind_error);
  EXPECT_LT(limited_error, 0.05 * upwind_error);  // measured 0.0019 against 0.20
  limited_advection(d, F, std::vector<double>(T.size(), 3.5), std::vector<double>(T.size(), 0.0),
                    std::vector<double>(T.size(), 0.0), std::vector<double>(T.size(), 0.0), rate, inflow);
  for (double r : rate) ASSERT_EQ(r, 0.0);
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
      // The limited scheme: the gradient from the same T, then the rate from the same float-exact gradient.
      std::vector<double> cg[3], climited, climited_inflow;
      cop.gradient(hT, cg[0], cg[1], cg[2]);
      Field g[3] = {gpu.make_vector(d.num_nodes), gpu.make_vector(d.num_nodes), gpu.make_vector(d.num_nodes)};
      gop.gradient(T, g[0], g[1], g[2]);
      double gradient_diff = 0;
      Field gf[3];
      for (int x = 0; x < 3; ++x) {
        gradient_diff = std::max(gradient_diff, max_rel_diff(gpu.download(g[x]), cg[x]));
        for (double& v : cg[x]) v = double(float(v));
        gf[x] = gpu.upload(cg[x]);
      }
      cop.apply_limited(hF, hT, cg[0], cg[1], cg[2], climited, climited_inflow);
      gop.apply_limited(Ff, T, gf[0], gf[1], gf[2], rate, inflow);
      const double limited_diff = max_rel_diff(gpu.download(rate), climited);
      std::printf("  %s nodes %6d  edge_fluxes %.3g  rate %.3g  inflow %.3g  gradient %.3g  limited rate %.3g\n",
                  to_string(policy), d.num_nodes, flux_diff, rate_diff, inflow_diff, gradient_diff, limited_diff);
      EXPECT_LE(flux_diff, 1e-5);
      EXPECT_LE(rate_diff, 1e-5);
      EXPECT_LE(inflow_diff, 1e-5);
      EXPECT_LE(gradient_diff, 1e-5);
      EXPECT_LE(limited_diff, 1e-5);
      EXPECT_GT(max_abs(crate), 0.0);
      EXPECT_GT(max_abs(cg[0]), 0.0);
      EXPECT_GT(max_rel_diff(climited, crate), 1e-3);  // the correction is there
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Paths, HeatAdvectionGpu, kGpuPaths, gpu_path_name);

}  // namespace
}  // namespace ss::test
