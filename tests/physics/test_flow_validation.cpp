// The flow solver against exact solutions, on the CPU reference (double) and on structured boxes
// small enough for CI to afford two refinements (the larger runs are in docs/validation.md, *Ethier–Steinman* and *The duct on the GPU*):
//  - developed laminar flow in a rectangular duct (the exact series), driven by a pressure drop and
//    by its own profile at the inlet: flow rate and centre-line velocity converge with h;
//  - Ethier & Steinman's unsteady 3D solution of the Navier–Stokes equations (1994) with the exact
//    velocity on the boundary and as the start: the velocity error at t = 0.1 falls with h and Δt.
// Each for both methods (classical and exact fractional step); the exact method's errors are the
// classical one's or smaller (the printed lines are docs/validation.md's *Convergence in CI* table). The GPU path (float32
// kernels, llvmpipe in CI) runs the finer duct and Ethier–Steinman box once each against the same
// references, its bounds set just above what it measures, so a regression of the GPU kernels fails.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "mesh/box_mesh.hpp"
#include "postprocess/flow_fields.hpp"
#include "operators/gpu_mesh_operators.hpp"
#include "physics/flow_gpu_test_util.hpp"
#include "support/gl_fixture.hpp"

namespace ss::test {
namespace {

constexpr double kPi = 3.14159265358979323846;

const LoadedMesh& box(int nx, int ny, int nz, glm::dvec3 extent) {
  static std::map<std::string, std::unique_ptr<LoadedMesh>> cache;
  auto& slot = cache[std::to_string(nx) + "x" + std::to_string(ny) + "x" + std::to_string(nz) + "/" +
                     std::to_string(extent.x) + std::to_string(extent.y) + std::to_string(extent.z)];
  if (!slot) slot = std::make_unique<LoadedMesh>(prepare_mesh(make_box_mesh(nx, ny, nz, extent)));
  return *slot;
}

// Runs p on the CPU reference to its end; the fields of the last state.
FlowFields run_to_end(const LoadedMesh& m, const FlowProblem& p) {
  CpuMeshOperators output_ops(m);
  return compute_flow_fields(output_ops, m, p, run_flow_on_cpu(m, p));
}

// ---- Rectangular duct 0 < y < W, 0 < z < H, driven by the kinematic pressure gradient G = −dp/dx.
// With half-widths b = W/2 ≥ a = H/2 and centred η = y − b, ζ = z − a (White, Viscous Fluid Flow, 3-48):
//   u(η, ζ) = 16 a² G/(ν π³) Σ_{i odd} (−1)^((i−1)/2) [1 − cosh(iπη/2a)/cosh(iπb/2a)] cos(iπζ/2a) / i³
//   Q       = 4 b a³ G/(3ν) [1 − 192 a/(π⁵ b) Σ_{i odd} tanh(iπb/2a) / i⁵]
struct Duct {
  double length = 2.0, width = 1.0, height = 0.5, nu = 1.0, drop = 4.0;  // drop: p(inlet) − p(outlet)
  double gradient() const { return drop / length; }
  double velocity(double y, double z) const {
    const double a = height / 2, b = width / 2, eta = y - b, zeta = z - a;
    double sum = 0;
    for (int i = 1; i < 200; i += 2)
      sum += ((i / 2) % 2 ? -1.0 : 1.0) * (1.0 - std::cosh(i * kPi * eta / (2 * a)) / std::cosh(i * kPi * b / (2 * a))) *
             std::cos(i * kPi * zeta / (2 * a)) / (double(i) * i * i);
    return 16 * a * a * gradient() / (nu * kPi * kPi * kPi) * sum;
  }
  double flow_rate() const {
    const double a = height / 2, b = width / 2;
    double sum = 0;
    for (int i = 1; i < 200; i += 2) sum += std::tanh(i * kPi * b / (2 * a)) / std::pow(double(i), 5);
    return 4 * b * a * a * a * gradient() / (3 * nu) * (1 - 192 * a / (std::pow(kPi, 5) * b) * sum);
  }
};

// Volume flow through the mid-length cross-section, Q ≈ (1/L_mid) ∫ u_x dV over the middle half
// (developed flow: the same everywhere), and the cell velocity nearest the centre line.
struct DuctResult {
  double flow_rate = 0, centre_velocity = 0, l2_error = 0;
};
DuctResult measure(const LoadedMesh& m, const FlowFields& f, const Duct& duct) {
  DuctResult r;
  double volume_ux = 0, error2 = 0, norm2 = 0, nearest = 1e300;
  const double x0 = duct.length / 4, x1 = 3 * duct.length / 4;
  for (size_t c = 0; c < f.cell_velocity.size(); ++c) {
    const glm::dvec3 x = m.geometry.cell_centroids[c];
    if (x.x < x0 || x.x > x1) continue;
    const double v = m.geometry.cell_volumes[c], exact = duct.velocity(x.y, x.z);
    volume_ux += v * f.cell_velocity[c].x;
    error2 += v * std::pow(f.cell_velocity[c].x - exact, 2), norm2 += v * exact * exact;
    const double d = std::hypot(x.y - duct.width / 2, x.z - duct.height / 2) + std::fabs(x.x - duct.length / 2);
    if (d < nearest) nearest = d, r.centre_velocity = f.cell_velocity[c].x / exact;  // relative to the exact value
  }
  r.flow_rate = volume_ux / (x1 - x0);
  r.l2_error = std::sqrt(error2 / norm2);
  return r;
}

// periodic: the duct's ends joined ([[mesh.periodic]]) and the flow driven by the body force G instead
// of the pressure drop: the developed flow of the exact series everywhere.
FlowProblem duct_problem(const LoadedMesh& m, const Duct& duct, bool velocity_inlet, FlowMethod method,
                         bool periodic = false) {
  FlowProblem p;
  p.method = method;
  p.viscosity = duct.nu;
  p.time.dt = 0.01;
  p.time.steps = 25;  // slowest transient decays like exp(−ν π² (1/W² + 1/H²) t): 1e-5 by t = 0.25
  p.pressure.tolerance = p.momentum.tolerance = p.streamfunction.tolerance = 1e-9;
  if (periodic) {
    p.body_force = {duct.gradient(), 0, 0};
    assign_by_group(p, m, {{"ymin", wall()}, {"ymax", wall()}, {"zmin", wall()}, {"zmax", wall()}});
    return p;
  }
  FlowCondition inlet = pressure_outlet(duct.drop);
  if (velocity_inlet) inlet = wall([duct](const glm::dvec3& x, double) { return glm::dvec3(duct.velocity(x.y, x.z), 0, 0); });
  assign_by_group(p, m, {{"xmin", inlet}, {"xmax", pressure_outlet(0.0)}, {"ymin", wall()}, {"ymax", wall()},
                         {"zmin", wall()}, {"zmax", wall()}});
  return p;
}

// Both drives on two boxes (2 and 4 hexes across the height): the L2 error of u_x, the flow rate's
// and the centre-line velocity's errors fall with h (measured, 384 → 3072 cells: pressure drive
// +17.5 % → +5.5 %, −4.9 % → −0.9 %, L2 0.19 → 0.10; velocity drive (the inlet fixes the flow rate)
// centre line −19.7 % → −6.1 %, L2 0.19 → 0.10).
const char* name(FlowMethod m) { return m == FlowMethod::exact ? "exact" : "classical"; }

void expect_duct_converges(bool velocity_inlet, FlowMethod method) {
  const Duct duct;
  const glm::dvec3 extent(duct.length, duct.width, duct.height);
  double previous_rate_error = 0, previous_l2 = 0, previous_centre_error = 0;
  for (int level = 0; level < 2; ++level) {
    const int n = 2 << level;  // hexes across the height: 2, 4
    const LoadedMesh& m = box(8 * n / 2, 2 * n, n, extent);
    const DuctResult r = measure(m, run_to_end(m, duct_problem(m, duct, velocity_inlet, method)), duct);
    const double rate_error = std::fabs(r.flow_rate / duct.flow_rate() - 1);
    std::printf("duct (%s inlet, %s) %d cells: flow rate %+.4f %%, centre-line u %+.4f %%, L2(u_x) %.4f\n",
                velocity_inlet ? "velocity" : "pressure", name(method), m.topology.num_cells,
                100 * (r.flow_rate / duct.flow_rate() - 1),
                100 * (r.centre_velocity - 1), r.l2_error);
    const double centre_error = std::fabs(r.centre_velocity - 1);
    if (level > 0) {
      EXPECT_LT(r.l2_error, 0.7 * previous_l2);
      EXPECT_LT(rate_error, std::max(0.7 * previous_rate_error, 0.01));
      EXPECT_LT(centre_error, 0.7 * previous_centre_error);
      EXPECT_LT(rate_error, 0.1);
    }
    previous_rate_error = rate_error, previous_l2 = r.l2_error, previous_centre_error = centre_error;
  }
}

TEST(FlowValidation, PressureDrivenDuctConvergesToTheExactSeries) { expect_duct_converges(false, FlowMethod::classical); }
TEST(FlowValidation, VelocityDrivenDuctConvergesToTheExactSeries) { expect_duct_converges(true, FlowMethod::classical); }
TEST(FlowValidation, ExactMethodPressureDrivenDuctConvergesToTheExactSeries) {
  expect_duct_converges(false, FlowMethod::exact);
}
TEST(FlowValidation, ExactMethodVelocityDrivenDuctConvergesToTheExactSeries) {
  expect_duct_converges(true, FlowMethod::exact);
}

// ---- Ethier & Steinman (1994) on the unit cube (ethier_steinman, flow_test_util.hpp).
void expect_ethier_steinman_converges(FlowMethod method) {
  const double nu = 1.0, end = 0.1;
  const VelocityFunction exact = [nu](const glm::dvec3& x, double t) { return ethier_steinman(x, t, nu); };
  double previous = 0;
  for (int level = 0; level < 2; ++level) {
    const int n = 4 << level;
    const LoadedMesh& m = box(n, n, n, glm::dvec3(1.0));
    FlowProblem p;
    p.method = method;
    p.viscosity = nu;
    p.theta = 0.5;
    p.time.dt = 0.025 / (1 << level);  // Δt ∝ h
    p.time.end_time = end;
    p.pressure.tolerance = p.momentum.tolerance = p.streamfunction.tolerance = 1e-9;
    p.initial_velocity = exact;
    FlowCondition boundary = wall(exact);
    boundary.time_dependent = true;
    assign_by_group(p, m, {{"xmin", boundary}, {"xmax", boundary}, {"ymin", boundary}, {"ymax", boundary},
                           {"zmin", boundary}, {"zmax", boundary}});
    const FlowExactError e = velocity_error(m, run_to_end(m, p), exact, end);
    std::printf("Ethier-Steinman (%s) %d cells, dt %g: L2 %.4e, max %.4e\n", name(method), m.topology.num_cells,
                p.time.dt, e.l2, e.max);
    EXPECT_NEAR(e.time, end, 1e-12);
    if (level > 0) {
      const double rate = std::log2(previous / e.l2);
      ::testing::Test::RecordProperty("rate", ::testing::PrintToString(rate));
      EXPECT_GT(rate, 0.8) << "first order in h (piecewise-constant cell velocity) and Δt expected";
    }
    previous = e.l2;
  }
}

const LoadedMesh& periodic_duct(const Duct& duct) {
  static const LoadedMesh m = [&] {
    PeriodicPair ends;
    ends.first = "xmin", ends.second = "xmax", ends.offset = {duct.length, 0, 0}, ends.where = "test";
    LoadOptions load;
    load.periodic = {ends};
    return prepare_mesh(make_box_mesh(16, 8, 4, glm::dvec3(duct.length, duct.width, duct.height)), load);
  }();
  return m;
}

// Measured (3,072 cells, the pressure-driven duct's finer box): flow rate +5.493 %, L2(u_x) 0.1001 —
// the pressure-driven duct's +5.516 % and 0.1003 on the same cells.
TEST(FlowValidation, PeriodicDuctDrivenByABodyForceMatchesTheExactSeries) {
  const Duct duct;
  const LoadedMesh& m = periodic_duct(duct);
  const DuctResult r = measure(m, run_to_end(m, duct_problem(m, duct, false, FlowMethod::classical, true)), duct);
  const double rate_error = r.flow_rate / duct.flow_rate() - 1;
  std::printf("duct (periodic, body force, classical) %d cells: flow rate %+.4f %%, centre-line u %+.4f %%, L2(u_x) %.4f\n",
              m.topology.num_cells, 100 * rate_error, 100 * (r.centre_velocity - 1), r.l2_error);
  EXPECT_NEAR(rate_error, 0.05493, 0.0005);
  EXPECT_LT(r.l2_error, 0.1011);
}

// ---- The GPU path: the finer level of each, at the float32 solvers' floor (tolerance 1e-6).
class FlowValidationGpu : public GlTest {
protected:
  FlowFields run_to_end_on_gpu(const LoadedMesh& m, FlowProblem p) {
    p.pressure.tolerance = p.momentum.tolerance = p.streamfunction.tolerance = 1e-6;
    GpuBackend gpu = make_gpu();
    const FlowState state = run_flow_on_gpu(gpu, m, p);
    CpuMeshOperators output_ops(m);
    return compute_flow_fields(output_ops, m, p, state);
  }
};

TEST_F(FlowValidationGpu, PressureDrivenDuctFlowRateMatchesTheExactSeries) {
  const Duct duct;
  const LoadedMesh& m = box(16, 8, 4, glm::dvec3(duct.length, duct.width, duct.height));
  const DuctResult r = measure(m, run_to_end_on_gpu(m, duct_problem(m, duct, false, FlowMethod::classical)), duct);
  const double rate_error = r.flow_rate / duct.flow_rate() - 1;
  std::printf("duct (pressure inlet, classical, GPU) %d cells: flow rate %+.4f %%, centre-line u %+.4f %%, L2(u_x) %.4f\n",
              m.topology.num_cells, 100 * rate_error, 100 * (r.centre_velocity - 1), r.l2_error);
  // Measured on llvmpipe: flow rate +5.5157 %, L2 0.1003, the CPU reference's to the 4 digits printed
  // (float32 solves to 1e-6). Bounds: the rate within 0.05 points of it, the L2 at most 1 % above.
  EXPECT_NEAR(rate_error, 0.055157, 0.0005);
  EXPECT_LT(r.l2_error, 0.1013);
}

TEST_F(FlowValidationGpu, PeriodicDuctEqualsTheCpuReference) {
  const Duct duct;
  const LoadedMesh& m = periodic_duct(duct);
  FlowProblem p = duct_problem(m, duct, false, FlowMethod::classical, true);
  p.time.steps = 5;  // the seams' terms in every kernel; the developed flow is the CPU test's
  p.pressure.tolerance = p.momentum.tolerance = 1e-6;
  const FlowFields cpu = run_to_end(m, p), gpu = run_to_end_on_gpu(m, p);
  double difference = 0, largest = 0;
  for (size_t c = 0; c < cpu.cell_velocity.size(); ++c) {
    difference = std::max(difference, glm::length(gpu.cell_velocity[c] - cpu.cell_velocity[c]));
    largest = std::max(largest, glm::length(cpu.cell_velocity[c]));
  }
  EXPECT_LT(difference, 1e-4 * largest);
}

TEST_F(FlowValidationGpu, EthierSteinmanErrorMatchesTheCpuReference) {
  const double nu = 1.0, end = 0.1;
  const VelocityFunction exact = [nu](const glm::dvec3& x, double t) { return ethier_steinman(x, t, nu); };
  const LoadedMesh& m = box(8, 8, 8, glm::dvec3(1.0));
  FlowProblem p;
  p.viscosity = nu;
  p.theta = 0.5;
  p.time.dt = 0.0125;
  p.time.end_time = end;
  p.initial_velocity = exact;
  FlowCondition boundary = wall(exact);
  boundary.time_dependent = true;
  assign_by_group(p, m, {{"xmin", boundary}, {"xmax", boundary}, {"ymin", boundary}, {"ymax", boundary},
                         {"zmin", boundary}, {"zmax", boundary}});
  const FlowExactError e = velocity_error(m, run_to_end_on_gpu(m, p), exact, end);
  std::printf("Ethier-Steinman (classical, GPU) %d cells, dt %g: L2 %.4e, max %.4e\n", m.topology.num_cells, p.time.dt,
              e.l2, e.max);
  EXPECT_NEAR(e.time, end, 1e-12);
  // Measured on llvmpipe: L2 2.1105e-2, the CPU reference's at this level to the 5 digits printed;
  // the bound 1 % above it.
  EXPECT_LT(e.l2, 2.132e-2);
}

TEST(FlowValidation, EthierSteinmanErrorFallsWithHAndDt) { expect_ethier_steinman_converges(FlowMethod::classical); }
TEST(FlowValidation, ExactMethodEthierSteinmanErrorFallsWithHAndDt) {
  expect_ethier_steinman_converges(FlowMethod::exact);
}

}  // namespace
}  // namespace ss::test
