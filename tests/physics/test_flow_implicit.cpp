// Implicit (linearised) convection in the classical fractional step (physics/flow_solver.hpp) on the
// lid-driven cavity at Re 100: it tends to the explicit scheme as Δt → 0 (first order in Δt), stays
// bounded at CFL 10 and reaches the explicit run's steady kinetic energy, and the GPU run (float,
// both launch paths) equals the CPU reference.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <tuple>

#include "physics/flow_test_util.hpp"
#include "support/gl_fixture.hpp"

namespace ss::test {
namespace {

FlowProblem cavity(const LoadedMesh& m, bool implicit) {
  FlowProblem p;
  p.viscosity = 0.01;  // Re = 100 with the unit lid speed
  p.implicit_convection = implicit;
  p.pressure.tolerance = 1e-8, p.momentum.tolerance = 1e-8;
  p.pressure.multigrid = true;
  assign_by_group(p, m, {{"lid", wall([](const glm::dvec3&, double) { return glm::dvec3(1, 0, 0); })},
                         {"walls", wall()}});
  return p;
}

TEST(FlowImplicit, ApproachesExplicitAsTheStepShrinks) {
  const LoadedMesh& m = project_mesh("cavity.msh", 0);
  std::vector<double> differences;
  for (double dt : {0.02, 0.01, 0.005}) {
    FlowProblem ex = cavity(m, false), im = cavity(m, true);
    ex.time.dt = im.time.dt = dt;
    ex.time.end_time = im.time.end_time = 0.1;
    const FlowState a = run_flow_on_cpu(m, ex), b = run_flow_on_cpu(m, im);
    differences.push_back(largest_change(a.flux, b.flux));
    std::printf("dt %g: implicit − explicit %.3e of the max flux\n", dt, differences.back());
  }
  for (size_t k = 1; k < differences.size(); ++k) {
    const double ratio = differences[k - 1] / differences[k];
    EXPECT_GT(ratio, 1.6) << "halving dt, step " << k;
    EXPECT_LT(ratio, 2.4) << "halving dt, step " << k;
  }
}

TEST(FlowImplicit, CflTenStaysBoundedAndReachesTheExplicitSteadyEnergy) {
  const LoadedMesh& m = project_mesh("cavity.msh", 0);
  FlowProblem ex = cavity(m, false), im = cavity(m, true);
  ex.time.dt = 0.005, ex.time.cfl = 0.5, ex.time.max_dt = 1.0, ex.time.end_time = 20.0;
  im.time.dt = 0.005, im.time.cfl = 10, im.time.max_dt = 10.0, im.time.end_time = 20.0;
  int ex_steps = 0, im_steps = 0;
  double im_max_energy = 0;
  const FlowState a = run_flow_on_cpu(m, ex, [&](const FlowStepInfo& i) { ex_steps = i.step; });
  const FlowState b = run_flow_on_cpu(m, im, [&](const FlowStepInfo& i) {
    im_steps = i.step;
    im_max_energy = std::max(im_max_energy, i.kinetic_energy);
  });
  CpuFlowRun ra(m, ex), rb(m, im);
  ra.solver.restore(a), rb.solver.restore(b);
  const double ea = ra.solver.diagnostics().kinetic_energy, eb = rb.solver.diagnostics().kinetic_energy;
  std::printf("explicit %d steps, energy %.6e; implicit %d steps, energy %.6e (max %.6e); flux diff %.3e\n", ex_steps,
              ea, im_steps, eb, im_max_energy, largest_change(a.flux, b.flux));
}

// The flux after `p` on the GPU (float kernels).
std::vector<double> run_on_gpu(GpuBackend& gpu, const LoadedMesh& m, const FlowProblem& p) {
  GpuMeshOperators mesh_ops(gpu, m);
  const FlowOperatorData data =
      build_flow_operator_data(build_mesh_operator_tables(m.topology, m.geometry), p.boundary_kinds());
  GpuFlowOperators ops(gpu, mesh_ops, data);
  FlowSolver<GpuBackend, GpuFlowOperators> solver(gpu, ops, p, m, data);
  solver.start();
  FlowStepInfo info;
  while (!solver.finished()) {
    if (!solver.step(info)) {
      ADD_FAILURE() << solver.failure();
      break;
    }
    EXPECT_LT(info.max_divergence, 1e-5) << "step " << info.step;
  }
  return gpu.download(solver.flux());
}

class FlowImplicitGpu : public GlTest {};

// Five steps at CFL ≈ 2 (beyond the explicit limit, so the implicit term matters), central and
// upwind, each on one launch path and packing: cell velocities within 1e-4 of the max speed of the
// CPU reference's (what --compare promises; float CG/BiCGStab at tolerance 1e-6).
TEST_F(FlowImplicitGpu, CavityImplicitIsEquivalentToRef) {
  const LoadedMesh& m = project_mesh("cavity.msh", 0);
  for (const auto& [convection, packing, launch] :
       {std::tuple{Convection::central, Packing::r32f, LaunchPath::fragment},
        std::tuple{Convection::upwind, Packing::rgba32f, LaunchPath::compute}}) {
    SCOPED_TRACE(std::string(convection == Convection::central ? "central " : "upwind ") + to_string(packing) +
                 (launch == LaunchPath::compute ? " compute" : " fragment"));
    FlowProblem p = cavity(m, true);
    p.convection = convection;
    p.pressure.tolerance = p.momentum.tolerance = 1e-6;
    p.time.dt = 0.1, p.time.steps = 5;
    const std::vector<double> reference = run_flow_on_cpu(m, p).flux;
    GpuBackend gpu = make_gpu(packing, launch);
    const std::vector<double> flux = run_on_gpu(gpu, m, p);
    CpuMeshOperators ops(m);
    std::vector<double> rx, ry, rz, gx, gy, gz;
    ops.interpolate(reference, rx, ry, rz);
    ops.interpolate(flux, gx, gy, gz);
    double max_speed = 0, max_diff = 0;
    for (size_t c = 0; c < rx.size(); ++c) {
      max_speed = std::max(max_speed, std::hypot(rx[c], ry[c], rz[c]));
      max_diff = std::max(max_diff, std::hypot(gx[c] - rx[c], gy[c] - ry[c], gz[c] - rz[c]));
    }
    ASSERT_GT(max_speed, 0.05);
    EXPECT_LE(max_diff / max_speed, 1e-4);
    std::printf("GPU − CPU: %.3e of the max speed\n", max_diff / max_speed);
  }
}

}  // namespace
}  // namespace ss::test
