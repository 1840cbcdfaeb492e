// The exact fractional-step method (physics/exact_fractional_step.hpp, streamfunction_boundary.hpp):
//  - the boundary lift gives every prescribed face its flux, the harmonic basis carries none, and
//    the basis has one field per extra pressure patch and two per handle of the domain;
//  - unbalanced closed boundaries and non-manifold boundaries are clear errors;
//  - U = C s is divergence-free to round-off at every step (CPU reference: ≤ 1e-12 of the flux
//    scale) however loose the CG tolerance, on a simply connected box, a duct with two pressure
//    boundaries and a channel with a square hole through it (the flow splits around the hole);
//  - on the hole channel, the steady flux through each of the two passages (the harmonic part) is
//    the classical method's steady one.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "mesh/box_mesh.hpp"
#include "mesh/geometry.hpp"
#include "physics/flow_test_util.hpp"

namespace ss::test {
namespace {

// A channel [0,4]×[0,2]×[0,1] (nx = 4·n hexes along x) with the square column [1.5,2.5]×[0.5,1.5]
// removed through its whole height: a domain with one handle. The hole's faces are group 8 "hole".
LoadedMesh channel_with_hole(int n) {
  TetMesh box = make_box_mesh(8 * n, 4 * n, 2 * n, glm::dvec3(4, 2, 1));
  TetMesh m = box;
  m.tets.clear(), m.tet_groups.clear();
  const auto in_hole = [](const glm::dvec3& c) { return c.x > 1.5 && c.x < 2.5 && c.y > 0.5 && c.y < 1.5; };
  std::map<std::array<std::int32_t, 3>, int> face_count;
  for (const Tet& t : box.tets) {
    const glm::dvec3 c = 0.25 * (box.nodes[size_t(t[0])] + box.nodes[size_t(t[1])] + box.nodes[size_t(t[2])] +
                                 box.nodes[size_t(t[3])]);
    if (in_hole(c)) continue;
    m.tets.push_back(t), m.tet_groups.push_back(7);
    for (int k = 0; k < 4; ++k) {
      std::array<std::int32_t, 3> f{t[size_t(kTetFaceNodes[k][0])], t[size_t(kTetFaceNodes[k][1])],
                                    t[size_t(kTetFaceNodes[k][2])]};
      std::sort(f.begin(), f.end());
      ++face_count[f];
    }
  }
  std::map<std::array<std::int32_t, 3>, bool> outer;  // the box's triangles that are still faces
  m.boundary_triangles.clear(), m.triangle_groups.clear();
  for (size_t i = 0; i < box.boundary_triangles.size(); ++i) {
    const Triangle& tri = box.boundary_triangles[i];
    std::array<std::int32_t, 3> f{tri[0], tri[1], tri[2]};
    std::sort(f.begin(), f.end());
    if (!face_count.count(f)) continue;
    outer[f] = true;
    m.boundary_triangles.push_back(tri), m.triangle_groups.push_back(box.triangle_groups[i]);
  }
  for (const auto& [f, count] : face_count)
    if (count == 1 && !outer.count(f)) m.boundary_triangles.push_back({f[0], f[1], f[2]}), m.triangle_groups.push_back(8);
  m.surface_group_names[8] = "hole";
  return prepare_mesh(std::move(m));
}

const LoadedMesh& box(int nx, int ny, int nz, glm::dvec3 extent) {
  static std::map<std::string, std::unique_ptr<LoadedMesh>> cache;
  auto& slot = cache[std::to_string(nx) + "x" + std::to_string(ny) + "x" + std::to_string(nz) + "/" +
                     std::to_string(extent.x) + "," + std::to_string(extent.y) + "," + std::to_string(extent.z)];
  if (!slot) slot = std::make_unique<LoadedMesh>(prepare_mesh(make_box_mesh(nx, ny, nz, extent)));
  return *slot;
}

const LoadedMesh& hole_channel() {
  static const LoadedMesh m = channel_with_hole(1);
  return m;
}

FlowCondition moving(glm::dvec3 u) {
  return wall([u](const glm::dvec3&, double) { return u; });
}

// Problems: the cavity (closed, moving lid), a duct with a velocity inlet and a pressure outlet,
// a duct between two pressure boundaries, the hole channel with a parabolic inlet.
FlowProblem cavity(const LoadedMesh& m) {
  FlowProblem p;
  assign_by_group(p, m, {{"zmax", moving({1, 0, 0})}, {"zmin", wall()}, {"xmin", wall()}, {"xmax", wall()},
                         {"ymin", wall()}, {"ymax", wall()}});
  return p;
}
FlowProblem duct(const LoadedMesh& m, bool pressure_inlet) {
  FlowProblem p;
  const FlowCondition inlet =
      pressure_inlet ? pressure_outlet(1.0)
                     : wall([](const glm::dvec3& x, double) { return glm::dvec3(16 * x.y * (1 - x.y) * x.z * (1 - x.z), 0, 0); });
  assign_by_group(p, m, {{"xmin", inlet}, {"xmax", pressure_outlet(0.0)}, {"ymin", wall()}, {"ymax", wall()},
                         {"zmin", wall()}, {"zmax", wall()}});
  return p;
}
FlowProblem channel(const LoadedMesh& m) {
  FlowProblem p;
  const FlowCondition inlet = wall([](const glm::dvec3& x, double) { return glm::dvec3(x.y * (2 - x.y), 0, 0); });
  assign_by_group(p, m, {{"xmin", inlet}, {"xmax", pressure_outlet(0.0)}, {"ymin", wall()}, {"ymax", wall()},
                         {"zmin", wall()}, {"zmax", wall()}, {"hole", wall()}});
  return p;
}

// (C s)_f on every prescribed face equals `flux` there to `tolerance` of the largest.
void expect_lift_matches(const LoadedMesh& m, const FlowProblem& p, const std::vector<double>& s,
                         const std::vector<double>& flux, double tolerance = 1e-12) {
  CpuMeshOperators ops(m);
  std::vector<double> curl;
  ops.curl(s, curl);
  const auto kinds = p.boundary_kinds();
  double scale = 0, worst = 0;
  for (double v : flux) scale = std::max(scale, std::fabs(v));
  for (size_t k = 0; k < kinds.size(); ++k) {
    if (kinds[k] == FlowBoundaryKind::pressure) continue;
    const size_t f = size_t(m.topology.boundary_faces[k]);
    worst = std::max(worst, std::fabs(curl[f] - flux[f]));
  }
  EXPECT_LE(worst, tolerance * std::max(scale, 1.0));
}

TEST(StreamfunctionBoundary, LiftGivesEveryPrescribedFaceItsFlux) {
  struct Case {
    const char* name;
    const LoadedMesh* mesh;
    FlowProblem problem;
    size_t harmonic;
  };
  const LoadedMesh& cube = box(3, 4, 5, glm::dvec3(1.0));
  const LoadedMesh& long_box = box(6, 3, 3, glm::dvec3(2, 1, 1));
  const std::vector<Case> cases = {{"cavity", &cube, cavity(cube), 0},
                                   {"velocity-driven duct", &long_box, duct(long_box, false), 0},
                                   {"pressure-driven duct", &long_box, duct(long_box, true), 1},
                                   {"channel with a hole", &hole_channel(), channel(hole_channel()), 2}};
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const StreamfunctionBoundary b = build_streamfunction_boundary(*c.mesh, c.problem);
    EXPECT_EQ(b.harmonic.size(), c.harmonic);
    const FlowBoundaryValues values = evaluate_boundary(c.problem, *c.mesh, 0.0);
    const std::vector<double> s = streamfunction_lift(b, values.flux);
    expect_lift_matches(*c.mesh, c.problem, s, values.flux);
    for (size_t e = 0; e < s.size(); ++e) {
      if (b.free_edge_mask[e] != 0.0) {
        ASSERT_EQ(s[e], 0.0) << "the lift touches free edge " << e;
      }
    }
    for (const auto& h : b.harmonic) expect_lift_matches(*c.mesh, c.problem, h, std::vector<double>(values.flux.size(), 0.0));
  }
}

TEST(StreamfunctionBoundary, SmallImbalanceIsSpreadLargeIsAnError) {
  const LoadedMesh& cube = box(3, 3, 3, glm::dvec3(1.0));
  FlowProblem p;
  assign_by_group(p, cube, {{"xmin", moving({1, 0, 0})}, {"xmax", wall()}, {"ymin", wall()}, {"ymax", wall()},
                            {"zmin", wall()}, {"zmax", wall()}});
  const StreamfunctionBoundary b = build_streamfunction_boundary(cube, p);
  std::vector<double> flux = evaluate_boundary(p, cube, 0.0).flux;
  try {
    streamfunction_lift(b, flux);
    FAIL() << "an inflow through a closed box must be an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("do not balance"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("'xmin'"), std::string::npos) << e.what();
  }
  // Uniform flow through the box, in at xmin and out at xmax: balanced. An imbalance of 1e-6 of the
  // flux (quadrature of a divergence-free boundary velocity) is spread over the faces with flux.
  FlowProblem through;
  assign_by_group(through, cube, {{"xmin", moving({1, 0, 0})}, {"xmax", moving({1, 0, 0})}, {"ymin", wall()},
                                  {"ymax", wall()}, {"zmin", wall()}, {"zmax", wall()}});
  std::vector<double> balanced = evaluate_boundary(through, cube, 0.0).flux;
  std::vector<double> unbalanced = balanced;
  for (std::int32_t f : cube.topology.boundary_faces)
    if (balanced[size_t(f)] > 0) unbalanced[size_t(f)] *= 1 + 1e-6;
  const StreamfunctionBoundary bt = build_streamfunction_boundary(cube, through);
  std::vector<double> s;
  ASSERT_NO_THROW(s = streamfunction_lift(bt, unbalanced));
  expect_lift_matches(cube, through, s, balanced, 2e-6);  // the spread moved 1e-6 of each inflow
  CpuMeshOperators ops(cube);
  std::vector<double> curl;
  ops.curl(s, curl);
  double net = 0;
  for (std::int32_t f : cube.topology.boundary_faces) net += curl[size_t(f)];
  EXPECT_NEAR(net, 0.0, 1e-14);
}

// Runs `p` (exact method) on the CPU reference; every step's max |D U| / max |U| ≤ 1e-12. Returns
// the final flux.
std::vector<double> run_exact(const LoadedMesh& m, FlowProblem p, FlowMethod method = FlowMethod::exact) {
  p.method = method;
  return run_flow_on_cpu(m, p, [method](const FlowStepInfo& info) {
           if (method == FlowMethod::exact) {
             EXPECT_LE(info.max_divergence, 1e-12) << "step " << info.step << " (0: after the start)";
           }
         }).flux;
}

FlowProblem timed(FlowProblem p, double nu, double tolerance) {
  p.viscosity = nu;
  p.time.dt = 0.05;
  p.time.steps = 4;
  p.momentum.tolerance = p.pressure.tolerance = p.streamfunction.tolerance = tolerance;
  return p;
}

TEST(ExactFlow, DivergenceIsRoundOffWhateverTheTolerance) {
  const LoadedMesh& long_box = box(6, 3, 3, glm::dvec3(2, 1, 1));
  for (double tolerance : {1e-2, 1e-8}) {
    SCOPED_TRACE("tolerance " + std::to_string(tolerance));
    run_exact(box(3, 4, 5, glm::dvec3(1.0)), timed(cavity(box(3, 4, 5, glm::dvec3(1.0))), 0.01, tolerance));
    run_exact(long_box, timed(duct(long_box, true), 0.1, tolerance));
    run_exact(hole_channel(), timed(channel(hole_channel()), 0.1, tolerance));
  }
}

// The grad–div gauge's gradients (streamfunction_kernel): their curl is zero on every face and
// they vanish on every fixed edge, so they lie in the kernel of the streamfunction operator; there
// is one column per node, with entries exactly for the nodes off the fixed edges.
TEST(StreamfunctionKernel, GradientsHaveNoCurlAndVanishOnFixedEdges) {
  const LoadedMesh& long_box = box(6, 3, 3, glm::dvec3(2, 1, 1));
  struct Case {
    const char* name;
    const LoadedMesh* mesh;
    FlowProblem problem;
  };
  const std::vector<Case> cases = {{"pressure-driven duct", &long_box, duct(long_box, true)},
                                   {"channel with a hole", &hole_channel(), channel(hole_channel())}};
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const Topology& t = c.mesh->topology;
    const StreamfunctionBoundary b = build_streamfunction_boundary(*c.mesh, c.problem);
    const StreamfunctionKernel k = streamfunction_kernel(t, b.free_edge_mask);
    ASSERT_EQ(k.gradient.rows, t.num_edges);
    std::vector<bool> on_fixed(size_t(t.num_nodes), false);
    for (size_t e = 0; e < size_t(t.num_edges); ++e)
      if (b.free_edge_mask[e] == 0.0) on_fixed[size_t(t.edge_nodes[e][0])] = on_fixed[size_t(t.edge_nodes[e][1])] = true;
    ASSERT_EQ(k.gradient.cols, t.num_nodes);
    std::vector<bool> has_entries(size_t(t.num_nodes), false), on_an_edge(size_t(t.num_nodes), false);
    for (std::int32_t c : k.gradient.columns) has_entries[size_t(c)] = true;
    for (const auto& ends : t.edge_nodes) on_an_edge[size_t(ends[0])] = on_an_edge[size_t(ends[1])] = true;
    for (size_t n = 0; n < on_fixed.size(); ++n) {  // (a node of no tet has no edges: no entries)
      ASSERT_EQ(has_entries[n], on_an_edge[n] && !on_fixed[n]) << "node " << n;
      ASSERT_EQ(k.degree[n] > 0, has_entries[n]) << "node " << n;
    }
    std::vector<double> phi(size_t(k.gradient.cols)), s, curl;
    for (size_t p = 0; p < phi.size(); ++p) phi[p] = std::sin(0.7 * double(p)) + 0.01 * double(p);
    k.gradient.multiply(phi, s);
    double largest = 0;
    for (size_t e = 0; e < s.size(); ++e) {
      largest = std::max(largest, std::fabs(s[e]));
      if (b.free_edge_mask[e] == 0.0) {
        ASSERT_EQ(s[e], 0.0) << "fixed edge " << e;
      }
    }
    EXPECT_GT(largest, 0.1);
    CpuMeshOperators ops(*c.mesh);
    ops.curl(s, curl);
    for (size_t f = 0; f < curl.size(); ++f) ASSERT_LE(std::fabs(curl[f]), 1e-12 * largest) << "face " << f;
  }
}

// The gauge changes the streamfunction's gradient part only: the fluxes with and without it agree
// to the solver tolerance (CPU reference, pressure-driven duct and hole channel).
TEST(ExactFlow, TheGaugeLeavesTheFluxUnchanged) {
  const LoadedMesh& long_box = box(6, 3, 3, glm::dvec3(2, 1, 1));
  for (const auto& [mesh, problem] : {std::make_pair(&long_box, timed(duct(long_box, true), 0.1, 1e-11)),
                                      std::make_pair(&hole_channel(), timed(channel(hole_channel()), 0.1, 1e-11))}) {
    FlowProblem without = problem;
    without.streamfunction_gauge = false;
    const std::vector<double> a = run_exact(*mesh, problem), b = run_exact(*mesh, without);
    double largest = 0, difference = 0;
    for (size_t f = 0; f < a.size(); ++f)
      largest = std::max(largest, std::fabs(a[f])), difference = std::max(difference, std::fabs(a[f] - b[f]));
    EXPECT_GT(largest, 0.0);
    EXPECT_LE(difference, 1e-8 * largest);
  }
}

// The auxiliary-space preconditioner changes how the streamfunction is found, not what it is: the
// fluxes with it and with Jacobi agree to the solver tolerance (CPU reference: cavity, duct with two
// pressure boundaries, hole channel with its harmonic part), in far fewer iterations.
TEST(ExactFlow, TheAuxiliarySpacePreconditionerLeavesTheFluxUnchanged) {
  const LoadedMesh& cube = box(3, 4, 5, glm::dvec3(1.0));
  const LoadedMesh& long_box = box(6, 3, 3, glm::dvec3(2, 1, 1));
  for (const auto& [mesh, problem] : {std::make_pair(&cube, timed(cavity(cube), 0.01, 1e-11)),
                                      std::make_pair(&long_box, timed(duct(long_box, true), 0.1, 1e-11)),
                                      std::make_pair(&hole_channel(), timed(channel(hole_channel()), 0.1, 1e-11))}) {
    FlowProblem ams = problem, jacobi = problem;
    ams.method = jacobi.method = FlowMethod::exact;
    ams.streamfunction_preconditioner = StreamfunctionPreconditioner::ams;
    jacobi.streamfunction_preconditioner = StreamfunctionPreconditioner::jacobi;
    long ams_iterations = 0, jacobi_iterations = 0;
    const std::vector<double> a =
        run_flow_on_cpu(*mesh, ams, [&](const FlowStepInfo& i) { ams_iterations += i.streamfunction_iterations; }).flux;
    const std::vector<double> b =
        run_flow_on_cpu(*mesh, jacobi, [&](const FlowStepInfo& i) { jacobi_iterations += i.streamfunction_iterations; })
            .flux;
    double largest = 0, difference = 0;
    for (size_t f = 0; f < a.size(); ++f)
      largest = std::max(largest, std::fabs(a[f])), difference = std::max(difference, std::fabs(a[f] - b[f]));
    std::printf("%d cells: flux difference %.2e of max |U|, streamfunction iterations ams %ld, jacobi %ld\n",
                mesh->topology.num_cells, difference / largest, ams_iterations, jacobi_iterations);
    EXPECT_GT(largest, 0.0);
    EXPECT_LE(difference, 1e-8 * largest);
    EXPECT_LT(2 * ams_iterations, jacobi_iterations);
  }
}

// The auxiliary-space preconditioner is set up once a run, and its vector space recombined per class
// of its system's viscous-to-mass ratio x = νθΔt ℓ_v/ℓ_m (exact_fractional_step.hpp), used rescaled
// for every Δt of the class. On the project's cavity mesh with a CFL-driven Δt that grows 1.2× a
// step (13–15× over 15 steps): at Re 1000 x stays below 1/4 and nothing is recombined; at ν = 1 x
// moves through classes 4× apart, each recombined once (868 streamfunction iterations in all, against
// 858 with a set-up of its own for each class). Either way the fluxes are the Jacobi-preconditioned
// run's to the solver tolerance.
TEST(ExactFlow, AuxiliarySpaceIsSetUpOnceAndRecombinedPerClassOfTheViscousRatio) {
  const LoadedMesh& m = project_mesh("cavity.msh", 0);
  struct Case {
    double viscosity, cfl;
    int min_updates, max_updates;
  };
  for (const Case& c : {Case{0.001, 0.5, 0, 0}, Case{1.0, 5.0, 2, 4}}) {  // measured 0 and 3
    FlowProblem p;
    assign_by_group(p, m, {{"lid", moving({1, 0, 0})}, {"walls", wall()}});
    p.viscosity = c.viscosity;
    p.method = FlowMethod::exact;
    p.time.dt = 0.002, p.time.cfl = c.cfl, p.time.max_dt = 1.0, p.time.steps = 15;
    p.momentum.tolerance = p.pressure.tolerance = p.streamfunction.tolerance = 1e-8;
    FlowProblem jacobi = p;
    p.streamfunction_preconditioner = StreamfunctionPreconditioner::ams;
    jacobi.streamfunction_preconditioner = StreamfunctionPreconditioner::jacobi;
    CpuFlowRun ams_run(m, p), jacobi_run(m, jacobi);
    FlowStepInfo info;
    double first_dt = 0;
    while (!ams_run.solver.finished()) {
      ASSERT_TRUE(ams_run.solver.step(info)) << ams_run.solver.failure();
      if (first_dt == 0) first_dt = info.dt;
      ASSERT_TRUE(jacobi_run.solver.step(info)) << jacobi_run.solver.failure();
    }
    const std::vector<double> a = ams_run.cpu.download(ams_run.solver.flux()),
                              b = jacobi_run.cpu.download(jacobi_run.solver.flux());
    double largest = 0, difference = 0;
    for (size_t f = 0; f < a.size(); ++f)
      largest = std::max(largest, std::fabs(a[f])), difference = std::max(difference, std::fabs(a[f] - b[f]));
    const FlowTotals& totals = ams_run.solver.totals();
    const int setups = totals.streamfunction_preconditioner_setups, updates = totals.streamfunction_preconditioner_updates;
    std::printf("nu %g: dt %.2e -> %.2e, %d auxiliary-space set-up, %d recombined, flux %.2e of max |U| from Jacobi's\n",
                c.viscosity, first_dt, info.dt, setups, updates, difference / largest);
    EXPECT_GT(info.dt, 10 * first_dt);  // the step grew: a set-up per power of 2 of νθΔt would make 5
    EXPECT_EQ(setups, 1);
    EXPECT_GE(updates, c.min_updates);
    EXPECT_LE(updates, c.max_updates);
    EXPECT_LE(difference, 1e-6 * largest);  // solves to 1e-8: measured 3.7e-8 and 4.5e-8
  }
}

// Each step solves for the streamfunction's increment from the momentum residual of Uⁿ = C sⁿ, so
// a restart from a state without s (a classical run's checkpoint) first projects its flux onto a
// streamfunction: the flux stays (it is divergence-free to the pressure tolerance already) and the
// exact steps go on divergence-free to round-off, as the same steps from the exact run's own state.
TEST(ExactFlow, RestartFromAClassicalStateProjectsItsFlux) {
  const LoadedMesh& long_box = box(6, 3, 3, glm::dvec3(2, 1, 1));
  FlowProblem classical = timed(duct(long_box, true), 0.1, 1e-11);
  classical.method = FlowMethod::classical;
  CpuFlowRun first(long_box, classical);
  first.solver.start();
  FlowStepInfo info;
  for (int k = 0; k < 3; ++k) ASSERT_TRUE(first.solver.step(info)) << first.solver.failure();
  const FlowState state = first.solver.state();
  ASSERT_TRUE(state.streamfunction.empty());

  FlowProblem exact = classical;
  exact.method = FlowMethod::exact;
  CpuFlowRun second(long_box, exact);
  second.solver.restore(state);
  EXPECT_LE(largest_change(state.flux, second.cpu.download(second.solver.flux())), 1e-8);
  EXPECT_LE(second.solver.diagnostics().max_divergence, 1e-12);
  ASSERT_TRUE(second.solver.step(info)) << second.solver.failure();
  EXPECT_LE(info.max_divergence, 1e-12);
  EXPECT_GT(info.kinetic_energy, 0.0);
}

// A solve that stops short names what it reached: the iterations, the relative residual and the
// tolerance (in float32 a residual stalled above the tolerance is the precision's floor; the user
// needs the number to choose a tolerance). Streamfunction (exact), momentum and pressure (classical).
TEST(ExactFlow, AStalledSolveNamesItsResidualAndTolerance) {
  const LoadedMesh& m = box(3, 4, 5, glm::dvec3(1.0));
  const auto first_step_failure = [&](const FlowProblem& p) {
    CpuFlowRun run(m, p);
    run.solver.start();
    FlowStepInfo info;
    EXPECT_FALSE(run.solver.step(info));
    return run.solver.failure();
  };
  FlowProblem exact = timed(cavity(m), 0.01, 1e-12);
  exact.method = FlowMethod::exact;
  exact.streamfunction.max_iterations = 3;
  std::string failure = first_step_failure(exact);
  EXPECT_NE(failure.find("streamfunction: max_iterations after 3 iterations (relative residual "), std::string::npos)
      << failure;
  EXPECT_NE(failure.find(", tolerance 1e-12)"), std::string::npos) << failure;
  FlowProblem classical = timed(cavity(m), 0.01, 1e-12);
  classical.momentum.max_iterations = 2;
  failure = first_step_failure(classical);
  EXPECT_NE(failure.find("momentum solve: max_iterations after 2 iterations (relative residual "), std::string::npos)
      << failure;
  classical = timed(cavity(m), 0.01, 1e-12);
  classical.pressure.max_iterations = 1;
  classical.pressure.multigrid = false;
  failure = first_step_failure(classical);
  EXPECT_NE(failure.find("max_iterations after 1 iterations (relative residual "), std::string::npos) << failure;
}

// Steady Stokes flow in the hole channel: the flux through the plane x = 2 on each side of the
// hole (y < 1, y > 1) — the harmonic part the boundary lift cannot fix — is what the classical
// method finds at steady state, nearly even (the Kuhn mesh is not mirror-symmetric), and together
// the inflow.
TEST(ExactFlow, ChannelFlowSplitsAroundTheHoleAsTheClassicalMethodFinds) {
  const LoadedMesh& m = hole_channel();
  FlowProblem p = timed(channel(m), 1.0, 1e-11);
  p.convection = Convection::none;
  p.time.dt = 0.2, p.time.steps = 300;  // implicit Euler, ν = 1 on a unit section: steady Stokes
  // The classical method on the face fluxes: its K applies the same Chebyshev M̃_e⁻¹ as the exact
  // method's (the vorticity system's exact M_e⁻¹ moves this viscous flow by ~2e-4).
  p.momentum_system = MomentumSystem::flux;
  const std::vector<double> exact = run_exact(m, p), classical = run_exact(m, p, FlowMethod::classical);
  double below = 0, above = 0, inflow = 0, max_diff = 0, max_flux = 0;
  for (std::int32_t f = 0; f < m.topology.num_faces; ++f) {
    const glm::dvec3 c = m.geometry.face_centroids[size_t(f)], n = m.geometry.face_normals[size_t(f)];
    max_diff = std::max(max_diff, std::fabs(exact[size_t(f)] - classical[size_t(f)]));
    max_flux = std::max(max_flux, std::fabs(exact[size_t(f)]));
    if (std::fabs(c.x - 2.0) < 1e-9 && std::fabs(std::fabs(n.x) - 1) < 1e-9) {
      (c.y < 1 ? below : above) += exact[size_t(f)] * n.x;
    }
    if (std::fabs(c.x) < 1e-9 && m.topology.face_cells[size_t(f)][1] < 0) inflow -= exact[size_t(f)];
  }
  EXPECT_GT(inflow, 1.0);  // ∫∫ y(2 − y) dy dz = 4/3
  double classical_below = 0;
  for (std::int32_t f = 0; f < m.topology.num_faces; ++f) {
    const glm::dvec3 c = m.geometry.face_centroids[size_t(f)], n = m.geometry.face_normals[size_t(f)];
    if (std::fabs(c.x - 2.0) < 1e-9 && std::fabs(std::fabs(n.x) - 1) < 1e-9 && c.y < 1)
      classical_below += classical[size_t(f)] * n.x;
  }
  std::printf("hole channel: inflow %.6f, below %.6f (classical %.6f), above %.6f, max flux diff %.2e\n", inflow,
              below, classical_below, above, max_diff / max_flux);
  EXPECT_NEAR(below, classical_below, 1e-6 * inflow);
  EXPECT_NEAR(below, above, 0.05 * inflow);
  EXPECT_NEAR(below + above, inflow, 1e-10 * inflow);
  EXPECT_LE(max_diff, 1e-5 * max_flux);
}

}  // namespace
}  // namespace ss::test
