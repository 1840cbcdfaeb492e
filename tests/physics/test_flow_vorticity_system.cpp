// The classical method's momentum solve on the edge vorticity (physics/momentum_vorticity_solve.hpp)
// against the face form it reduces: (H/Δt − νθ m K m) U = m(r + νθ K U_b + ν(1 − θ) K Uⁿ + ν F M_e⁻¹ ḡ)
// on the free faces, U_b on prescribed ones, with K = F M_e⁻¹ B applied to 1e-12 (the Chebyshev
// polynomial at that tolerance), solved by CG to round-off. The cavity mesh carries all three kinds
// of face: prescribed (walls), free (a pressure outlet on the lid) and slip (x = 0: edges held at
// ω = 0). Then the GPU solve (float; both packings and launch paths) against the CPU reference, with
// either preconditioner.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <random>
#include <tuple>

#include "operators/flow_operators.hpp"
#include "physics/flow_test_util.hpp"
#include "physics/momentum_vorticity_solve.hpp"
#include "support/gl_fixture.hpp"

namespace ss::test {
namespace {

constexpr double kDt = 0.02, kNu = 0.05, kTheta = 0.7;

std::vector<FlowBoundaryKind> mixed_kinds(const LoadedMesh& m) {
  std::vector<FlowBoundaryKind> kinds;
  for (std::int32_t f : m.topology.boundary_faces) {
    const glm::dvec3 c = m.geometry.face_centroids[size_t(f)];
    kinds.push_back(c.x < 1e-9   ? FlowBoundaryKind::slip
                    : c.z > 1 - 1e-9 ? FlowBoundaryKind::pressure
                                     : FlowBoundaryKind::velocity);
  }
  return kinds;
}

std::vector<double> random_vector(size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<double> v(n);
  for (double& x : v) x = u(rng);
  return v;
}

struct Inputs {
  std::vector<FlowBoundaryKind> kinds;
  FlowOperatorData data;
  CurlCurlViscousData viscous;
  std::vector<double> r, U_old, g;  // r: m r_free + (1 − m) U_b, as momentum_rhs gives it with s = 0
};

Inputs make_inputs(const LoadedMesh& m, bool slip = true) {
  Inputs in;
  in.kinds = mixed_kinds(m);
  if (!slip) std::replace(in.kinds.begin(), in.kinds.end(), FlowBoundaryKind::slip, FlowBoundaryKind::velocity);
  in.data = build_flow_operator_data(build_mesh_operator_tables(m.topology, m.geometry), in.kinds);
  in.viscous = build_curl_curl_viscous(m, in.kinds, 1e-12);
  const size_t nf = size_t(m.topology.num_faces);
  in.r = random_vector(nf, 1), in.U_old = random_vector(nf, 2);
  in.g = random_vector(size_t(m.topology.num_edges), 3);
  return in;
}

// The face form's solution, CPU, double.
std::vector<double> face_form_solution(const Inputs& in) {
  CpuBackend cpu;
  CurlCurlViscous<CpuBackend> K(cpu, in.viscous);
  const std::vector<double>& H = in.data.face_mass;
  const std::vector<double>& m = in.data.free_mask;
  const size_t nf = H.size();
  std::vector<double> Ub(nf), KUb(nf), KUold(nf), FMg(nf), rhs(nf);
  for (size_t f = 0; f < nf; ++f) Ub[f] = (1 - m[f]) * in.r[f];
  K.apply(Ub, KUb);
  K.apply(in.U_old, KUold);
  std::vector<double> zero(nf, 0.0);
  K.force(0.0, zero, 1.0, in.g, FMg);  // F M_e⁻¹ ḡ
  for (size_t f = 0; f < nf; ++f)
    rhs[f] = m[f] * (in.r[f] + kNu * kTheta * KUb[f] + kNu * (1 - kTheta) * KUold[f] + kNu * FMg[f]) + (1 - m[f]) * Ub[f];
  std::vector<double> masked(nf), Kx(nf);
  const auto apply = [&](const std::vector<double>& x, std::vector<double>& y) {
    for (size_t f = 0; f < nf; ++f) masked[f] = m[f] * x[f];
    K.apply(masked, Kx);
    y.resize(nf);
    for (size_t f = 0; f < nf; ++f) y[f] = m[f] * (H[f] / kDt * x[f] - kNu * kTheta * Kx[f]) + (1 - m[f]) * x[f];
  };
  std::vector<double> x = Ub;
  CgOptions options;
  options.tolerance = 1e-14;
  const CgResult result = conjugate_gradient(cpu, apply, rhs, x, static_cast<const std::vector<double>*>(nullptr), options);
  EXPECT_TRUE(result.converged) << result.stop_reason;
  return x;
}

// `system`: the one build_momentum_vorticity_system makes unless given. `chebyshev_start`: the
// Chebyshev preconditioner of `degree` from that Lanczos start, else Jacobi.
template <class Backend>
std::vector<double> vorticity_solution(Backend& backend, const Inputs& in, double tolerance, int* iterations = nullptr,
                                       const MomentumVorticitySystem* system = nullptr,
                                       std::optional<std::vector<double>> chebyshev_start = std::nullopt, int degree = 3) {
  CurlCurlViscous<Backend> start(backend, in.viscous);
  MomentumVorticitySolve<Backend> solve(
      backend, system ? *system : build_momentum_vorticity_system(in.viscous, in.data.face_mass, in.data.free_mask),
      &start, std::move(chebyshev_start), degree);
  CgOptions options;
  options.tolerance = tolerance;
  auto U = backend.make_vector(std::int64_t(in.r.size()));
  const CgResult result = solve.solve(kDt, kDt, kNu, kTheta, backend.upload(in.r), backend.upload(in.U_old),
                                      backend.upload(in.g), U, start, options);
  EXPECT_TRUE(result.converged) << result.stop_reason;
  if (iterations) *iterations = result.iterations;
  return backend.download(U);
}

double relative_difference(const std::vector<double>& a, const std::vector<double>& b) {
  double diff = 0, scale = 0;
  for (size_t i = 0; i < a.size(); ++i) diff = std::max(diff, std::fabs(a[i] - b[i])), scale = std::max(scale, std::fabs(b[i]));
  return diff / scale;
}

TEST(MomentumVorticity, EqualsTheFaceFormWithAnExactEdgeMassInverse) {
  const LoadedMesh& m = project_mesh("cavity.msh", 0);
  const Inputs in = make_inputs(m);
  const std::vector<double> reference = face_form_solution(in);
  CpuBackend cpu;
  int iterations = 0;
  const std::vector<double> U = vorticity_solution(cpu, in, 1e-13, &iterations);
  const double d = relative_difference(U, reference);
  std::printf("vorticity form − face form: %.2e of the max flux (%d CG iterations)\n", d, iterations);
  EXPECT_LE(d, 1e-10);  // measured 3e-13
  // Prescribed faces keep U_b exactly.
  for (size_t f = 0; f < U.size(); ++f) {
    if (in.data.free_mask[f] == 0.0) {
      ASSERT_EQ(U[f], in.r[f]) << "face " << f;
    }
  }
}

// Without slip faces no edge is held: the system shares the viscous operator's M_e, B and F
// (D Bᵀ x = −D (F x)) instead of copies, and solves as with copies of them (D Bᵀ assembled), to
// round-off.
TEST(MomentumVorticity, WithoutHeldEdgesSharesTheViscousOperatorsMatrices) {
  const LoadedMesh& m = project_mesh("cavity.msh", 0);
  const Inputs in = make_inputs(m, false);
  const MomentumVorticitySystem shared = build_momentum_vorticity_system(in.viscous, in.data.face_mass, in.data.free_mask);
  EXPECT_TRUE(shared.shares_factors);
  EXPECT_EQ(shared.edge_mass.nonzeros() + shared.source.nonzeros() + shared.scaled_transpose.nonzeros(), 0);
  MomentumVorticitySystem copies = shared;
  copies.shares_factors = false, copies.edge_mass = in.viscous.edge_mass, copies.source = in.viscous.vorticity_source;
  copies.scaled_transpose = transpose(in.viscous.vorticity_source);
  for (std::int32_t f = 0; f < copies.scaled_transpose.rows; ++f)
    for (std::int32_t k = copies.scaled_transpose.offsets[size_t(f)]; k < copies.scaled_transpose.offsets[size_t(f) + 1]; ++k)
      copies.scaled_transpose.values[size_t(k)] *= shared.inverse_face_mass[size_t(f)];
  CpuBackend cpu;
  const std::vector<double> from_shared = vorticity_solution(cpu, in, 1e-12, nullptr, &shared);
  const double d = relative_difference(from_shared, vorticity_solution(cpu, in, 1e-12, nullptr, &copies));
  EXPECT_LE(d, 1e-12) << "shared against copied factors";
  EXPECT_EQ(from_shared, vorticity_solution(cpu, in, 1e-12));
  EXPECT_FALSE(build_momentum_vorticity_system(make_inputs(m).viscous, in.data.face_mass, in.data.free_mask).shares_factors);
}

// The Chebyshev polynomial of Jacobi as the CG's preconditioner (SPD for its odd degree whatever
// its interval): the same solution as Jacobi-CG to round-off, in well under half the iterations at
// degree 3 and fewer again at degree 5; degree 1 is Jacobi scaled (the same iterations).
TEST(MomentumVorticity, ChebyshevPreconditionerSolvesInFewerIterations) {
  const LoadedMesh& m = project_mesh("cavity.msh", 0);
  const Inputs in = make_inputs(m);
  CpuBackend cpu;
  int jacobi = 0;
  const std::vector<double> reference = vorticity_solution(cpu, in, 1e-12, &jacobi);
  int chebyshev[3] = {0, 0, 0};  // degrees 1, 3, 5
  for (int k = 0; k < 3; ++k) {
    const int degree = 2 * k + 1;
    const std::vector<double> U = vorticity_solution(cpu, in, 1e-12, &chebyshev[k], nullptr, lanczos_edge_start(m), degree);
    const double d = relative_difference(U, reference);
    std::printf("Chebyshev of degree %d − Jacobi: %.2e of the max flux; %d against %d CG iterations\n", degree, d,
                chebyshev[k], jacobi);
    EXPECT_LE(d, 1e-10) << "degree " << degree;
  }
  EXPECT_LE(std::abs(chebyshev[0] - jacobi), 2);
  EXPECT_LE(chebyshev[1], jacobi / 2);
  EXPECT_LT(chebyshev[2], chebyshev[1]);
}

TEST(MomentumVorticity, ChebyshevDegreeMustBeOddAndPositive) {
  const LoadedMesh& m = project_mesh("cavity.msh", 0);
  const Inputs in = make_inputs(m);
  CpuBackend cpu;
  for (int degree : {0, 2, -1}) {
    try {
      vorticity_solution(cpu, in, 1e-6, nullptr, nullptr, lanczos_edge_start(m), degree);
      ADD_FAILURE() << "degree " << degree << " accepted";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("the Chebyshev degree must be odd and positive (got " + std::to_string(degree) + ")"),
                std::string::npos)
          << e.what();
    }
  }
}

class MomentumVorticityGpu : public GlTest {};

// One solve (float, tolerance 1e-6) on each packing and launch path, Jacobi and the Chebyshev
// polynomial of degrees 3 and 5: within 1e-5 of the max flux of the CPU reference's.
TEST_F(MomentumVorticityGpu, SolveIsEquivalentToRef) {
  const LoadedMesh& m = project_mesh("cavity.msh", 0);
  const Inputs in = make_inputs(m);
  CpuBackend cpu;
  const std::vector<double> reference = vorticity_solution(cpu, in, 1e-12);
  for (const auto& [packing, launch] : {std::tuple{Packing::r32f, LaunchPath::fragment},
                                        std::tuple{Packing::rgba32f, LaunchPath::compute}}) {
    SCOPED_TRACE(std::string(to_string(packing)) + (launch == LaunchPath::compute ? " compute" : " fragment"));
    GpuBackend gpu = make_gpu(packing, launch);
    const double d = relative_difference(vorticity_solution(gpu, in, 1e-6), reference);
    const double chebyshev = relative_difference(vorticity_solution(gpu, in, 1e-6, nullptr, nullptr, lanczos_edge_start(m)),
                                                 reference);
    const double chebyshev5 = relative_difference(
        vorticity_solution(gpu, in, 1e-6, nullptr, nullptr, lanczos_edge_start(m), 5), reference);
    std::printf("GPU − CPU: %.2e of the max flux (Jacobi), %.2e (Chebyshev, degree 3), %.2e (degree 5)\n", d, chebyshev,
                chebyshev5);
    EXPECT_LE(d, 1e-5);
    EXPECT_LE(chebyshev, 1e-5);
    EXPECT_LE(chebyshev5, 1e-5);
  }
}

}  // namespace
}  // namespace ss::test
