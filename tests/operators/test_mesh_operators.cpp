// Staggered-mesh operators (operators/mesh_operators.hpp) on every mesh in meshes/ and on a refined
// mesh with more than 100k tets:
//  - GPU vs CPU (*IsEquivalentToRef), both packings: max |gpu - cpu| / max |cpu| <= 1e-5 per
//    operator, i.e. relative to the largest magnitude of the operator's output. Inputs are float-
//    exact, so the difference is the GPU's float arithmetic and float coefficients (~1e-7 relative
//    per term, a handful of terms per output).
//  - identities on the CPU in double: DC = 0, D = -G^T, R = C^T, a constant has zero gradient,
//    interpolation is exact for constant vectors, integration of a constant vector is its line
//    integral along the dual edge, integration is the volume-weighted adjoint of interpolation.
//  - identities on the GPU in float: DC = 0 to rounding, constants.
// The refined mesh runs once per packing (all operators in one test) to keep llvmpipe CI short.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <tuple>

#include <glm/geometric.hpp>

#include "support/gl_fixture.hpp"
#include "mesh/load_mesh.hpp"
#include "operators/mesh_operators.hpp"
#include "support/test_data.hpp"

namespace ss::test {
namespace {

struct MeshCase {
  const char* name;
  const char* file;
  int refine;
};

const MeshCase kProjectMeshes[] = {
    {"cube", "cube.msh", 0}, {"duct", "duct.msh", 0}, {"cavity", "cavity.msh", 0}, {"crank", "crank.msh", 0}};
// duct.msh refined twice: 3395 * 64 = 217,280 tets, ~440k faces, ~260k edges.
const MeshCase kLargeMesh = {"duct_refined2", "duct.msh", 2};

const LoadedMesh& mesh_for(const MeshCase& c) {
  static std::map<std::string, std::unique_ptr<LoadedMesh>> cache;
  auto& slot = cache[c.name];
  if (!slot) slot = std::make_unique<LoadedMesh>(load_mesh(std::string(SS_SOURCE_DIR) + "/meshes/" + c.file, c.refine));
  return *slot;
}

// Uniform in [-1, 1], rounded to float so GPU and CPU start from the same values.
std::vector<double> random_values(std::int64_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<double> v(static_cast<size_t>(n));
  for (auto& x : v) x = double(float(u(rng)));
  return v;
}

double dot(const std::vector<double>& a, const std::vector<double>& b) {
  double s = 0.0;
  for (size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
  return s;
}
double norm(const std::vector<double>& a) { return std::sqrt(dot(a, a)); }

constexpr double kGpuTolerance = 1e-5;       // GPU vs CPU, relative to the output's max magnitude
constexpr double kIdentityTolerance = 1e-12;  // double identities, relative to the terms' size

// Runs every operator on the GPU and the CPU with the same inputs; returns max relative
// differences by operator name.
std::map<std::string, double> gpu_vs_cpu(GpuBackend& gpu, const LoadedMesh& mesh, const std::string& only = "") {
  CpuMeshOperators cpu_ops(mesh);
  GpuMeshOperators gpu_ops(gpu, mesh);
  const auto cells = random_values(cpu_ops.num_cells(), 11);
  const auto faces = random_values(cpu_ops.num_faces(), 12);
  const auto edges = random_values(cpu_ops.num_edges(), 13);
  const auto boundary = random_values(cpu_ops.num_boundary_faces(), 14);
  const auto cells_y = random_values(cpu_ops.num_cells(), 15);
  const auto cells_z = random_values(cpu_ops.num_cells(), 16);
  auto g_cells = gpu.upload(cells), g_faces = gpu.upload(faces), g_edges = gpu.upload(edges);
  auto g_boundary = gpu.upload(boundary), g_cells_y = gpu.upload(cells_y), g_cells_z = gpu.upload(cells_z);
  std::map<std::string, double> result;
  auto want = [&](const char* name) { return only.empty() || only == name; };
  std::vector<double> c_out, c_y, c_z;
  Field g_out, g_y, g_z;
  if (want("gradient")) {
    cpu_ops.gradient(cells, c_out);
    gpu_ops.gradient(g_cells, g_out);
    result["gradient"] = max_rel_diff(gpu.download(g_out), c_out);
    cpu_ops.gradient(cells, boundary, c_out);
    gpu_ops.gradient(g_cells, g_boundary, g_out);
    result["gradient_boundary_values"] = max_rel_diff(gpu.download(g_out), c_out);
  }
  if (want("divergence")) {
    cpu_ops.divergence(faces, c_out);
    gpu_ops.divergence(g_faces, g_out);
    result["divergence"] = max_rel_diff(gpu.download(g_out), c_out);
  }
  if (want("curl")) {
    cpu_ops.curl(edges, c_out);
    gpu_ops.curl(g_edges, g_out);
    result["curl"] = max_rel_diff(gpu.download(g_out), c_out);
  }
  if (want("rotation")) {
    cpu_ops.rotation(faces, c_out);
    gpu_ops.rotation(g_faces, g_out);
    result["rotation"] = max_rel_diff(gpu.download(g_out), c_out);
  }
  if (want("interpolation")) {
    cpu_ops.interpolate(faces, c_out, c_y, c_z);
    gpu_ops.interpolate(g_faces, g_out, g_y, g_z);
    result["interpolation_x"] = max_rel_diff(gpu.download(g_out), c_out);
    result["interpolation_y"] = max_rel_diff(gpu.download(g_y), c_y);
    result["interpolation_z"] = max_rel_diff(gpu.download(g_z), c_z);
  }
  if (want("integration")) {
    cpu_ops.integrate(cells, cells_y, cells_z, c_out);
    gpu_ops.integrate(g_cells, g_cells_y, g_cells_z, g_out);
    result["integration"] = max_rel_diff(gpu.download(g_out), c_out);
  }
  return result;
}

void expect_within_gpu_tolerance(const std::map<std::string, double>& diffs) {
  EXPECT_FALSE(diffs.empty());
  for (const auto& [name, diff] : diffs) {
    EXPECT_LE(diff, kGpuTolerance) << name;
    char text[32];
    std::snprintf(text, sizeof text, "%.3e", diff);
    ::testing::Test::RecordProperty(name, text);
  }
}

// ---- GPU vs CPU on the project meshes, both packings ----

class MeshOperatorsGpu : public GlTest,
                         public ::testing::WithParamInterface<std::tuple<MeshCase, Packing, LaunchPath>> {
protected:
  GpuBackend backend() {
    LayoutOptions options;
    options.packing = std::get<1>(GetParam());
    GpuOptions gpu_options;
    gpu_options.launch = std::get<2>(GetParam());
    return make_gpu(options, gpu_options);
  }
  const LoadedMesh& mesh() { return mesh_for(std::get<0>(GetParam())); }
};

TEST_P(MeshOperatorsGpu, GradientIsEquivalentToRef) {
  GpuBackend gpu = backend();
  expect_within_gpu_tolerance(gpu_vs_cpu(gpu, mesh(), "gradient"));
}
TEST_P(MeshOperatorsGpu, DivergenceIsEquivalentToRef) {
  GpuBackend gpu = backend();
  expect_within_gpu_tolerance(gpu_vs_cpu(gpu, mesh(), "divergence"));
}
TEST_P(MeshOperatorsGpu, CurlIsEquivalentToRef) {
  GpuBackend gpu = backend();
  expect_within_gpu_tolerance(gpu_vs_cpu(gpu, mesh(), "curl"));
}
TEST_P(MeshOperatorsGpu, RotationIsEquivalentToRef) {
  GpuBackend gpu = backend();
  expect_within_gpu_tolerance(gpu_vs_cpu(gpu, mesh(), "rotation"));
}
TEST_P(MeshOperatorsGpu, InterpolationIsEquivalentToRef) {
  GpuBackend gpu = backend();
  expect_within_gpu_tolerance(gpu_vs_cpu(gpu, mesh(), "interpolation"));
}
TEST_P(MeshOperatorsGpu, IntegrationIsEquivalentToRef) {
  GpuBackend gpu = backend();
  expect_within_gpu_tolerance(gpu_vs_cpu(gpu, mesh(), "integration"));
}

// DC = 0 in float: (Cs)_f carries at most 2u·Σ|s_e| <= 6u·max|s| rounding (u = 2^-24), D adds four
// of them (24u) plus its own three roundings of terms up to 3·max|s| (36u): |DCs| <= 60u·max|s|.
TEST_P(MeshOperatorsGpu, DivergenceOfCurlIsZero) {
  GpuBackend gpu = backend();
  GpuMeshOperators ops(gpu, mesh());
  const auto s = random_values(ops.num_edges(), 21);
  Field cs, dcs;
  auto gs = gpu.upload(s);
  ops.curl(gs, cs);
  ops.divergence(cs, dcs);
  const double curl_max = max_abs(gpu.download(cs));
  ASSERT_GT(curl_max, 0.5);
  EXPECT_LE(max_abs(gpu.download(dcs)), 64.0 * float_unit_roundoff * max_abs(s));
}

// A constant with the same constant as boundary values: every difference is c - c = 0 exactly;
// with zero boundary values the boundary faces give -c.
TEST_P(MeshOperatorsGpu, ConstantFieldHasZeroGradient) {
  GpuBackend gpu = backend();
  GpuMeshOperators ops(gpu, mesh());
  const double c = 2.625;
  auto phi = gpu.upload(std::vector<double>(size_t(ops.num_cells()), c));
  auto boundary = gpu.upload(std::vector<double>(size_t(ops.num_boundary_faces()), c));
  Field g;
  ops.gradient(phi, boundary, g);
  EXPECT_EQ(max_abs(gpu.download(g)), 0.0);
  ops.gradient(phi, g);
  const auto values = gpu.download(g);
  std::vector<bool> on_boundary(values.size(), false);
  for (std::int32_t f : ops.boundary_faces()) on_boundary[size_t(f)] = true;
  for (size_t f = 0; f < values.size(); ++f) ASSERT_EQ(values[f], on_boundary[f] ? -c : 0.0) << "face " << f;
}

// Fluxes U_f = (u·n_f) A_f of a constant u interpolate back to u (float: within 1e-5 of |u|).
TEST_P(MeshOperatorsGpu, InterpolationOfConstantVectorIsExact) {
  GpuBackend gpu = backend();
  const LoadedMesh& m = mesh();
  GpuMeshOperators ops(gpu, m);
  const glm::dvec3 u(0.75, -1.5, 2.25);
  std::vector<double> flux(size_t(ops.num_faces()));
  for (size_t f = 0; f < flux.size(); ++f) flux[f] = glm::dot(u, m.geometry.face_normals[f]) * m.geometry.face_areas[f];
  Field vx, vy, vz;
  ops.interpolate(gpu.upload(flux), vx, vy, vz);
  const std::vector<double> got[3] = {gpu.download(vx), gpu.download(vy), gpu.download(vz)};
  for (int d = 0; d < 3; ++d)
    for (size_t c = 0; c < got[d].size(); ++c)
      ASSERT_NEAR(got[d][c], u[d], kGpuTolerance * glm::length(u)) << "component " << d << " of cell " << c;
}

std::string gpu_case_name(const ::testing::TestParamInfo<std::tuple<MeshCase, Packing, LaunchPath>>& info) {
  std::string name = std::string(std::get<0>(info.param).name) + "_" + to_string(std::get<1>(info.param));
  if (std::get<2>(info.param) == LaunchPath::compute) name += "_compute";
  return name;
}

INSTANTIATE_TEST_SUITE_P(ProjectMeshes, MeshOperatorsGpu,
                         ::testing::Combine(::testing::ValuesIn(kProjectMeshes),
                                            ::testing::Values(Packing::r32f, Packing::rgba32f),
                                            ::testing::Values(LaunchPath::fragment)),
                         gpu_case_name);
// The compute launch path (same kernels, image stores) on the irregular crank mesh.
INSTANTIATE_TEST_SUITE_P(ComputeLaunch, MeshOperatorsGpu,
                         ::testing::Combine(::testing::Values(kProjectMeshes[3]),
                                            ::testing::Values(Packing::r32f, Packing::rgba32f),
                                            ::testing::Values(LaunchPath::compute)),
                         gpu_case_name);

// ---- the >= 100k-tet mesh: all operators in one test per packing ----

class MeshOperatorsGpuLarge : public GlTest, public ::testing::WithParamInterface<Packing> {};

TEST_P(MeshOperatorsGpuLarge, AllOperatorsIsEquivalentToRef) {
  LayoutOptions options;
  options.packing = GetParam();
  GpuBackend gpu = make_gpu(options);
  const LoadedMesh& m = mesh_for(kLargeMesh);
  ASSERT_GE(m.topology.num_cells, 100000);
  expect_within_gpu_tolerance(gpu_vs_cpu(gpu, m));
}

// The same on the compute launch path: outputs of ~440k faces span many work groups and a ragged
// last row of them.
TEST_P(MeshOperatorsGpuLarge, AllOperatorsOnComputeLaunchIsEquivalentToRef) {
  LayoutOptions options;
  options.packing = GetParam();
  GpuBackend gpu = make_gpu(options, compute_launch());
  const LoadedMesh& m = mesh_for(kLargeMesh);
  ASSERT_GE(m.topology.num_cells, 100000);
  expect_within_gpu_tolerance(gpu_vs_cpu(gpu, m));
}

INSTANTIATE_TEST_SUITE_P(RefinedDuct, MeshOperatorsGpuLarge, ::testing::Values(Packing::r32f, Packing::rgba32f),
                         [](const ::testing::TestParamInfo<Packing>& info) { return std::string(to_string(info.param)); });

// ---- identities on the CPU reference (double), every mesh including the refined one ----

class MeshOperatorIdentities : public ::testing::TestWithParam<MeshCase> {
protected:
  const LoadedMesh& mesh() { return mesh_for(GetParam()); }
};

TEST_P(MeshOperatorIdentities, DivergenceOfCurlIsZero) {
  CpuMeshOperators ops(mesh());
  const auto s = random_values(ops.num_edges(), 31);
  std::vector<double> cs, dcs;
  ops.curl(s, cs);
  ops.divergence(cs, dcs);
  EXPECT_LE(max_abs(dcs), 1e-14 * max_abs(cs));
}

// <Gx, y> = -<x, Dy> for G with zero boundary values (D = -G^T), x on cells, y on faces.
TEST_P(MeshOperatorIdentities, GradientIsMinusTransposeOfDivergence) {
  CpuMeshOperators ops(mesh());
  const auto x = random_values(ops.num_cells(), 41), y = random_values(ops.num_faces(), 42);
  std::vector<double> gx, dy;
  ops.gradient(x, gx);
  ops.divergence(y, dy);
  EXPECT_NEAR(dot(gx, y), -dot(x, dy), kIdentityTolerance * norm(gx) * norm(y));
}

// <Cx, y> = <x, Ry>, x on edges, y on faces.
TEST_P(MeshOperatorIdentities, RotationIsTransposeOfCurl) {
  CpuMeshOperators ops(mesh());
  const auto x = random_values(ops.num_edges(), 51), y = random_values(ops.num_faces(), 52);
  std::vector<double> cx, ry;
  ops.curl(x, cx);
  ops.rotation(y, ry);
  EXPECT_NEAR(dot(cx, y), dot(x, ry), kIdentityTolerance * norm(cx) * norm(y));
}

TEST_P(MeshOperatorIdentities, ConstantFieldHasZeroGradient) {
  CpuMeshOperators ops(mesh());
  const double c = -3.5;
  std::vector<double> g;
  ops.gradient(std::vector<double>(size_t(ops.num_cells()), c), std::vector<double>(size_t(ops.num_boundary_faces()), c), g);
  EXPECT_EQ(max_abs(g), 0.0);
}

// Eq. 5.1 is exact for constants: (1/V) Σ (u·n_out) A_f (x_f - x_c) = (1/V) ∫_V ∇·(u ⊗ (x - x_c)) = u.
TEST_P(MeshOperatorIdentities, InterpolationOfConstantVectorIsExact) {
  const LoadedMesh& m = mesh();
  CpuMeshOperators ops(m);
  const glm::dvec3 u(0.75, -1.5, 2.25);
  std::vector<double> flux(size_t(ops.num_faces()));
  for (size_t f = 0; f < flux.size(); ++f) flux[f] = glm::dot(u, m.geometry.face_normals[f]) * m.geometry.face_areas[f];
  std::vector<double> v[3];
  ops.interpolate(flux, v[0], v[1], v[2]);
  for (int d = 0; d < 3; ++d)
    for (size_t c = 0; c < v[d].size(); ++c)
      ASSERT_NEAR(v[d][c], u[d], kIdentityTolerance * glm::length(u)) << "component " << d << " of cell " << c;
}

// Eq. 5.2 integrates v along the dual edge c0 -> f -> c1, so a constant v gives v·(x_c1 - x_c0)
// (boundary: v·(x_f - x_c0)); and integrating the interpolated constant (integration ∘
// interpolation of constant-field fluxes) gives the same dual-edge integrals.
TEST_P(MeshOperatorIdentities, IntegrationOfConstantVectorIsTheDualEdgeIntegral) {
  const LoadedMesh& m = mesh();
  CpuMeshOperators ops(m);
  const glm::dvec3 u(-1.25, 0.5, 1.75);
  const size_t nc = size_t(ops.num_cells());
  std::vector<double> v[3];
  for (int d = 0; d < 3; ++d) v[d].assign(nc, u[d]);
  std::vector<double> direct;
  ops.integrate(v[0], v[1], v[2], direct);

  std::vector<double> flux(size_t(ops.num_faces()));
  for (size_t f = 0; f < flux.size(); ++f) flux[f] = glm::dot(u, m.geometry.face_normals[f]) * m.geometry.face_areas[f];
  std::vector<double> w[3], round_trip;
  ops.interpolate(flux, w[0], w[1], w[2]);
  ops.integrate(w[0], w[1], w[2], round_trip);

  for (size_t f = 0; f < direct.size(); ++f) {
    const auto& cells = m.topology.face_cells[f];
    const glm::dvec3 from = m.geometry.cell_centroids[size_t(cells[0])];
    const glm::dvec3 to = cells[1] >= 0 ? m.geometry.cell_centroids[size_t(cells[1])] : m.geometry.face_centroids[f];
    const double expected = glm::dot(u, to - from);
    const double scale = glm::length(u) * glm::length(to - from);
    ASSERT_NEAR(direct[f], expected, kIdentityTolerance * scale) << "face " << f;
    ASSERT_NEAR(round_trip[f], expected, kIdentityTolerance * scale) << "face " << f << " (integration of interpolation)";
  }
}

// Integration is the adjoint of interpolation in the volume-weighted cell inner product:
// Σ_c V_c v_c·(I U)_c = Σ_f U_f (T v)_f for any face fluxes U and cell vectors v.
TEST_P(MeshOperatorIdentities, IntegrationIsVolumeWeightedAdjointOfInterpolation) {
  CpuMeshOperators ops(mesh());
  const auto flux = random_values(ops.num_faces(), 61);
  std::vector<double> v[3] = {random_values(ops.num_cells(), 62), random_values(ops.num_cells(), 63),
                              random_values(ops.num_cells(), 64)};
  std::vector<double> iu[3], tv;
  ops.interpolate(flux, iu[0], iu[1], iu[2]);
  ops.integrate(v[0], v[1], v[2], tv);
  double lhs = 0.0, lhs_size = 0.0;
  const auto& volume = ops.cell_volumes();
  for (size_t c = 0; c < volume.size(); ++c)
    for (int d = 0; d < 3; ++d) {
      lhs += volume[c] * v[d][c] * iu[d][c];
      lhs_size += std::fabs(volume[c] * v[d][c] * iu[d][c]);
    }
  EXPECT_NEAR(lhs, dot(flux, tv), kIdentityTolerance * lhs_size);
}

// The edge -> face lists are the transpose of the face -> edge tables (the rotation's CSR).
TEST_P(MeshOperatorIdentities, EdgeFaceListsMatchTopology) {
  const LoadedMesh& m = mesh();
  CpuMeshOperators ops(m);
  const auto& t = ops.tables();
  ASSERT_EQ(std::int64_t(t.edge_face_list.size()), 3 * ops.num_faces());
  for (std::int32_t e = 0; e < m.topology.num_edges; ++e) {
    ASSERT_EQ(t.edge_face_start[size_t(e)], m.topology.edge_face_offsets[size_t(e)]);
    for (std::int32_t k = t.edge_face_start[size_t(e)]; k < t.edge_face_start[size_t(e)] + t.edge_face_count[size_t(e)]; ++k)
      ASSERT_EQ(decode_index(t.edge_face_list[size_t(k)]), m.topology.edge_faces[size_t(k)]) << "edge " << e;
  }
}

const MeshCase kAllMeshes[] = {kProjectMeshes[0], kProjectMeshes[1], kProjectMeshes[2], kProjectMeshes[3], kLargeMesh};

INSTANTIATE_TEST_SUITE_P(AllMeshes, MeshOperatorIdentities, ::testing::ValuesIn(kAllMeshes),
                         [](const ::testing::TestParamInfo<MeshCase>& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace ss::test
