// The flow command's layers below the app: a case file becomes a FlowProblem on the mesh (groups by
// name or number, every boundary face covered, one-line errors), checkpoints round-trip exactly and
// refuse damaged files, and the output fields of a uniform flow are what they must be.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <glm/geometric.hpp>

#include "problems/flow_case_problem.hpp"
#include "postprocess/flow_fields.hpp"
#include "postprocess/flow_state_file.hpp"
#include "physics/flow_test_util.hpp"

namespace ss::test {
namespace {

namespace fs = std::filesystem;

// Anchored in meshes/ so `file = "cavity.msh"` resolves.
const std::string kCasePath = std::string(SS_SOURCE_DIR) + "/meshes/test.toml";

FlowCase cavity_case(const std::string& boundaries) {
  return parse_flow_case("[mesh]\nfile = \"cavity.msh\"\n[fluid]\nviscosity = 0.01\n" + boundaries +
                             "[time]\ndt = 0.01\nsteps = 3\n",
                         kCasePath);
}

const std::string kLidAndWalls =
    "[[boundary]]\ngroup = \"lid\"\ntype = \"wall\"\nvelocity = [1, 0, 0]\n"
    "[[boundary]]\ngroup = \"walls\"\ntype = \"wall\"\n";

std::string error_of(const FlowCase& c, const LoadedMesh& m) {
  try {
    build_flow_problem(c, m);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(FlowCaseProblem, CavityLidMovesWallsRest) {
  const LoadedMesh& m = project_mesh("cavity.msh", 0);
  const FlowProblem p = build_flow_problem(cavity_case(kLidAndWalls), m);
  EXPECT_EQ(p.viscosity, 0.01);
  EXPECT_EQ(p.time.steps, 3);
  EXPECT_EQ(p.time.max_dt, 0.01);
  EXPECT_EQ(p.time_scheme, TimeScheme::crank_nicolson);  // the case files' default, θ = ½
  EXPECT_EQ(p.theta, 0.5);
  EXPECT_FALSE(p.time_dependent());
  ASSERT_EQ(p.boundary_condition.size(), m.topology.boundary_faces.size());
  const FlowBoundaryValues b = evaluate_boundary(p, m, 0.0);
  int lid = 0;
  for (size_t k = 0; k < m.topology.boundary_faces.size(); ++k) {
    const size_t f = size_t(m.topology.boundary_faces[k]);
    const bool on_lid = m.geometry.face_centroids[f].z > 1.0 - 1e-9;
    lid += on_lid;
    EXPECT_EQ(p.conditions[size_t(p.boundary_condition[k])].kind, FlowBoundaryKind::velocity);
    EXPECT_EQ(b.bx[k], on_lid ? 1.0 : 0.0) << "face " << f;
    EXPECT_EQ(b.flux[f], 0.0);  // tangential lid velocity, walls at rest: no flux through any face
  }
  EXPECT_GT(lid, 0);
}

TEST(FlowCaseProblem, GroupsByNumberKindsAndTimeDependence) {
  const LoadedMesh& m = project_mesh("cavity.msh", 0);
  const FlowProblem p = build_flow_problem(
      cavity_case("[[boundary]]\ngroup = 1\ntype = \"pressure\"\npressure = \"t\"\n"
                  "[[boundary]]\ngroup = \"2\"\ntype = \"slip\"\n"),
      m);
  ASSERT_EQ(p.conditions.size(), 2u);
  EXPECT_EQ(p.conditions[0].kind, FlowBoundaryKind::pressure);
  EXPECT_EQ(p.conditions[0].label, "lid");
  EXPECT_EQ(p.conditions[1].kind, FlowBoundaryKind::slip);
  EXPECT_TRUE(p.time_dependent());
  EXPECT_EQ(p.conditions[0].pressure(glm::dvec3(0.5), 2.5), 2.5);
}

TEST(FlowCaseProblem, UnknownGroupNamesTheCaseLine) {
  const LoadedMesh& m = project_mesh("cavity.msh", 0);
  const std::string e = error_of(cavity_case(kLidAndWalls + "[[boundary]]\ngroup = \"inlet\"\ntype = \"slip\"\n"), m);
  EXPECT_NE(e.find(kCasePath + ":12: unknown boundary group 'inlet'; the mesh has lid (1), walls (2)"),
            std::string::npos) << e;
}

TEST(FlowCaseProblem, BoundaryGroupWithoutConditionIsAnError) {
  const LoadedMesh& m = project_mesh("cavity.msh", 0);
  const std::string e = error_of(cavity_case("[[boundary]]\ngroup = \"lid\"\ntype = \"wall\"\n"), m);
  EXPECT_NE(e.find("boundary group 'walls' (2)"), std::string::npos) << e;
  EXPECT_NE(e.find("has no [[boundary]] condition"), std::string::npos) << e;
  EXPECT_EQ(e.find('\n'), std::string::npos) << e;
}

TEST(FlowCaseProblem, TheSameGroupTwiceIsAnError) {
  const LoadedMesh& m = project_mesh("cavity.msh", 0);
  const std::string e = error_of(cavity_case(kLidAndWalls + "[[boundary]]\ngroup = 1\ntype = \"slip\"\n"), m);
  EXPECT_NE(e.find("already has a [[boundary]]"), std::string::npos) << e;
}

TEST(FlowCaseProblem, ForceGroupsResolveByNameOrNumber) {
  const LoadedMesh& m = project_mesh("cavity.msh", 0);
  const FlowProblem p = build_flow_problem(
      cavity_case(kLidAndWalls + "[[force]]\ngroup = \"lid\"\n[[force]]\ngroup = 2\nreference_velocity = 1\n"
                                 "reference_area = 1\n"),
      m);
  ASSERT_EQ(p.forces.size(), 2u);
  EXPECT_EQ(p.forces[0].label, "lid");
  EXPECT_FALSE(p.forces[0].has_coefficients());
  EXPECT_EQ(p.forces[1].group, 2);
  EXPECT_EQ(p.forces[1].label, "walls");
  EXPECT_TRUE(p.forces[1].has_coefficients());
}

TEST(FlowCaseProblem, UnknownOrRepeatedForceGroupIsAnError) {
  const LoadedMesh& m = project_mesh("cavity.msh", 0);
  const std::string unknown = error_of(cavity_case(kLidAndWalls + "[[force]]\ngroup = \"cylinder\"\n"), m);
  EXPECT_NE(unknown.find("test.toml:12: unknown boundary group 'cylinder'"), std::string::npos) << unknown;
  const std::string twice =
      error_of(cavity_case(kLidAndWalls + "[[force]]\ngroup = \"lid\"\n[[force]]\ngroup = 1\n"), m);
  EXPECT_NE(twice.find("test.toml:14: [[force]] group '1' is lid, which already has a [[force]]"), std::string::npos)
      << twice;
}

TEST(FlowCaseProblem, NonFiniteBoundaryVelocityIsAnError) {
  const LoadedMesh& m = project_mesh("cavity.msh", 0);
  const std::string e = error_of(
      cavity_case("[[boundary]]\ngroup = \"lid\"\ntype = \"wall\"\nvelocity = [\"1/(z-1)\", 0, 0]\n"
                  "[[boundary]]\ngroup = \"walls\"\ntype = \"wall\"\n"),
      m);
  EXPECT_NE(e.find(kCasePath + ":5: [[boundary]] velocity of group 'lid' is not finite"), std::string::npos) << e;
}

FlowState sample_state(std::int64_t faces, std::int64_t cells) {
  FlowState s;
  s.step = 42, s.time = 0.1 + 0.2, s.dt = 1.0 / 3.0;
  for (std::int64_t i = 0; i < faces; ++i) s.flux.push_back(std::sin(double(i)) * 1e-3);
  for (std::int64_t i = 0; i < cells; ++i) s.pressure.push_back(std::cos(double(i)) / 7.0);
  for (std::int64_t i = 0; i < faces; ++i) s.previous_flux.push_back(std::sin(double(i) + 0.5) * 1e-3);
  for (std::int64_t i = 0; i < faces; ++i) s.previous_convection.push_back(std::cos(double(i) + 0.75) * 1e-2);
  for (std::int64_t i = 0; i < faces + cells; ++i) s.streamfunction.push_back(std::cos(double(i) + 0.25) * 1e-4);
  for (std::int64_t i = 0; i < cells; ++i) s.pressure_increment.push_back(std::sin(double(i) + 0.1) * 1e-5);
  for (std::int64_t i = 0; i < cells; ++i) s.previous_pressure_rate.push_back(std::cos(double(i) + 0.2) * 3e-3);
  s.pressure_increment_dt = 0.1 / 3.0, s.previous_pressure_increment_dt = 0.2 / 7.0;
  return s;
}

fs::path fresh_folder(const std::string& name) {
  const fs::path dir = fs::path(SS_BINARY_DIR) / "test_output" / "flow_state_file" / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

TEST(FlowStateFile, RoundTripsExactly) {
  const fs::path dir = fresh_folder("round_trip");
  FlowState s = sample_state(1001, 333);
  const std::string path = (dir / flow_state_name(42)).string();
  write_flow_state(path, s);
  EXPECT_EQ(read_flow_state(path).base_levels, -1);  // the serial run's ids
  s.base_levels = 2;  // an MPI run's partition-then-refine ids
  write_flow_state(path, s);
  const FlowState r = read_flow_state(path);
  EXPECT_EQ(r.base_levels, 2);
  EXPECT_EQ(r.step, 42);
  EXPECT_EQ(r.time, s.time);
  EXPECT_EQ(r.dt, s.dt);
  EXPECT_EQ(r.flux, s.flux);
  EXPECT_EQ(r.pressure, s.pressure);
  EXPECT_EQ(r.previous_flux, s.previous_flux);
  EXPECT_EQ(r.previous_convection, s.previous_convection);
  EXPECT_EQ(r.streamfunction, s.streamfunction);
  EXPECT_EQ(r.pressure_increment, s.pressure_increment);
  EXPECT_EQ(r.previous_pressure_rate, s.previous_pressure_rate);
  EXPECT_EQ(r.pressure_increment_dt, s.pressure_increment_dt);
  EXPECT_EQ(r.previous_pressure_increment_dt, s.previous_pressure_increment_dt);
  FlowState first = s;  // a run's first checkpoint may come before any previous step
  first.previous_flux.clear(), first.previous_convection.clear(), first.previous_pressure_rate.clear();
  first.previous_pressure_increment_dt = 0;
  write_flow_state(path, first);
  EXPECT_TRUE(read_flow_state(path).previous_flux.empty());
  EXPECT_TRUE(read_flow_state(path).previous_convection.empty());
  EXPECT_TRUE(read_flow_state(path).previous_pressure_rate.empty());
  EXPECT_EQ(read_flow_state(path).pressure_increment, s.pressure_increment);
  EXPECT_EQ(read_flow_state(path).flux, s.flux);
  write_flow_state(path, s);
  const FlowState header = read_flow_state_header(path);
  EXPECT_EQ(header.step, 42);
  EXPECT_EQ(header.time, s.time);
  EXPECT_TRUE(header.flux.empty());
  EXPECT_EQ(fs::path(path).filename().string(), "flow_000042.state");
}

// Version 1 (no previous fluxes), as streamsolve wrote it before version 2: still restartable.
TEST(FlowStateFile, ReadsVersionOne) {
  const fs::path dir = fresh_folder("version_one");
  const FlowState s = sample_state(5, 3);
  std::string bytes = "SSFLOWST";
  const auto put = [&bytes](const auto& v) { bytes.append(reinterpret_cast<const char*>(&v), sizeof v); };
  put(std::uint32_t(1)), put(std::int32_t(s.step)), put(s.time), put(s.dt);
  put(std::int64_t(5)), put(std::int64_t(3));
  for (double v : s.flux) put(v);
  for (double v : s.pressure) put(v);
  std::uint64_t hash = 14695981039346656037ull;  // FNV-1a of everything before it
  for (char c : bytes) hash = (hash ^ std::uint8_t(c)) * 1099511628211ull;
  put(hash);
  const std::string path = (dir / flow_state_name(42)).string();
  std::ofstream(path, std::ios::binary) << bytes;
  const FlowState r = read_flow_state(path);
  EXPECT_EQ(r.step, 42);
  EXPECT_EQ(r.flux, s.flux);
  EXPECT_EQ(r.pressure, s.pressure);
  EXPECT_TRUE(r.previous_flux.empty());
  EXPECT_EQ(r.base_levels, -1);
}

TEST(FlowStateFile, DamagedOrShortFilesAreRefused) {
  const fs::path dir = fresh_folder("damaged");
  const std::string path = (dir / "flow_000001.state").string();
  write_flow_state(path, sample_state(50, 20));
  std::string bytes;
  {
    std::ifstream in(path, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  const auto rewrite = [&](const std::string& content) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << content;
  };
  const auto error = [&] {
    try {
      read_flow_state(path);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  std::string flipped = bytes;
  flipped[bytes.size() / 2] ^= 0x10;  // a value's bit
  rewrite(flipped);
  EXPECT_NE(error().find("checksum mismatch"), std::string::npos) << error();
  std::string huge = bytes;  // a face count of 2^61 (offset 32: after magic, version, step, time, dt)
  const std::int64_t faces = std::int64_t(1) << 61;
  std::memcpy(huge.data() + 32, &faces, sizeof faces);
  rewrite(huge);
  EXPECT_NE(error().find("header is damaged"), std::string::npos) << error();
  rewrite(bytes.substr(0, bytes.size() - 9));
  EXPECT_NE(error().find("bytes, its header"), std::string::npos) << error();
  rewrite(bytes.substr(0, 60));  // the header's last count cut off
  EXPECT_NE(error().find("shorter than its header"), std::string::npos) << error();
  rewrite("not a state");
  EXPECT_NE(error().find("not a streamsolve flow state"), std::string::npos) << error();
}

TEST(FlowStateFile, ListsCheckpointsByStep) {
  const fs::path dir = fresh_folder("list");
  for (int step : {10, 2, 100}) write_flow_state((dir / flow_state_name(step)).string(), sample_state(3, 2));
  for (const char* other : {"flow_7.state", "flow_000003.state.tmp.99", "flow_000004.vtu", "heat_000005.state"})
    std::ofstream((dir / other).string()) << "x";
  const std::vector<FlowStateFile> files = list_flow_states(dir.string());
  ASSERT_EQ(files.size(), 3u);
  EXPECT_EQ(files[0].step, 2);
  EXPECT_EQ(files[1].step, 10);
  EXPECT_EQ(files[2].step, 100);
  EXPECT_TRUE(list_flow_states((dir / "missing").string()).empty());
}

// u = (1, 0.5, -0.25) everywhere, prescribed on every boundary face: the reconstruction is exact for
// a constant field (eq. 7.5), so cell and node velocities are u, and divergence and vorticity vanish.
TEST(FlowFields, UniformFlowIsReproduced) {
  const LoadedMesh& m = project_mesh("cube.msh", 0);
  const glm::dvec3 u(1, 0.5, -0.25);
  FlowProblem p;
  std::map<std::string, FlowCondition> by_name;
  for (const auto& [id, name] : m.mesh.surface_group_names)
    by_name[name] = wall([u](const glm::dvec3&, double) { return u; });
  assign_by_group(p, m, by_name);
  FlowState s;
  s.flux = face_fluxes(m, [u](const glm::dvec3&, double) { return u; }, 0.0);
  s.pressure.assign(size_t(m.topology.num_cells), 3.0);
  CpuMeshOperators ops(m);
  const FlowFields f = compute_flow_fields(ops, m, p, s);
  double velocity_error = 0, node_error = 0, divergence = 0, vorticity = 0;
  for (size_t c = 0; c < f.cell_velocity.size(); ++c) {
    velocity_error = std::max(velocity_error, glm::length(f.cell_velocity[c] - u));
    divergence = std::max(divergence, std::fabs(f.divergence[c]));
    vorticity = std::max(vorticity, glm::length(f.vorticity[c]));
  }
  for (const glm::dvec3& v : f.node_velocity) node_error = std::max(node_error, glm::length(v - u));
  // Sums of O(10) terms of size O(1) (velocity) or O(A/V ~ 1/h ~ 10) (divergence, vorticity) in double.
  EXPECT_LT(velocity_error, 1e-12);
  EXPECT_LT(node_error, 1e-12);
  EXPECT_LT(divergence, 1e-10);
  EXPECT_LT(vorticity, 1e-10);
  EXPECT_EQ(f.pressure, s.pressure);
  const FlowDifference same = compare_flow_fields(f, f);
  EXPECT_EQ(same.max_velocity_diff, 0.0);
  EXPECT_NEAR(same.max_speed, glm::length(u), 1e-12);
}

// [exact] velocity: the problem carries it; the error against it is 0 for the exact field itself and
// the relative size of a uniform offset otherwise.
TEST(FlowCaseProblem, ExactVelocityIsCarriedAndMeasured) {
  const LoadedMesh& m = project_mesh("cavity.msh", 0);
  const FlowProblem p = build_flow_problem(cavity_case(kLidAndWalls + "[exact]\nvelocity = [\"z\", 0, 0]\n"), m);
  ASSERT_TRUE(p.exact_velocity);
  EXPECT_EQ(p.exact_velocity(glm::dvec3(0.1, 0.2, 0.75), 0.0), glm::dvec3(0.75, 0, 0));
  EXPECT_FALSE(build_flow_problem(cavity_case(kLidAndWalls), m).exact_velocity);
  FlowFields f;
  for (const glm::dvec3& x : m.geometry.cell_centroids) f.cell_velocity.push_back({x.z, 0, 0});
  EXPECT_EQ(velocity_error(m, f, p.exact_velocity, 1.0).l2, 0.0);
  for (glm::dvec3& u : f.cell_velocity) u.y += 0.5;
  const FlowExactError e = velocity_error(m, f, p.exact_velocity, 1.0);
  double max_speed = 0;
  for (const glm::dvec3& x : m.geometry.cell_centroids) max_speed = std::max(max_speed, x.z);
  EXPECT_NEAR(e.max, 0.5 / max_speed, 1e-12);
  EXPECT_GT(e.l2, 0.5);  // 0.5 / rms(z) with rms(z) = 1/√3 < 1
  EXPECT_EQ(e.time, 1.0);
}

TEST(FlowCaseProblem, ExactTableWithoutVelocityIsAnError) {
  try {
    cavity_case(kLidAndWalls + "[exact]\n");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(kCasePath + ":12: [exact] needs velocity"), std::string::npos) << e.what();
  }
}

// [solver.momentum] preconditioner = "automatic": for implicit convection at a CFL target above 10
// (steady cfl_max or [time] cfl) the point Jacobi that turns to block Jacobi once its solves are
// slow, the point Jacobi otherwise; a written choice holds.
TEST(FlowCaseProblem, MomentumPreconditionerFollowsTheConvectionAndTheCfl) {
  const LoadedMesh& m = project_mesh("cavity.msh");
  const auto problem = [&](const std::string& time_and_more) {
    return build_flow_problem(
        parse_flow_case("[mesh]\nfile = \"cavity.msh\"\n[fluid]\nviscosity = 0.01\n" + kLidAndWalls + time_and_more, kCasePath), m);
  };
  const std::string implicit = "[scheme]\nconvection_time = \"implicit\"\n";
  struct Expect {
    std::string text;
    bool block_jacobi, when_slow;
  };
  for (const Expect& e : {Expect{"[time]\ndt = 0.01\nsteps = 3\ncfl = 0.5\n", false, false},
                          Expect{"[time]\ndt = 0.01\nsteps = 3\ncfl = 10\n" + implicit, false, false},
                          Expect{"[time]\ndt = 0.01\nsteps = 3\ncfl = 50\n" + implicit, false, true},
                          Expect{"[time]\ndt = 0.01\n[steady]\n", false, true},  // cfl_max = 100
                          Expect{"[time]\ndt = 0.01\n[steady]\ncfl_max = 10\n", false, false},
                          Expect{"[time]\ndt = 0.01\n[steady]\n[solver.momentum]\npreconditioner = \"block_jacobi\"\n", true, false},
                          Expect{"[time]\ndt = 0.01\n[steady]\ncfl_max = 20\n[solver.momentum]\npreconditioner = \"jacobi\"\n", false, false}}) {
    const FlowProblem p = problem(e.text);
    EXPECT_EQ(p.momentum.block_jacobi, e.block_jacobi) << e.text;
    EXPECT_EQ(p.momentum.block_jacobi_when_slow, e.when_slow) << e.text;
    EXPECT_EQ(p.momentum.jacobi, !e.block_jacobi) << e.text;
  }
}

// The cavity's problem, 3 steps of 0.01, with `more` (solver tables) after its [time].
FlowProblem cavity_problem_with(const std::string& more) {
  return build_flow_problem(parse_flow_case("[mesh]\nfile = \"cavity.msh\"\n[fluid]\nviscosity = 0.01\n" + kLidAndWalls +
                                                "[time]\ndt = 0.01\nsteps = 3\n" + more,
                                            kCasePath),
                            project_mesh("cavity.msh"));
}

// [solver.pressure] initial_guess: each step's pressure correction from the earlier steps'
// extrapolated (the default) or from 0.
TEST(FlowCaseProblem, PressureInitialGuessIsExtrapolatedUnlessZero) {
  EXPECT_TRUE(cavity_problem_with("").pressure.extrapolated_guess);
  EXPECT_FALSE(cavity_problem_with("[solver.pressure]\ninitial_guess = \"zero\"\n").pressure.extrapolated_guess);
  EXPECT_TRUE(cavity_problem_with("[solver.pressure]\ninitial_guess = \"extrapolated\"\n").pressure.extrapolated_guess);
}

// [solver.momentum] preconditioner = "chebyshev" and its degree (3 unless chebyshev_degree says).
TEST(FlowCaseProblem, MomentumChebyshevCarriesItsDegree) {
  EXPECT_FALSE(cavity_problem_with("[solver.momentum]\npreconditioner = \"jacobi\"\n").momentum.chebyshev);
  const FlowProblem three = cavity_problem_with("[solver.momentum]\npreconditioner = \"chebyshev\"\n");
  EXPECT_TRUE(three.momentum.chebyshev);
  EXPECT_FALSE(three.momentum.jacobi);
  EXPECT_EQ(three.momentum.chebyshev_degree, 3);
  EXPECT_EQ(cavity_problem_with("[solver.momentum]\npreconditioner = \"chebyshev\"\nchebyshev_degree = 7\n")
                .momentum.chebyshev_degree,
            7);
}

// [solver.pressure] smoother_degree: the case's on one device and over MPI ranks; without it 2 on
// one device and 3 over the ranks.
TEST(FlowCaseProblem, PressureSmootherDegree) {
  const FlowProblem automatic = cavity_problem_with("");
  EXPECT_EQ(pressure_smoother_degree(automatic.pressure, false), 2);
  EXPECT_EQ(pressure_smoother_degree(automatic.pressure, true), 3);
  const FlowProblem four = cavity_problem_with("[solver.pressure]\nsmoother_degree = 4\n");
  EXPECT_EQ(pressure_smoother_degree(four.pressure, false), 4);
  EXPECT_EQ(pressure_smoother_degree(four.pressure, true), 4);
}

}  // namespace
}  // namespace ss::test

namespace ss::test {
namespace {

// automatic picks the auxiliary-space preconditioner with the gauge (on one process and over MPI
// ranks alike) and Jacobi without it; asking for ams without the gauge is one error line saying why.
TEST(FlowProblemSettings, StreamfunctionPreconditionerResolvesPerRun) {
  using P = StreamfunctionPreconditioner;
  FlowProblem p;
  EXPECT_EQ(p.resolved_streamfunction_preconditioner(), P::ams);
  p.streamfunction_gauge = false;
  EXPECT_EQ(p.resolved_streamfunction_preconditioner(), P::jacobi);
  p.streamfunction_preconditioner = P::ams;
  EXPECT_THROW(
      {
        try {
          p.resolved_streamfunction_preconditioner();
        } catch (const Error& e) {
          EXPECT_NE(std::string(e.what()).find("preconditioner = \"ams\" does not apply here: it needs gauge = \"grad_div\""),
                    std::string::npos)
              << e.what();
          throw;
        }
      },
      Error);
  p.streamfunction_gauge = true;
  EXPECT_EQ(p.resolved_streamfunction_preconditioner(), P::ams);
  p.streamfunction_preconditioner = P::none;
  EXPECT_EQ(p.resolved_streamfunction_preconditioner(), P::none);
}

}  // namespace
}  // namespace ss::test
