// The node-based heat operator (src/operators/heat_operator.hpp) on every mesh in meshes/ and on a
// duct refined twice (217k tets; the smallest of meshes/ refined to >= 100k tets):
//  - CPU, double: K equals an independently assembled P1 stiffness matrix (Jacobian inverse per tet,
//    a different code path from the median-dual assembly) to 1e-12 relative; K symmetric; K·1 = 0;
//    K·x = 0 at interior nodes for linear x; exact cell gradient of a linear field, zero of a
//    constant; the Dirichlet-eliminated system and right-hand side equal their definitions;
//    the node→cells gather equals the neighbour gather.
//  - GPU (float) vs CPU (double), R32F and RGBA32F: max |gpu - cpu| / max |cpu| <= 1e-5 for every
//    operation. Inputs are float-exact, so the difference is the GPU's float rounding of the
//    coefficients (~6e-8 relative) and of sums of ~15-25 terms; 1e-5 leaves two orders of margin
//    for the random inputs used (their K·T is not a small difference of large terms).
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
#include <glm/mat3x3.hpp>
#include <glm/matrix.hpp>

#include "cpu/cpu_backend.hpp"
#include "support/gl_fixture.hpp"
#include "support/test_data.hpp"
#include "mesh/load_mesh.hpp"
#include "operators/heat_operator.hpp"
#include "util/error.hpp"

namespace ss::test {
namespace {

struct MeshCase {
  const char* name;
  const char* file;
  int refine;
};

const MeshCase kMeshes[] = {
    {"cube", "cube.msh", 0},  {"duct", "duct.msh", 0},   {"cavity", "cavity.msh", 0},
    {"crank", "crank.msh", 0}, {"duct_r2", "duct.msh", 2},
};

const LoadedMesh& mesh_for(const MeshCase& m) {
  static std::map<std::string, std::unique_ptr<LoadedMesh>> cache;
  auto& slot = cache[m.name];
  if (!slot) {
    slot = std::make_unique<LoadedMesh>(load_mesh(std::string(SS_SOURCE_DIR) + "/meshes/" + m.file, m.refine));
    if (m.refine > 0) {
      EXPECT_GE(slot->topology.num_cells, 100000) << m.name << " must have >= 100k tets";
    }
  }
  return *slot;
}

// Per-cell conductivity varying over two orders of magnitude (exactly representable in float).
std::vector<double> conductivity_for(const LoadedMesh& mesh) {
  std::vector<double> k(size_t(mesh.topology.num_cells));
  for (size_t c = 0; c < k.size(); ++c) k[c] = 0.125 * double(1 + (c * 7919) % 97);
  return k;
}

// The P1 stiffness matrix assembled the textbook way: ∇λ from the inverse of the Jacobian
// J = [p1 - p0, p2 - p0, p3 - p0] (rows of J⁻¹ are ∇λ_1..3, ∇λ_0 = -Σ), K_ij += k V ∇λ_i·∇λ_j,
// V = det J / 6. Rows as ordered maps, diagonal included.
std::vector<std::map<std::int32_t, double>> reference_stiffness(const LoadedMesh& mesh, const std::vector<double>& k) {
  std::vector<std::map<std::int32_t, double>> rows(size_t(mesh.topology.num_nodes));
  const auto& nodes = mesh.mesh.nodes;
  for (size_t c = 0; c < mesh.mesh.tets.size(); ++c) {
    const Tet& t = mesh.mesh.tets[c];
    const glm::dvec3 p0 = nodes[size_t(t[0])];
    const glm::dmat3 J(nodes[size_t(t[1])] - p0, nodes[size_t(t[2])] - p0, nodes[size_t(t[3])] - p0);  // columns
    const glm::dmat3 Jinv = glm::inverse(J);
    const double volume = glm::determinant(J) / 6.0;
    glm::dvec3 grad[4];
    for (int m = 1; m < 4; ++m) grad[m] = glm::dvec3(Jinv[0][m - 1], Jinv[1][m - 1], Jinv[2][m - 1]);  // row m-1
    grad[0] = -(grad[1] + grad[2] + grad[3]);
    for (int a = 0; a < 4; ++a)
      for (int b = 0; b < 4; ++b) rows[size_t(t[size_t(a)])][t[size_t(b)]] += k[c] * volume * glm::dot(grad[a], grad[b]);
  }
  return rows;
}

std::vector<double> matvec(const std::vector<std::map<std::int32_t, double>>& rows, const std::vector<double>& x) {
  std::vector<double> y(rows.size(), 0.0);
  for (size_t i = 0; i < rows.size(); ++i)
    for (const auto& [j, v] : rows[i]) y[i] += v * x[size_t(j)];
  return y;
}

std::vector<double> random_values(size_t n, std::uint64_t seed, double lo = -1, double hi = 1) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(lo, hi);
  std::vector<double> v(n);
  for (auto& x : v) x = u(rng);
  return v;
}

std::vector<char> interior_nodes(const LoadedMesh& mesh) {
  std::vector<char> interior(size_t(mesh.topology.num_nodes), 1);
  for (std::int32_t f : mesh.topology.boundary_faces)
    for (std::int32_t n : mesh.topology.face_nodes[size_t(f)]) interior[size_t(n)] = 0;
  return interior;
}

// Dirichlet nodes for the tests: the boundary nodes of the first surface group (every mesh's
// group 1 is a boundary patch: left, inlet, lid, journal_left).
std::vector<std::int32_t> test_dirichlet_nodes(const LoadedMesh& mesh) {
  auto nodes = boundary_group_nodes(mesh, {1});
  EXPECT_FALSE(nodes.empty());
  return nodes;
}

// ---------------------------------------------------------------- CPU identities (double)

class HeatOperatorCpu : public ::testing::TestWithParam<MeshCase> {};

TEST_P(HeatOperatorCpu, StiffnessEqualsIndependentP1Assembly) {
  const LoadedMesh& mesh = mesh_for(GetParam());
  const auto k = conductivity_for(mesh);
  CpuHeatOperator op(mesh, k);
  const HeatOperatorData& d = op.data();
  const auto ref = reference_stiffness(mesh, k);
  double scale = 0;
  for (const auto& row : ref)
    for (const auto& [j, v] : row) scale = std::max(scale, std::fabs(v));
  double worst = 0;
  for (std::int32_t i = 0; i < d.num_nodes; ++i) {
    const auto& row = ref[size_t(i)];
    ASSERT_EQ(row.size(), size_t(d.offsets[size_t(i) + 1] - d.offsets[size_t(i)] + 1)) << "row " << i << " pattern";
    worst = std::max(worst, std::fabs(d.diagonal[size_t(i)] - row.at(i)));
    for (std::int32_t e = d.offsets[size_t(i)]; e < d.offsets[size_t(i) + 1]; ++e) {
      auto it = row.find(d.neighbors[size_t(e)]);
      ASSERT_NE(it, row.end()) << "K(" << i << ", " << d.neighbors[size_t(e)] << ") not in the P1 pattern";
      worst = std::max(worst, std::fabs(d.coefficients[size_t(e)] - it->second));
    }
  }
  EXPECT_LE(worst / scale, 1e-12) << "max |K - K_P1| / max |K_P1|";
  // The same through apply (the operator's own gather) on a random vector.
  const auto x = random_values(size_t(d.num_nodes), 11);
  std::vector<double> y;
  op.apply(x, y);
  EXPECT_LE(max_rel_diff(y, matvec(ref, x)), 1e-12);
}

TEST_P(HeatOperatorCpu, SymmetricWithZeroRowSums) {
  const LoadedMesh& mesh = mesh_for(GetParam());
  CpuHeatOperator op(mesh, conductivity_for(mesh));
  const HeatOperatorData& d = op.data();
  // Exact symmetry of the stored entries: K_ij == K_ji bit for bit.
  for (std::int32_t i = 0; i < d.num_nodes; ++i)
    for (std::int32_t e = d.offsets[size_t(i)]; e < d.offsets[size_t(i) + 1]; ++e) {
      const std::int32_t j = d.neighbors[size_t(e)];
      const auto begin = d.neighbors.begin() + d.offsets[size_t(j)], end = d.neighbors.begin() + d.offsets[size_t(j) + 1];
      const auto it = std::lower_bound(begin, end, i);
      ASSERT_TRUE(it != end && *it == i) << "K(" << j << ", " << i << ") missing";
      ASSERT_EQ(d.coefficients[size_t(it - d.neighbors.begin())], d.coefficients[size_t(e)]) << "K not symmetric at " << i << ", " << j;
    }
  // <Kx, y> = <x, Ky>
  const auto x = random_values(size_t(d.num_nodes), 1), y = random_values(size_t(d.num_nodes), 2);
  std::vector<double> kx, ky;
  op.apply(x, kx);
  op.apply(y, ky);
  double xky = 0, kxy = 0, mag = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    kxy += kx[i] * y[i];
    xky += x[i] * ky[i];
    mag += std::fabs(kx[i] * y[i]);
  }
  EXPECT_LE(std::fabs(kxy - xky), 1e-13 * mag);
  // K·1 = 0 exactly (difference form), diagonal = -row sum, diagonal > 0.
  std::vector<double> k1;
  op.apply(std::vector<double>(x.size(), 1.0), k1);
  EXPECT_EQ(max_abs(k1), 0.0);
  for (std::int32_t i = 0; i < d.num_nodes; ++i) EXPECT_GT(d.diagonal[size_t(i)], 0.0) << "node " << i;
  // Lumped mass: dual volumes, summing to the mesh volume.
  double total = 0;
  for (double m : op.lumped_mass()) total += m;
  EXPECT_NEAR(total, mesh.geometry.total_volume, 1e-12 * mesh.geometry.total_volume);
}

// With one conductivity for all cells (with jumps in k a linear field is no solution).
TEST_P(HeatOperatorCpu, LinearFieldsAreReproduced) {
  const LoadedMesh& mesh = mesh_for(GetParam());
  CpuHeatOperator op(mesh, std::vector<double>(size_t(mesh.topology.num_cells), 1.5));
  const glm::dvec3 a(0.75, -2.5, 1.25);
  const double c0 = 3.0;
  std::vector<double> x(size_t(op.num_nodes()));
  for (size_t i = 0; i < x.size(); ++i) x[i] = glm::dot(a, mesh.mesh.nodes[i]) + c0;
  // K·x = 0 at interior nodes (the discrete Laplacian of a linear function), relative to the size
  // of the terms Σ |K_ij (x_j - x_i)|.
  std::vector<double> kx;
  op.apply(x, kx);
  const auto interior = interior_nodes(mesh);
  const HeatOperatorData& d = op.data();
  int checked = 0;
  for (std::int32_t i = 0; i < d.num_nodes; ++i) {
    if (!interior[size_t(i)]) continue;
    double terms = 0;
    for (std::int32_t e = d.offsets[size_t(i)]; e < d.offsets[size_t(i) + 1]; ++e)
      terms += std::fabs(d.coefficients[size_t(e)] * (x[size_t(d.neighbors[size_t(e)])] - x[size_t(i)]));
    ASSERT_LE(std::fabs(kx[size_t(i)]), 1e-12 * terms) << "interior node " << i;
    ++checked;
  }
  EXPECT_GT(checked, 0);
  // The cell gradient of a linear field is exact; of a constant, exactly zero.
  std::vector<double> gx, gy, gz;
  op.cell_gradient(x, gx, gy, gz);
  ASSERT_EQ(gx.size(), size_t(op.num_cells()));
  double err = 0;
  for (size_t c = 0; c < gx.size(); ++c)
    err = std::max(err, glm::length(glm::dvec3(gx[c], gy[c], gz[c]) - a));
  EXPECT_LE(err, 1e-12 * glm::length(a)) << "max |∇x_h - a|";
  op.cell_gradient(std::vector<double>(x.size(), -7.0), gx, gy, gz);
  EXPECT_EQ(max_abs(gx) + max_abs(gy) + max_abs(gz), 0.0);
}

// The host heat flux the heat command writes (no tables) is -k times the operator's cell gradient,
// and an operator assembled without cell tables has the same operator tables.
TEST_P(HeatOperatorCpu, CellHeatFluxEqualsMinusKTimesCellGradient) {
  const LoadedMesh& mesh = mesh_for(GetParam());
  const auto k = conductivity_for(mesh);
  CpuHeatOperator op(mesh, k);
  std::vector<double> T(size_t(op.num_nodes()));
  for (size_t i = 0; i < T.size(); ++i) {
    const glm::dvec3& p = mesh.mesh.nodes[i];
    T[i] = std::sin(3 * p.x) + p.y * p.z;
  }
  std::vector<double> gx, gy, gz;
  op.cell_gradient(T, gx, gy, gz);
  const std::vector<glm::dvec3> q = cell_heat_flux(mesh, T, k);
  ASSERT_EQ(q.size(), gx.size());
  double scale = 0, err = 0;
  for (size_t c = 0; c < q.size(); ++c) {
    const glm::dvec3 expected = -k[c] * glm::dvec3(gx[c], gy[c], gz[c]);
    scale = std::max(scale, glm::length(expected));
    err = std::max(err, glm::length(q[c] - expected));
  }
  EXPECT_GT(scale, 0.0);
  EXPECT_LE(err, 1e-13 * scale);

  const HeatOperatorData lean = assemble_heat_operator(mesh, k, HeatTables::operator_only);
  const HeatOperatorData& full = op.data();
  EXPECT_TRUE(lean.cell_nodes.empty() && lean.grad_lambda[0].empty() && lean.node_cells.empty());
  EXPECT_EQ(lean.offsets, full.offsets);
  EXPECT_EQ(lean.neighbors, full.neighbors);
  EXPECT_EQ(lean.coefficients, full.coefficients);
  EXPECT_EQ(lean.diagonal, full.diagonal);
  EXPECT_EQ(lean.mass, full.mass);
  CpuHeatOperator lean_op(lean);
  EXPECT_THROW(lean_op.cell_gradient(T, gx, gy, gz), ss::Error);
}

TEST_P(HeatOperatorCpu, DirichletEliminationMatchesItsDefinition) {
  const LoadedMesh& mesh = mesh_for(GetParam());
  const auto k = conductivity_for(mesh);
  CpuHeatOperator op(mesh, k);
  const auto fixed_nodes = test_dirichlet_nodes(mesh);
  op.set_dirichlet(fixed_nodes);
  EXPECT_EQ(op.dirichlet_nodes(), fixed_nodes);
  const size_t n = size_t(op.num_nodes());
  std::vector<char> fixed(n, 0);
  for (auto i : fixed_nodes) fixed[size_t(i)] = 1;
  const auto ref = reference_stiffness(mesh, k);
  const auto& mass = op.lumped_mass();
  const double a = 2.5, s = 0.5;
  // K̃ T: fixed rows identity; free rows a m_i T_i + s Σ_{j free} K_ij T_j.
  const auto T = random_values(n, 5);
  std::vector<double> expect(n);
  for (size_t i = 0; i < n; ++i) {
    if (fixed[i]) {
      expect[i] = T[i];
      continue;
    }
    double v = a * mass[i] * T[i];
    for (const auto& [j, kij] : ref[i])
      if (!fixed[size_t(j)]) v += s * kij * T[size_t(j)];
    expect[i] = v;
  }
  std::vector<double> got;
  op.apply_system(a, s, T, got);
  EXPECT_LE(max_rel_diff(got, expect), 1e-12) << "apply_system";
  // The set in place is recognised in any order and with repeats (set_dirichlet then does nothing);
  // a different set, or no elimination yet, is not. An operator made with the set is the same.
  std::vector<std::int32_t> shuffled(fixed_nodes.rbegin(), fixed_nodes.rend());
  shuffled.push_back(fixed_nodes.front());
  EXPECT_TRUE(eliminates(op.dirichlet(), op.num_nodes(), shuffled));
  EXPECT_FALSE(eliminates(op.dirichlet(), op.num_nodes(), {fixed_nodes.begin() + 1, fixed_nodes.end()}));
  EXPECT_FALSE(eliminates(HeatDirichletData{}, op.num_nodes(), {}));
  EXPECT_TRUE(eliminates(eliminate_dirichlet(op.data(), {}), op.num_nodes(), {}));
  CpuHeatOperator made_fixed(std::make_shared<const HeatOperatorData>(op.data()), shuffled);
  EXPECT_EQ(made_fixed.dirichlet_nodes(), fixed_nodes);
  std::vector<double> got_made_fixed;
  made_fixed.apply_system(a, s, T, got_made_fixed);
  EXPECT_EQ(got_made_fixed, got);
  made_fixed.set_dirichlet({});
  made_fixed.apply_system(a, s, T, got_made_fixed);
  EXPECT_GT(max_rel_diff(got_made_fixed, got), 1e-6) << "set_dirichlet({}) after a set must release it";
  // The residual b − K̃T from the full tables (no elimination) agrees with it.
  const auto f = random_values(n, 8);
  const std::vector<double> residual = eliminated_system_residual(op.data(), fixed_nodes, a, s, f, T);
  std::vector<double> b_minus_expect(n);
  for (size_t i = 0; i < n; ++i) b_minus_expect[i] = f[i] - expect[i];
  EXPECT_LE(max_rel_diff(residual, b_minus_expect), 1e-12) << "eliminated_system_residual";
  // diag(K̃)
  const auto diag = op.system_diagonal(a, s);
  for (size_t i = 0; i < n; ++i)
    ASSERT_NEAR(diag[i], fixed[i] ? 1.0 : a * mass[i] + s * ref[i].at(std::int32_t(i)), 1e-12 * std::fabs(diag[i]));
  // K̃ symmetric: <K̃x, y> = <x, K̃y>
  const auto y = random_values(n, 6);
  std::vector<double> kt_y;
  op.apply_system(a, s, y, kt_y);
  double lhs = 0, rhs = 0, mag = 0;
  for (size_t i = 0; i < n; ++i) {
    lhs += got[i] * y[i];
    rhs += T[i] * kt_y[i];
    mag += std::fabs(got[i] * y[i]);
  }
  EXPECT_LE(std::fabs(lhs - rhs), 1e-13 * mag);
  // b̃: free b_i - s Σ_{j fixed} K_ij T_j, fixed T_i.
  const auto b = random_values(n, 7);
  std::vector<double> bt;
  op.dirichlet_rhs(b, T, s, bt);
  for (size_t i = 0; i < n; ++i) {
    double v = b[i];
    if (fixed[i]) v = T[i];
    else
      for (const auto& [j, kij] : ref[i])
        if (fixed[size_t(j)]) v -= s * kij * T[size_t(j)];
    expect[i] = v;
  }
  EXPECT_LE(max_rel_diff(bt, expect), 1e-12) << "dirichlet_rhs";
  // write_dirichlet_values puts the values at the fixed nodes only.
  std::vector<double> field(n, -1.0), values(fixed_nodes.size());
  for (size_t q = 0; q < values.size(); ++q) values[q] = double(q);
  op.write_dirichlet_values(field, values);
  for (size_t q = 0; q < values.size(); ++q) EXPECT_EQ(field[size_t(fixed_nodes[q])], double(q));
  EXPECT_EQ(std::count(field.begin(), field.end(), -1.0), std::ptrdiff_t(n - fixed_nodes.size()));
}

// With every boundary node fixed to a linear field (and constant k), the linear field solves the
// eliminated steady system: K̃ x = b̃ with b = 0 (K_FF x_F = -K_FD x_D).
TEST_P(HeatOperatorCpu, LinearFieldSolvesEliminatedSystem) {
  const LoadedMesh& mesh = mesh_for(GetParam());
  CpuHeatOperator op(mesh, std::vector<double>(size_t(mesh.topology.num_cells), 0.25));
  const auto interior = interior_nodes(mesh);
  std::vector<std::int32_t> boundary;
  for (std::int32_t i = 0; i < op.num_nodes(); ++i)
    if (!interior[size_t(i)]) boundary.push_back(i);
  op.set_dirichlet(boundary);
  std::vector<double> x(size_t(op.num_nodes()));
  for (size_t i = 0; i < x.size(); ++i) x[i] = 2.0 * mesh.mesh.nodes[i].x - mesh.mesh.nodes[i].z + 1.0;
  std::vector<double> lhs, rhs;
  op.apply_dirichlet(x, lhs);
  op.dirichlet_rhs(std::vector<double>(x.size(), 0.0), x, 1.0, rhs);
  EXPECT_LE(max_rel_diff(lhs, rhs), 1e-12);
}

TEST_P(HeatOperatorCpu, NodeCellsGatherEqualsNeighbourGather) {
  const LoadedMesh& mesh = mesh_for(GetParam());
  CpuHeatOperator op(mesh, conductivity_for(mesh));
  const auto x = random_values(size_t(op.num_nodes()), 3);
  std::vector<double> a, b;
  op.apply(x, a);
  op.apply_node_cells(x, b);
  EXPECT_LE(max_rel_diff(b, a), 1e-12);
}

std::string mesh_name(const ::testing::TestParamInfo<MeshCase>& info) { return info.param.name; }

INSTANTIATE_TEST_SUITE_P(Meshes, HeatOperatorCpu, ::testing::ValuesIn(kMeshes), mesh_name);

// ---------------------------------------------------------------- GPU (float) vs CPU (double)

class HeatOperatorGpu : public GlTest,
                        public ::testing::WithParamInterface<std::tuple<MeshCase, Packing, LaunchPath>> {};

TEST_P(HeatOperatorGpu, IsEquivalentToRef) {
  const auto [mesh_case, packing, launch] = GetParam();
  const LoadedMesh& mesh = mesh_for(mesh_case);
  LayoutOptions options;
  options.packing = packing;
  GpuOptions gpu_options;
  gpu_options.launch = launch;
  GpuBackend gpu = make_gpu(options, gpu_options);
  const auto k = conductivity_for(mesh);
  const HeatOperatorData data = assemble_heat_operator(mesh, k, HeatTables::all);
  GpuHeatOperator gop(gpu, data);
  CpuHeatOperator cop(data);
  const std::int64_t n = gop.num_nodes(), nc = gop.num_cells();
  const double tolerance = 1e-5;
  // max |gpu - cpu| / max |cpu|, printed for the record.
  auto check = [&](const std::vector<double>& gpu_values, const std::vector<double>& cpu_values, const char* what) {
    const double d = max_rel_diff(gpu_values, cpu_values);
    std::printf("  %-28s max_rel_diff %.3g\n", what, d);
    EXPECT_LE(d, tolerance) << what;
  };

  const auto hT = mixed_values(n, 21);  // float-exact, mixed signs and magnitudes
  Field T = gpu.upload(hT), out = gpu.make_vector(n);
  std::vector<double> cpu_out;

  check(gpu.download(gop.lumped_mass()), cop.lumped_mass(), "lumped_mass");
  check(gpu.download(gop.diagonal()), cop.diagonal(), "diagonal");

  gop.apply(T, out);
  cop.apply(hT, cpu_out);
  check(gpu.download(out), cpu_out, "apply");

  gop.apply_node_cells(T, out);
  check(gpu.download(out), cpu_out, "apply_node_cells");

  Field gx = gpu.make_vector(nc), gy = gpu.make_vector(nc), gz = gpu.make_vector(nc);
  std::vector<double> cx, cy, cz;
  gop.cell_gradient(T, gx, gy, gz);
  cop.cell_gradient(hT, cx, cy, cz);
  check(gpu.download(gx), cx, "cell_gradient x");
  check(gpu.download(gy), cy, "cell_gradient y");
  check(gpu.download(gz), cz, "cell_gradient z");

  // Without fixed nodes apply_system(0, 1) is apply.
  gop.apply_system(0.0, 1.0, T, out);
  check(gpu.download(out), cpu_out, "apply_system without Dirichlet");

  const auto fixed_nodes = test_dirichlet_nodes(mesh);
  gop.set_dirichlet(fixed_nodes);
  cop.set_dirichlet(fixed_nodes);
  const double a = 0.375, s = 1.5;
  gop.apply_system(a, s, T, out);
  cop.apply_system(a, s, hT, cpu_out);
  check(gpu.download(out), cpu_out, "apply_system (masked)");
  {  // made with the fixed nodes (eliminated once, in the constructor): the same system
    GpuHeatOperator made_fixed(gpu, std::make_shared<const HeatOperatorData>(data), fixed_nodes);
    made_fixed.set_dirichlet(fixed_nodes);  // the set in place: nothing to do
    Field made_out = gpu.make_vector(n);
    made_fixed.apply_system(a, s, T, made_out);
    check(gpu.download(made_out), cpu_out, "apply_system (made fixed)");
  }
  gop.apply_dirichlet(T, out);
  cop.apply_dirichlet(hT, cpu_out);
  check(gpu.download(out), cpu_out, "apply_dirichlet");
  check(gpu.download(gop.system_diagonal(a, s)), cop.system_diagonal(a, s), "system_diagonal");

  // Dirichlet values by the point scatter, then the right-hand side; output aliasing its input.
  std::vector<double> values = mixed_values(std::int64_t(fixed_nodes.size()), 22);
  std::vector<double> hX = mixed_values(n, 23);
  Field X = gpu.upload(hX);
  gop.write_dirichlet_values(X, values);
  cop.write_dirichlet_values(hX, values);
  EXPECT_EQ(gpu.download(X), hX) << "write_dirichlet_values";
  const auto hb = mixed_values(n, 24);
  Field B = gpu.upload(hb);
  gop.dirichlet_rhs(B, X, s, B);
  cop.dirichlet_rhs(hb, hX, s, cpu_out);
  check(gpu.download(B), cpu_out, "dirichlet_rhs");
  // Aliased apply: T = K·T.
  gop.apply(T, T);
  cop.apply(hT, cpu_out);
  check(gpu.download(T), cpu_out, "apply in place");
}

// The double-precision residual (mixed-precision refinement): fp64 on float pairs on the GPU
// against the CPU twin in double, on a temperature-like field (100 + small variations: the
// cancellation the outer loop exists for), non-float values everywhere, both fixed-row modes.
TEST_P(HeatOperatorGpu, ResidualPreciseIsEquivalentToRef) {
  const auto [mesh_case, packing, launch] = GetParam();
  const LoadedMesh& mesh = mesh_for(mesh_case);
  LayoutOptions options;
  options.packing = packing;
  GpuOptions gpu_options;
  gpu_options.launch = launch;
  GpuBackend gpu = make_gpu(options, gpu_options);
  const HeatOperatorData data = assemble_heat_operator(mesh, conductivity_for(mesh));
  GpuHeatOperator gop(gpu, data);
  CpuHeatOperator cop(data);
  const auto fixed_nodes = test_dirichlet_nodes(mesh);
  gop.set_dirichlet(fixed_nodes);
  cop.set_dirichlet(fixed_nodes);
  const size_t n = size_t(gop.num_nodes());
  std::vector<double> hx = random_values(n, 31, 99.9, 100.1), hf = random_values(n, 32, -1e-3, 1e-3);
  const std::vector<double> values = random_values(fixed_nodes.size(), 33, 99.0, 101.0);
  GpuBackend::PreciseVector X = gpu.upload_precise(hx), F = gpu.upload_precise(hf), out = gpu.make_precise(std::int64_t(n));
  // Float pairs hold ~48 bits: the round trip is exact to 2^-47 relative.
  const std::vector<double> back = gpu.download_precise(X);
  for (size_t i = 0; i < n; ++i) ASSERT_LE(std::fabs(back[i] - hx[i]), 0x1p-47 * std::fabs(hx[i])) << "round trip " << i;
  gop.write_dirichlet_values_precise(X, values);
  cop.write_dirichlet_values_precise(hx, values);
  const std::vector<double> written = gpu.download_precise(X);
  for (size_t k = 0; k < fixed_nodes.size(); ++k) {
    const size_t i = size_t(fixed_nodes[k]);
    ASSERT_LE(std::fabs(written[i] - values[k]), 0x1p-47 * std::fabs(values[k])) << "fixed value " << k;
  }
  // |Σ terms| each row: the scale the rounding of the row is relative to.
  std::vector<double> magnitude(n, 0.0);
  const double a = 1.0 / 3.0, s = 0.7;  // neither is a float
  for (size_t i = 0; i < n; ++i) {
    double m = std::fabs(hf[i]) + std::fabs(a * data.mass[i] * hx[i]) + std::fabs(hx[i]);
    for (std::int32_t k = data.offsets[i]; k < data.offsets[i + 1]; ++k)
      m += s * std::fabs(data.coefficients[size_t(k)]) * (std::fabs(hx[size_t(data.neighbors[size_t(k)])]) + std::fabs(hx[i]));
    magnitude[i] = m;
  }
  for (bool fixed_rows : {false, true}) {
    std::vector<double> expect;
    gop.residual_precise(a, s, F, X, out, fixed_rows);
    cop.residual_precise(a, s, hf, hx, expect, fixed_rows);
    const std::vector<double> got = gpu.download_precise(out);
    double worst = 0;
    for (size_t i = 0; i < n; ++i) worst = std::max(worst, std::fabs(got[i] - expect[i]) / magnitude[i]);
    std::printf("  residual_precise (fixed rows %d): max |gpu - cpu| / row magnitude %.3g\n", int(fixed_rows), worst);
    // Float pairs (2^-48) over ~15 fp64 terms: ~1e-13; a float32 evaluation would be ~1e-7.
    EXPECT_LE(worst, 1e-11) << "fixed_rows " << fixed_rows;
  }
}

std::string gpu_name(const ::testing::TestParamInfo<std::tuple<MeshCase, Packing, LaunchPath>>& info) {
  std::string name = std::string(std::get<0>(info.param).name) + "_" + to_string(std::get<1>(info.param));
  if (std::get<2>(info.param) == LaunchPath::compute) name += "_compute";
  return name;
}

INSTANTIATE_TEST_SUITE_P(Meshes, HeatOperatorGpu,
                         ::testing::Combine(::testing::ValuesIn(kMeshes), ::testing::Values(Packing::r32f, Packing::rgba32f),
                                            ::testing::Values(LaunchPath::fragment)),
                         gpu_name);
// The compute launch path (same kernels, image stores) on an irregular mesh and the >= 100k-tet one.
INSTANTIATE_TEST_SUITE_P(ComputeLaunch, HeatOperatorGpu,
                         ::testing::Combine(::testing::Values(kMeshes[3], kMeshes[4]),
                                            ::testing::Values(Packing::r32f, Packing::rgba32f),
                                            ::testing::Values(LaunchPath::compute)),
                         gpu_name);

}  // namespace
}  // namespace ss::test
