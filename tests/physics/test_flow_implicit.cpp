// Implicit (linearised) convection in the classical fractional step (physics/flow_solver.hpp) on the
// lid-driven cavity at Re 100: it tends to the explicit scheme as Δt → 0 (first order in Δt), and the
// GPU run (float, both launch paths) equals the CPU reference. Its march at CFL 10 to the explicit
// scheme's steady energy is test_flow_steady.cpp's reference run.
#include <gtest/gtest.h>

#include <cstdio>
#include <tuple>

#include "physics/flow_gpu_test_util.hpp"
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

class FlowImplicitGpu : public GlTest {};

// Three steps at CFL ≈ 2 (beyond the explicit limit, so the implicit term matters), central and
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
    p.time.dt = 0.1, p.time.steps = 3;
    const std::vector<double> reference = run_flow_on_cpu(m, p).flux;
    GpuBackend gpu = make_gpu(packing, launch);
    const std::vector<double> flux =
        run_flow_on_gpu(gpu, m, p, [](const FlowStepInfo& i) { EXPECT_LT(i.max_divergence, 1e-5) << "step " << i.step; })
            .flux;
    const CellVelocityDifference d = cell_velocity_difference(m, flux, reference);
    ASSERT_GT(d.max_speed, 0.05);
    EXPECT_LE(d.relative(), 1e-4);
    std::printf("GPU − CPU: %.3e of the max speed\n", d.relative());
  }
}

// Steady mode's system (local pseudo-time steps, the grad–div term, the delta form) for three steps
// at CFL ≈ 10, each preconditioner on one launch path (Jacobi on the fragment path with one float a
// texel, block Jacobi on the compute path with four): the GPU fields within 1e-4 of the max speed of
// the CPU reference's.
TEST_F(FlowImplicitGpu, SteadyModeStepsAreEquivalentToRef) {
  const LoadedMesh& m = project_mesh("cavity.msh", 0);
  struct Combination {
    Packing packing;
    LaunchPath launch;
    bool block_jacobi;
  };
  for (const auto& [packing, launch, block_jacobi] : {Combination{Packing::r32f, LaunchPath::fragment, false},
                                                      Combination{Packing::rgba32f, LaunchPath::compute, true}}) {
    SCOPED_TRACE(std::string(to_string(packing)) + (launch == LaunchPath::compute ? " compute" : " fragment") +
                 (block_jacobi ? ", block Jacobi" : ", Jacobi"));
    FlowProblem p = cavity(m, true);
    p.steady.enabled = true;
    ASSERT_TRUE(p.steady.local_time_steps);
    ASSERT_GT(p.steady.grad_div, 0.0);
    p.pressure.tolerance = 1e-6, p.steady.momentum_tolerance = 1e-6;
    p.momentum.block_jacobi = block_jacobi, p.momentum.jacobi = !block_jacobi;
    p.time.dt = 0.05, p.time.cfl = 10, p.time.max_dt = 10, p.time.steps = 3;
    const std::vector<double> reference = run_flow_on_cpu(m, p).flux;
    GpuBackend gpu = make_gpu(packing, launch);
    const std::vector<double> flux = run_flow_on_gpu(gpu, m, p).flux;
    const CellVelocityDifference d = cell_velocity_difference(m, flux, reference);
    ASSERT_GT(d.max_speed, 0.05);
    EXPECT_LE(d.relative(), 1e-4);
    std::printf("GPU − CPU: %.3e of the max speed\n", d.relative());
  }
}

}  // namespace
}  // namespace ss::test
