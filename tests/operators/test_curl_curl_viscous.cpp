// The curl–curl viscous operator (operators/curl_curl_viscous.hpp):
//  - identities in double: K is symmetric and negative semi-definite; the viscous force of a
//    uniform flow with its own tangential boundary source is zero (B U + g = 0 exactly: the
//    discrete Stokes formula holds for constants, whatever the polynomial); the polynomial inverts
//    M_e to its tolerance; ω = 0 on the edges of slip faces.
//  - GPU vs CPU (*IsEquivalentToRef): K, the explicit force and ω on the project meshes, both
//    packings and launch paths.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <tuple>

#include <glm/geometric.hpp>

#include "support/gl_fixture.hpp"
#include "support/test_data.hpp"
#include "mesh/load_mesh.hpp"
#include "support/project_mesh.hpp"
#include "mesh/mesh_test_util.hpp"
#include "operators/curl_curl_viscous.hpp"
#include "operators/momentum_vorticity_system.hpp"

namespace ss::test {
namespace {

std::vector<FlowBoundaryKind> all_velocity(const LoadedMesh& m) {
  return std::vector<FlowBoundaryKind>(m.topology.boundary_faces.size(), FlowBoundaryKind::velocity);
}

// Slip on every fifth boundary face, outlets on the mesh's first group, velocity elsewhere.
std::vector<FlowBoundaryKind> mixed_kinds(const LoadedMesh& m) {
  std::vector<FlowBoundaryKind> kinds;
  const std::int32_t first = m.mesh.surface_group_names.begin()->first;
  for (size_t k = 0; k < m.topology.boundary_faces.size(); ++k) {
    const std::int32_t g = m.topology.face_groups[size_t(m.topology.boundary_faces[k])];
    kinds.push_back(g == first ? FlowBoundaryKind::pressure
                    : k % 5 == 0 ? FlowBoundaryKind::slip
                                 : FlowBoundaryKind::velocity);
  }
  return kinds;
}

void expect_same_matrix(const SparseMatrix& got, const SparseMatrix& want, const std::string& what) {
  SCOPED_TRACE(what);
  EXPECT_EQ(got.rows, want.rows);
  EXPECT_EQ(got.cols, want.cols);
  EXPECT_EQ(got.offsets, want.offsets);
  EXPECT_EQ(got.columns, want.columns);
  EXPECT_EQ(got.values, want.values);  // bit for bit
}

// The factors assembled row by row (the cells around each face and edge, in parallel) equal
// element-by-element assembly in cell order through from_triplets, bit for bit: on the project
// meshes, a refined one with a curved surface declared, and for 1 and 2 threads. F = −Bᵀ exactly.
TEST(CurlCurlViscousCpu, RowAssembledFactorsEqualElementByElementAssembly) {
  for (const auto& [file, refine] : {std::pair<const char*, int>{"duct.msh", 0}, {"cavity.msh", 1},
                                     {"cylinder_hole.msh", 1}, {"dfg_cylinder.msh", 0}}) {
    const LoadedMesh& m = project_mesh(file, refine);
    const Topology& t = m.topology;
    std::vector<Triplet> face_mass, edge_mass, incidence;
    for (std::int32_t c = 0; c < t.num_cells; ++c) {
      for (int i = 0; i < 4; ++i) {
        double row[4];
        rt0_face_mass_row(m, c, i, row);
        for (int j = 0; j < 4; ++j) face_mass.push_back({t.cell_faces[size_t(c)][size_t(i)], t.cell_faces[size_t(c)][size_t(j)], row[j]});
      }
      for (int a = 0; a < 6; ++a) {
        double row[6];
        n0_edge_mass_row(m, c, a, row);
        for (int b = 0; b < 6; ++b) edge_mass.push_back({t.cell_edges[size_t(c)][size_t(a)], t.cell_edges[size_t(c)][size_t(b)], row[b]});
      }
    }
    for (std::int32_t f = 0; f < t.num_faces; ++f)
      for (int k = 0; k < 3; ++k) incidence.push_back({f, t.face_edges[size_t(f)][size_t(k)], double(t.face_edge_signs[size_t(f)][size_t(k)])});
    const SparseMatrix mf = from_triplets(t.num_faces, t.num_faces, face_mass);
    const SparseMatrix me = from_triplets(t.num_edges, t.num_edges, edge_mass);
    const SparseMatrix curl = from_triplets(t.num_faces, t.num_edges, incidence);
    const SparseMatrix b = multiply(transpose(curl), mf);
    for (const int threads : {1, 2}) {
      const std::string what = std::string(file) + " refined " + std::to_string(refine) + ", threads " + std::to_string(threads);
      test::with_threads(threads, [&] {
        expect_same_matrix(rt0_face_mass(m), mf, what + ": M_f");
        expect_same_matrix(n0_edge_mass(m), me, what + ": M_e");
        expect_same_matrix(curl_incidence(t), curl, what + ": C");
        expect_same_matrix(curl_incidence_transpose(t), transpose(curl), what + ": C^T");
        const CurlCurlViscousData data = build_curl_curl_viscous(m, mixed_kinds(m));
        expect_same_matrix(data.edge_mass, me, what + ": the operator's M_e");
        expect_same_matrix(data.vorticity_source, b, what + ": B");
        SparseMatrix minus_bt = transpose(b);
        for (double& v : minus_bt.values) v = -v;
        expect_same_matrix(data.viscous_force, minus_bt, what + ": F");
        // The vorticity momentum system (held edges: slip faces' identity rows, no B rows).
        const std::vector<double> face_mass(size_t(t.num_faces), 0.5), free_mask = uniform_values(t.num_faces, 3);
        const MomentumVorticitySystem system = build_momentum_vorticity_system(data, face_mass, free_mask);
        std::vector<Triplet> mass, source, scaled;
        for (std::int32_t e = 0; e < t.num_edges; ++e) {
          const auto held = [&](std::int32_t k) { return data.edge_inverse_diagonal[size_t(k)] == 0.0; };
          if (held(e)) {
            mass.push_back({e, e, 1.0});
            continue;
          }
          for (std::int32_t k = me.offsets[size_t(e)]; k < me.offsets[size_t(e) + 1]; ++k)
            if (!held(me.columns[size_t(k)])) mass.push_back({e, me.columns[size_t(k)], me.values[size_t(k)]});
          for (std::int32_t k = b.offsets[size_t(e)]; k < b.offsets[size_t(e) + 1]; ++k) {
            source.push_back({e, b.columns[size_t(k)], b.values[size_t(k)]});
            scaled.push_back({b.columns[size_t(k)], e, b.values[size_t(k)] * (free_mask[size_t(b.columns[size_t(k)])] / 0.5)});
          }
        }
        expect_same_matrix(system.edge_mass, from_triplets(t.num_edges, t.num_edges, mass), what + ": system M_e");
        expect_same_matrix(system.source, from_triplets(t.num_edges, t.num_faces, source), what + ": system B");
        expect_same_matrix(system.scaled_transpose, from_triplets(t.num_faces, t.num_edges, scaled), what + ": system B^T D");
        return 0;
      });
    }
  }
}

TEST(CurlCurlViscousCpu, OperatorIsSymmetricNegativeSemiDefinite) {
  for (const char* file : {"duct.msh", "cavity.msh"}) {
    const LoadedMesh& m = project_mesh(file);
    const CurlCurlViscousData data = build_curl_curl_viscous(m, mixed_kinds(m));
    CpuBackend cpu;
    CurlCurlViscous<CpuBackend> k(cpu, data);
    const auto x = uniform_values(m.topology.num_faces, 1), y = uniform_values(m.topology.num_faces, 2);
    std::vector<double> kx(x.size()), ky(y.size());
    k.apply(x, kx);
    k.apply(y, ky);
    EXPECT_NEAR(dot_product(kx, y), dot_product(x, ky), 1e-11 * std::fabs(dot_product(kx, y))) << file;
    EXPECT_LT(dot_product(kx, x), 0.0) << file;
    EXPECT_GE(data.degree, 5) << file;
    EXPECT_LE(data.degree, 30) << file;
    for (double d : data.diagonal) ASSERT_LT(d, 0.0) << file;
  }
}

// u = constant: B U + g = 0 exactly, so the force vanishes (to round-off, whatever the polynomial).
TEST(CurlCurlViscousCpu, UniformFlowFeelsNoViscousForce) {
  for (const char* file : {"duct.msh", "cavity.msh", "cube.msh"}) {
    const LoadedMesh& m = project_mesh(file);
    const auto kinds = all_velocity(m);
    const CurlCurlViscousData data = build_curl_curl_viscous(m, kinds);
    const glm::dvec3 u(0.3, -1.1, 0.7);
    std::vector<double> U(size_t(m.topology.num_faces));
    for (size_t f = 0; f < U.size(); ++f) U[f] = m.geometry.face_areas[f] * glm::dot(u, m.geometry.face_normals[f]);
    const size_t nb = kinds.size();
    const std::vector<double> g = tangential_boundary_source(data, m, kinds, std::vector<double>(nb, u.x),
                                                             std::vector<double>(nb, u.y), std::vector<double>(nb, u.z));
    std::vector<double> bu;
    data.vorticity_source.multiply(U, bu);
    double residual = 0;
    for (size_t e = 0; e < bu.size(); ++e) residual = std::max(residual, std::fabs(bu[e] + g[e]));
    EXPECT_LE(residual, 1e-12 * max_abs(bu)) << file;
    CpuBackend cpu;
    CurlCurlViscous<CpuBackend> k(cpu, data);
    std::vector<double> force(U.size()), kU(U.size());
    k.force(1.0, U, 1.0, g, force);
    k.apply(U, kU);
    EXPECT_LE(max_abs(force), 1e-11 * max_abs(kU)) << file;
  }
}

// The Chebyshev polynomial inverts M_e to its tolerance on a random right-hand side.
TEST(CurlCurlViscousCpu, PolynomialInvertsTheEdgeMassToItsTolerance) {
  const LoadedMesh& m = project_mesh("cavity.msh");
  const CurlCurlViscousData data = build_curl_curl_viscous(m, all_velocity(m), 1e-6);
  CpuBackend cpu;
  CurlCurlViscous<CpuBackend> k(cpu, data);
  const auto r = uniform_values(data.edge_mass.rows, 3);
  std::vector<double> omega(r.size()), back;
  k.vorticity(r, omega);
  data.edge_mass.multiply(omega, back);
  double err = 0, norm = 0;
  for (size_t e = 0; e < r.size(); ++e) err += (back[e] - r[e]) * (back[e] - r[e]), norm += r[e] * r[e];
  EXPECT_LE(std::sqrt(err / norm), 1e-4);  // residual bound: κ(D⁻¹M_e) × the error bound
}

// The Chebyshev interval follows the edges, not their numbering: the edge mass with its edges
// renumbered (as a rank's piece numbers them), each keeping its start value (lanczos_edge_start,
// LanczosSpace::start), gives the serial Ritz values. What makes every MPI rank count run the serial
// polynomial (tests/distributed/check_flow_mpi.py checks the flow itself).
TEST(CurlCurlViscousCpu, LanczosIntervalFollowsTheEdgesNotTheirNumbering) {
  const LoadedMesh& m = project_mesh("cavity.msh");
  const CurlCurlViscousData data = build_curl_curl_viscous(m, mixed_kinds(m));
  const SparseMatrix& a = data.edge_mass;
  const std::int32_t n = a.rows;
  std::vector<std::int32_t> position(static_cast<size_t>(n));  // new index of edge e: reversed, odd ones first
  std::vector<std::int64_t> original;
  for (std::int32_t e = n - 1; e >= 0; --e)
    if (e % 2) original.push_back(e);
  for (std::int32_t e = n - 1; e >= 0; --e)
    if (e % 2 == 0) original.push_back(e);
  for (std::int32_t i = 0; i < n; ++i) position[size_t(original[size_t(i)])] = i;
  std::vector<Triplet> entries;
  for (std::int32_t r = 0; r < n; ++r)
    for (std::int32_t k = a.offsets[size_t(r)]; k < a.offsets[size_t(r) + 1]; ++k)
      entries.push_back({position[size_t(r)], position[size_t(a.columns[size_t(k)])], a.values[size_t(k)]});
  const SparseMatrix permuted = from_triplets(n, n, std::move(entries));
  std::vector<double> inverse_diagonal(static_cast<size_t>(n));
  for (std::int32_t e = 0; e < n; ++e) inverse_diagonal[size_t(position[size_t(e)])] = data.edge_inverse_diagonal[size_t(e)];
  const auto apply = [](const SparseMatrix& s) {
    return [&s](const std::vector<double>& x, std::vector<double>& y) { s.multiply(x, y); };
  };
  LanczosSpace by_position;
  by_position.start = lanczos_edge_start(m);
  const EigenRange serial = estimate_eigen_range(apply(a), data.edge_inverse_diagonal, 40, by_position);
  LanczosSpace renumbered;
  for (std::int64_t e : original) renumbered.start.push_back(by_position.start[size_t(e)]);
  const EigenRange piece = estimate_eigen_range(apply(permuted), inverse_diagonal, 40, renumbered);
  EXPECT_NEAR(piece.lo, serial.lo, 1e-9 * serial.lo);
  EXPECT_NEAR(piece.hi, serial.hi, 1e-9 * serial.hi);
  // Started by the new index instead, the start vector differs, and so do the Ritz values (the check has teeth).
  const EigenRange by_index = estimate_eigen_range(apply(permuted), inverse_diagonal, 40, LanczosSpace{});
  EXPECT_GT(std::fabs(by_index.lo - serial.lo), 1e-6 * serial.lo);
  // The solver's interval is this one, widened (build_curl_curl_viscous).
  EXPECT_DOUBLE_EQ(data.range.lo, 0.8 * serial.lo);
  EXPECT_DOUBLE_EQ(data.range.hi, 1.05 * serial.hi);
}

TEST(CurlCurlViscousCpu, SlipFacesHoldZeroVorticityOnTheirEdges) {
  const LoadedMesh& m = project_mesh("duct.msh");
  const auto kinds = mixed_kinds(m);
  const CurlCurlViscousData data = build_curl_curl_viscous(m, kinds);
  CpuBackend cpu;
  CurlCurlViscous<CpuBackend> k(cpu, data);
  std::vector<double> omega(size_t(data.edge_mass.rows));
  k.vorticity(uniform_values(data.edge_mass.rows, 4), omega);
  int held = 0;
  for (size_t b = 0; b < kinds.size(); ++b) {
    if (kinds[b] != FlowBoundaryKind::slip) continue;
    for (std::int32_t e : m.topology.face_edges[size_t(m.topology.boundary_faces[b])]) {
      EXPECT_EQ(omega[size_t(e)], 0.0) << "edge " << e;
      ++held;
    }
  }
  EXPECT_GT(held, 0);
}

class CurlCurlViscousGpu : public GlTest,
                           public ::testing::WithParamInterface<std::tuple<const char*, Packing, LaunchPath>> {};

TEST_P(CurlCurlViscousGpu, OperatorForceAndVorticityAreEquivalentToRef) {
  const auto [file, packing, launch] = GetParam();
  const LoadedMesh& m = project_mesh(file);
  const CurlCurlViscousData data = build_curl_curl_viscous(m, mixed_kinds(m));
  LayoutOptions layout;
  layout.packing = packing;
  GpuOptions options;
  options.launch = launch;
  GpuBackend gpu = make_gpu(layout, options);
  CpuBackend cpu;
  CurlCurlViscous<CpuBackend> ref(cpu, data);
  CurlCurlViscous<GpuBackend> dev(gpu, data);
  const std::int64_t nf = m.topology.num_faces, ne = data.edge_mass.rows;
  const auto U = uniform_values(nf, 5), g = uniform_values(ne, 6);
  std::vector<double> c_out(static_cast<size_t>(nf)), c_omega(static_cast<size_t>(ne));
  Field g_out = gpu.make_vector(nf), g_omega = gpu.make_vector(ne);
  const Field gU = gpu.upload(U), gg = gpu.upload(g);
  ref.apply(U, c_out);
  dev.apply(gU, g_out);
  EXPECT_LE(max_rel_diff(gpu.download(g_out), c_out), 1e-4) << "K";
  ref.force(0.4, U, 0.6, g, c_out);
  dev.force(0.4, gU, 0.6, gg, g_out);
  EXPECT_LE(max_rel_diff(gpu.download(g_out), c_out), 1e-4) << "force";
  ref.vorticity(g, c_omega);
  dev.vorticity(gg, g_omega);
  EXPECT_LE(max_rel_diff(gpu.download(g_omega), c_omega), 1e-5) << "vorticity";
}

INSTANTIATE_TEST_SUITE_P(ProjectMeshes, CurlCurlViscousGpu,
                         ::testing::Combine(::testing::Values("cube.msh", "duct.msh", "cavity.msh"),
                                            ::testing::Values(Packing::r32f, Packing::rgba32f),
                                            ::testing::Values(LaunchPath::fragment, LaunchPath::compute)));

}  // namespace
}  // namespace ss::test
