// Fractional-step flow operators (operators/flow_operators.hpp):
//  - GPU vs CPU (*IsEquivalentToRef) for every kernel on the project meshes, both packings and
//    launch paths: max |gpu − cpu| / max |cpu| ≤ 1e-5 (float inputs, a few dozen float terms each);
//    the pressure operator at listed cells equals its full pass exactly on each backend.
//  - identities on the CPU in double: K = Iᵀ V Λ₀ I is symmetric and negative semi-definite with
//    the diagonal the data gives; P is symmetric, P·1 = 0 without an outlet; a projection leaves
//    D U = 0 up to the pressure tolerance; central convection does no work on a divergence-free
//    field with walls, Σ_f U_f (T N(u))_f = 0 (the kinetic-energy identity of thesis eq. 7.6).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <tuple>

#include "support/flow_boundary_kinds.hpp"
#include "support/gl_fixture.hpp"
#include "support/test_data.hpp"
#include "mesh/load_mesh.hpp"
#include "support/project_mesh.hpp"
#include "operators/flow_operators.hpp"
#include "solver/cg.hpp"

namespace ss::test {
namespace {

struct FlowSetup {
  explicit FlowSetup(const LoadedMesh& m, bool with_outlet)
      : cpu_mesh(m), data(build_flow_operator_data(cpu_mesh.tables(), mixed_boundary_kinds(m, with_outlet))), cpu(cpu_mesh, data) {}
  CpuMeshOperators cpu_mesh;
  FlowOperatorData data;
  CpuFlowOperators cpu;
};

constexpr double kGpuTolerance = 1e-5;

class FlowOperatorsGpu : public GlTest,
                         public ::testing::WithParamInterface<std::tuple<const char*, Packing, LaunchPath>> {};

TEST_P(FlowOperatorsGpu, EveryKernelIsEquivalentToRef) {
  const auto [file, packing, launch] = GetParam();
  const LoadedMesh& m = project_mesh(file);
  FlowSetup s(m, true);
  LayoutOptions layout;
  layout.packing = packing;
  GpuOptions options;
  options.launch = launch;
  GpuBackend gpu = make_gpu(layout, options);
  GpuMeshOperators gpu_mesh(gpu, m);
  GpuFlowOperators g(gpu, gpu_mesh, s.data);
  const std::int64_t nf = s.data.num_faces, nc = s.data.num_cells, nb = s.data.num_boundary_faces;
  const std::vector<double> U = uniform_values(nf, 1), ux = uniform_values(nc, 2), uy = uniform_values(nc, 3),
                            uz = uniform_values(nc, 4);
  const std::vector<double> bx = uniform_values(nb, 5), by = uniform_values(nb, 6), bz = uniform_values(nb, 7);
  const std::vector<double> faces2 = uniform_values(nf, 8), faces3 = uniform_values(nf, 9), faces4 = uniform_values(nf, 10);
  const auto cells = uniform_values(nc, 11);
  const Field gU = gpu.upload(U), gux = gpu.upload(ux), guy = gpu.upload(uy), guz = gpu.upload(uz);
  const Field gbx = gpu.upload(bx), gby = gpu.upload(by), gbz = gpu.upload(bz);
  const Field gf2 = gpu.upload(faces2), gf3 = gpu.upload(faces3), gf4 = gpu.upload(faces4), gcells = gpu.upload(cells);
  std::vector<double> cx, cy, cz;
  Field fx, fy, fz;
  for (Convection conv : {Convection::none, Convection::central, Convection::upwind}) {
    s.cpu.cell_terms(conv, 0.3, 0.7, U, ux, uy, uz, bx, by, bz, cx, cy, cz);
    g.cell_terms(conv, 0.3, 0.7, gU, gux, guy, guz, gbx, gby, gbz, fx, fy, fz);
    EXPECT_LE(max_rel_diff(gpu.download(fx), cx), kGpuTolerance) << "cell terms x, convection " << int(conv);
    EXPECT_LE(max_rel_diff(gpu.download(fy), cy), kGpuTolerance) << "cell terms y, convection " << int(conv);
    EXPECT_LE(max_rel_diff(gpu.download(fz), cz), kGpuTolerance) << "cell terms z, convection " << int(conv);
  }
  std::vector<double> c_out;
  Field g_out;
  s.cpu.viscous_apply(U, c_out);
  g.viscous_apply(gU, g_out);
  EXPECT_LE(max_rel_diff(gpu.download(g_out), c_out), kGpuTolerance) << "viscous K";
  s.cpu.momentum_apply(25.0, 0.1, U, c_out);
  g.momentum_apply(25.0, 0.1, gU, g_out);
  EXPECT_LE(max_rel_diff(gpu.download(g_out), c_out), kGpuTolerance) << "momentum apply";
  EXPECT_LE(max_rel_diff(gpu.download(g.momentum_diagonal(25.0, 0.1)), s.cpu.momentum_diagonal(25.0, 0.1)),
            kGpuTolerance)
      << "momentum diagonal";
  s.cpu.momentum_rhs(25.0, 0.1, U, faces2, faces3, faces4, faces2, c_out);
  g.momentum_rhs(25.0, 0.1, gU, gf2, gf3, gf4, gf2, g_out);
  EXPECT_LE(max_rel_diff(gpu.download(g_out), c_out), kGpuTolerance) << "momentum rhs";
  s.cpu.pressure_apply(cells, c_out);
  g.pressure_apply(gcells, g_out);
  EXPECT_LE(max_rel_diff(gpu.download(g_out), c_out), kGpuTolerance) << "pressure apply";
  // At listed cells (a halo's send rows; any order, repeats; 1, 2, 7 and a prime count of them):
  // the full pass's own values bit for bit on both backends, as an MPI ghost copy must be.
  const std::vector<double> g_full = gpu.download(g_out);
  for (std::int64_t count : {std::int64_t(1), std::int64_t(2), std::int64_t(7), std::int64_t(1021)}) {
    std::vector<std::int32_t> rows;
    for (std::int64_t k = 0; k < count; ++k) rows.push_back(std::int32_t(k == 0 ? nc - 1 : (k * 7919) % nc));
    std::vector<double> c_rows, g_expected, c_expected;
    s.cpu.pressure_rows(rows, cells, c_rows);
    Field g_rows = gpu.make_vector(count);
    g.pressure_rows(gpu.upload_indices(rows), gcells, g_rows);
    for (std::int32_t r : rows) g_expected.push_back(g_full[size_t(r)]), c_expected.push_back(c_out[size_t(r)]);
    EXPECT_EQ(gpu.download(g_rows), g_expected) << "pressure at " << count << " listed cells, GPU";
    EXPECT_EQ(c_rows, c_expected) << "pressure at " << count << " listed cells, CPU";
  }
  s.cpu.project(U, cells, 0.5, c_out);
  g.project(gU, gcells, 0.5, g_out);
  EXPECT_LE(max_rel_diff(gpu.download(g_out), c_out), kGpuTolerance) << "projection";
  s.cpu.courant(U, c_out);
  g.courant(gU, g_out);
  EXPECT_LE(max_rel_diff(gpu.download(g_out), c_out), kGpuTolerance) << "courant";
}

INSTANTIATE_TEST_SUITE_P(ProjectMeshes, FlowOperatorsGpu,
                         ::testing::Combine(::testing::Values("cube.msh", "duct.msh", "cavity.msh"),
                                            ::testing::Values(Packing::r32f, Packing::rgba32f),
                                            ::testing::Values(LaunchPath::fragment, LaunchPath::compute)));

TEST(FlowOperatorsCpu, ViscousOperatorIsSymmetricNegativeSemiDefiniteWithTheGivenDiagonal) {
  FlowSetup s(project_mesh("duct.msh"), true);
  const auto x = uniform_values(s.data.num_faces, 21), y = uniform_values(s.data.num_faces, 22);
  std::vector<double> Kx, Ky;
  s.cpu.viscous_apply(x, Kx);
  s.cpu.viscous_apply(y, Ky);
  EXPECT_NEAR(dot_product(Kx, y), dot_product(x, Ky), 1e-10 * std::fabs(dot_product(Kx, y)));
  EXPECT_LE(dot_product(Kx, x), 0.0);
  // Diagonal: K e_f for a few faces.
  for (size_t f : {size_t(0), size_t(17), size_t(s.data.num_faces - 1)}) {
    std::vector<double> e(size_t(s.data.num_faces), 0.0), Ke;
    e[f] = 1.0;
    s.cpu.viscous_apply(e, Ke);
    EXPECT_NEAR(Ke[f], s.data.laplacian_diagonal[f], 1e-10 * std::fabs(Ke[f])) << "face " << f;
  }
}

TEST(FlowOperatorsCpu, PressureOperatorIsSymmetricWithConstantsInTheNullSpaceWithoutOutlet) {
  FlowSetup s(project_mesh("cavity.msh"), false);
  EXPECT_FALSE(s.data.pressure_fixed);
  const auto x = uniform_values(s.data.num_cells, 31), y = uniform_values(s.data.num_cells, 32);
  std::vector<double> Px, Py, P1;
  s.cpu.pressure_apply(x, Px);
  s.cpu.pressure_apply(y, Py);
  EXPECT_NEAR(dot_product(Px, y), dot_product(x, Py), 1e-10 * std::fabs(dot_product(Px, y)));
  s.cpu.pressure_apply(std::vector<double>(size_t(s.data.num_cells), 1.0), P1);
  for (double v : P1) EXPECT_NEAR(v, 0.0, 1e-10);
}

// Projects a random face field onto D U = 0 (walls and one outlet) and returns max |D U| / max |U|.
double projected_divergence(CpuMeshOperators& mesh, CpuFlowOperators& ops) {
  CpuBackend cpu;
  const FlowOperatorData& data = ops.data();
  auto Ustar = uniform_values(data.num_faces, 41);
  for (size_t f = 0; f < Ustar.size(); ++f) Ustar[f] *= data.free_mask[f];  // prescribed faces: U_b = 0
  std::vector<double> rhs, phi(size_t(data.num_cells), 0.0), U, div;
  mesh.divergence(Ustar, rhs);
  for (double& r : rhs) r = -r;  // Δt = 1
  CgOptions options;
  options.tolerance = 1e-12;
  const auto apply = [&](const std::vector<double>& a, std::vector<double>& b) { ops.pressure_apply(a, b); };
  std::vector<double> inverse_diagonal(data.pressure_diagonal.size());
  for (size_t c = 0; c < inverse_diagonal.size(); ++c) inverse_diagonal[c] = 1.0 / data.pressure_diagonal[c];
  EXPECT_TRUE(conjugate_gradient(cpu, apply, rhs, phi, &inverse_diagonal, options).converged);
  ops.project(Ustar, phi, 1.0, U);
  mesh.divergence(U, div);
  double max_div = 0, max_u = 0;
  for (double d : div) max_div = std::max(max_div, std::fabs(d));
  for (double u : U) max_u = std::max(max_u, std::fabs(u));
  return max_div / max_u;
}

TEST(FlowOperatorsCpu, ProjectionMakesTheFluxDivergenceFreeToTheSolverTolerance) {
  FlowSetup s(project_mesh("duct.msh"), true);
  EXPECT_LT(projected_divergence(s.cpu_mesh, s.cpu), 1e-9);
}

// Local pseudo-time steps (use_local_pseudo_time_steps) on the graded cylinder mesh: s_c = h_c/h_min
// (clipped to [1, 100]), s_f the smaller of its cells', H/s and s W in the data, P's diagonal their
// sum; the projection with P = Gᵀ s W G still makes the flux divergence-free.
TEST(FlowOperatorsCpu, LocalPseudoTimeStepsScaleMassAndPressureWeightsByCellSize) {
  const LoadedMesh& m = project_mesh("dfg_cylinder.msh");
  FlowSetup s(m, true);
  const FlowOperatorData one_step = s.data;
  const MeshOperatorTables& t = s.cpu_mesh.tables();
  const double h_min = smallest_cell_length(t);
  use_local_pseudo_time_steps(s.data, t, h_min);
  const FlowOperatorData& d = s.data;
  double smallest = INFINITY, largest = 0;
  for (size_t c = 0; c < size_t(d.num_cells); ++c) {
    EXPECT_NEAR(d.cell_step_scale[c], std::clamp(std::cbrt(t.cell_volumes[c]) / h_min, 1.0, kMaxLocalStepRatio), 1e-12);
    smallest = std::min(smallest, d.cell_step_scale[c]), largest = std::max(largest, d.cell_step_scale[c]);
  }
  EXPECT_EQ(smallest, 1.0);
  std::printf("cell step scales from 1 to %.2f\n", largest);
  EXPECT_GT(largest, 5.0);  // measured 7.6: the mesh is graded toward the cylinder
  for (size_t f = 0; f < size_t(d.num_faces); ++f) {
    const std::int32_t c1 = t.face_cell1[f];
    const double s0 = d.cell_step_scale[size_t(t.face_cell0[f])];
    EXPECT_EQ(d.face_step_scale[f], c1 >= 0 ? std::min(s0, d.cell_step_scale[size_t(c1)]) : s0);
    EXPECT_NEAR(d.face_mass[f] * d.face_step_scale[f], one_step.face_mass[f], 1e-13 * one_step.face_mass[f]);
    EXPECT_NEAR(d.pressure_weight[f], one_step.pressure_weight[f] * d.face_step_scale[f], 1e-13 * d.pressure_weight[f]);
  }
  for (size_t c = 0; c < size_t(d.num_cells); ++c) {
    double sum = 0;
    for (size_t k = 0; k < 4; ++k) sum += d.pressure_weight[size_t(decode_index(t.cell_faces[k][c]))];
    EXPECT_NEAR(d.pressure_diagonal[c], sum, 1e-13 * sum);
  }
  CpuFlowOperators scaled(s.cpu_mesh, d);
  EXPECT_LT(projected_divergence(s.cpu_mesh, scaled), 1e-9);
}

TEST(FlowOperatorsCpu, CentralConvectionDoesNoWorkOnADivergenceFreeFieldWithWalls) {
  // U = C s is divergence-free (DC = 0); zeroing s on boundary edges makes every boundary flux 0.
  const LoadedMesh& m = project_mesh("cavity.msh");
  FlowSetup s(m, false);
  auto stream = uniform_values(m.topology.num_edges, 51);
  for (std::int32_t f : m.topology.boundary_faces)
    for (std::int32_t e : m.topology.face_edges[size_t(f)]) stream[size_t(e)] = 0.0;
  std::vector<double> U, ux, uy, uz, nx, ny, nz, TN;
  s.cpu_mesh.curl(stream, U);
  s.cpu_mesh.interpolate(U, ux, uy, uz);
  const std::vector<double> zero(size_t(s.data.num_boundary_faces), 0.0);
  s.cpu.cell_terms(Convection::central, 0.0, 0.0, U, ux, uy, uz, zero, zero, zero, nx, ny, nz);
  s.cpu_mesh.integrate(nx, ny, nz, TN);
  double scale = 0;
  for (size_t f = 0; f < U.size(); ++f) scale += std::fabs(U[f] * TN[f]);
  EXPECT_LT(std::fabs(dot_product(U, TN)), 1e-12 * scale);
  // Upwinding dissipates: the same work is negative (cell terms hold −N).
  s.cpu.cell_terms(Convection::upwind, 0.0, 0.0, U, ux, uy, uz, zero, zero, zero, nx, ny, nz);
  s.cpu_mesh.integrate(nx, ny, nz, TN);
  EXPECT_LT(dot_product(U, TN), 0.0);
}

}  // namespace
}  // namespace ss::test
