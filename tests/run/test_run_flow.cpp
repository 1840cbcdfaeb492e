// The flow run as a library call (run/run_flow.hpp), in-process, on the lid-driven cavity
// (meshes/cavity.msh, Re 100) for a few fixed steps:
//  - the CPU reference and the GPU agree to float precision (cell velocity and pressure);
//  - the files it promises: flow.json (its figures the result's), flow.vtu, flow.pvd with its
//    snapshots and their checkpoints;
//  - a restart from the last checkpoint continues the run: its end equals a run straight through;
//  - a case naming a boundary group the mesh lacks throws ss::Error naming the case file, before the
//    output folder is made;
//  - the run over MPI ranks on one rank equals the serial run (matched by cell centroid).
#include <gtest/gtest.h>

#include <cmath>
#include <cctype>
#include <fstream>
#include <iterator>
#include <string>
#include <utility>

#include "run/run_flow.hpp"
#include "run_test_util.hpp"
#include "util/error.hpp"

namespace ss::test {
namespace {

const auto* const mpi_finalizer = ::testing::AddGlobalTestEnvironment(new MpiFinalizer);

// The cavity for `steps` fixed steps of 0.01, a snapshot every `every`, Jacobi for the pressure
// (the MPI path on one rank has no multigrid levels), outputs in <dir>/out.
std::string cavity_case(const std::string& dir, int steps, int every, const std::string& lid = "lid") {
  return write_text(dir + "/cavity.toml",
                    "[mesh]\nfile = \"" + project_file("meshes/cavity.msh") +
                        "\"\n[fluid]\nviscosity = 0.01\n"
                        "[[boundary]]\ngroup = \"" + lid + "\"\ntype = \"wall\"\nvelocity = [1.0, 0.0, 0.0]\n"
                        "[[boundary]]\ngroup = \"walls\"\ntype = \"wall\"\n"
                        "[time]\ndt = 0.01\nsteps = " + std::to_string(steps) +
                        "\n[solver.momentum]\ntolerance = 1e-8\n"
                        "[solver.pressure]\ntolerance = 1e-8\npreconditioner = \"jacobi\"\n"
                        "[output]\ndirectory = \"out\"\nevery = " + std::to_string(every) + "\n");
}

FlowRunOptions options_for(const std::string& case_file, const std::string& backend) {
  FlowRunOptions o;
  o.case_file = case_file;
  o.backend = backend;
  o.no_png = true;
  o.keep_fields = true;
  return o;
}

// max |u_a − u_b| over the max speed of `a`, and max |p_a − p_b| over the pressure range of `a`,
// with b's cells matched to a's by centroid.
std::pair<double, double> field_difference(const FlowRunOutcome& a, const FlowRunOutcome& b) {
  const std::vector<int> match = match_points(a.cell_centroids, b.cell_centroids);
  EXPECT_EQ(a.fields.cell_velocity.size(), b.fields.cell_velocity.size());
  double du = 0, dp = 0, speed = 0, p_min = 1e300, p_max = -1e300;
  for (size_t c = 0; c < a.fields.cell_velocity.size(); ++c) {
    const glm::dvec3 u = a.fields.cell_velocity[c];
    speed = std::max(speed, std::sqrt(u.x * u.x + u.y * u.y + u.z * u.z));
    p_min = std::min(p_min, a.fields.pressure[c]), p_max = std::max(p_max, a.fields.pressure[c]);
  }
  for (size_t c = 0; c < match.size(); ++c) {
    EXPECT_GE(match[c], 0) << "cell " << c << " has no match";
    if (match[c] < 0) continue;
    const glm::dvec3 d = b.fields.cell_velocity[c] - a.fields.cell_velocity[size_t(match[c])];
    du = std::max(du, std::sqrt(d.x * d.x + d.y * d.y + d.z * d.z));
    dp = std::max(dp, std::fabs(b.fields.pressure[c] - a.fields.pressure[size_t(match[c])]));
  }
  return {du / speed, dp / (p_max - p_min)};
}

TEST(RunFlow, CavityCpuAndGpuAgree) {
  const std::string dir = fresh_test_dir();
  const std::string case_file = cavity_case(dir, 3, 100);
  FlowRunOptions o = options_for(case_file, "cpu");
  o.out = dir + "/cpu";
  const FlowRunOutcome cpu = run_flow(o);
  o.backend = "gpu";
  o.out = dir + "/gpu";
  const FlowRunOutcome gpu = run_flow(o);
  EXPECT_EQ(cpu.backend, "cpu");
  EXPECT_EQ(gpu.backend, "gpu");
  EXPECT_EQ(gpu.summary["launch"], "fragment");
  EXPECT_EQ(gpu.summary["launch_choice"]["source"], "option");  // RunOptions' gpu.launch, as it is
  EXPECT_FALSE(cpu.summary.contains("launch_choice"));
  for (const FlowRunOutcome* r : {&cpu, &gpu}) {
    EXPECT_EQ(r->run.state.step, 3);
    EXPECT_NEAR(r->run.state.time, 0.03, 1e-12);
    EXPECT_GT(r->max_speed, 0.2);  // the lid (speed 1) drags the cells next to it (0.38 after 3 steps)
  }
  // Float kernels against double: 2.2e-7 (velocity) and 1.4e-7 (pressure) measured on llvmpipe.
  const auto [du, dp] = field_difference(cpu, gpu);
  EXPECT_LE(du, 2e-6);
  EXPECT_LE(dp, 2e-6);
  EXPECT_NEAR(gpu.run.last.kinetic_energy, cpu.run.last.kinetic_energy, 1e-5 * cpu.run.last.kinetic_energy);
}

TEST(RunFlow, WritesItsFilesAndRestartsFromTheLastCheckpoint) {
  const std::string dir = fresh_test_dir();
  // Straight through: 4 steps, a snapshot every 2.
  FlowRunOptions o = options_for(cavity_case(dir, 4, 2), "cpu");
  o.out = dir + "/straight";
  const FlowRunOutcome straight = run_flow(o);
  EXPECT_EQ(straight.out_dir, dir + "/straight");
  EXPECT_EQ(read_json(straight.json_path), straight.summary);
  EXPECT_EQ(straight.summary["steps"].get<int>(), 4);
  EXPECT_EQ(straight.summary["backend"], "cpu");
  EXPECT_TRUE(straight.summary["restarted_from"].is_null());
  EXPECT_TRUE(non_empty_file(dir + "/straight/flow.vtu"));
  EXPECT_EQ(files_in(dir + "/straight"),
            (std::vector<std::string>{"energy.csv", "flow.json", "flow.pvd", "flow.vtu", "flow_000000.state",
                                      "flow_000000.vtu", "flow_000002.state", "flow_000002.vtu", "flow_000004.state",
                                      "flow_000004.vtu"}));

  // 2 steps, then the case asks for 4 and the run continues from step 2.
  o.case_file = cavity_case(dir, 2, 2);
  o.out = dir + "/restarted";
  EXPECT_EQ(run_flow(o).run.state.step, 2);
  o.case_file = cavity_case(dir, 4, 2);
  o.restart = true;
  const FlowRunOutcome restarted = run_flow(o);
  EXPECT_EQ(restarted.summary["restarted_from"].get<int>(), 2);
  EXPECT_EQ(restarted.run.first_step, 2);
  EXPECT_EQ(restarted.run.totals.steps, 2);
  EXPECT_EQ(restarted.run.state.step, 4);
  EXPECT_EQ(files_in(dir + "/restarted"), files_in(dir + "/straight"));
  // energy.csv kept the rows up to the checkpoint and continued: one row a step, steps 1..4.
  std::ifstream energy(dir + "/restarted/energy.csv");
  std::vector<int> steps;
  for (std::string row; std::getline(energy, row);)
    if (!row.empty() && std::isdigit(static_cast<unsigned char>(row[0]))) steps.push_back(std::stoi(row));
  EXPECT_EQ(steps, (std::vector<int>{1, 2, 3, 4}));
  const auto [du, dp] = field_difference(straight, restarted);  // the checkpoint holds the whole state: 0 measured
  EXPECT_LE(du, 1e-12);
  EXPECT_LE(dp, 1e-12);
}

TEST(RunFlow, UnknownBoundaryGroupThrowsBeforeAnyOutput) {
  const std::string dir = fresh_test_dir();
  const std::string case_file = cavity_case(dir, 1, 100, "nowhere");
  for (const bool distributed : {false, true}) {
    FlowRunOptions o = options_for(case_file, "cpu");
    o.distributed = distributed;
    try {
      run_flow(o);
      FAIL() << "no error for a group the mesh lacks";
    } catch (const Error& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("cavity.toml"), std::string::npos) << what;
      EXPECT_NE(what.find("nowhere"), std::string::npos) << what;
    }
    EXPECT_FALSE(fs::exists(dir + "/out")) << (distributed ? "distributed" : "serial");
  }
}

TEST(RunFlow, DistributedOnOneRankEqualsSerial) {
  const std::string dir = fresh_test_dir();
  FlowRunOptions o = options_for(cavity_case(dir, 3, 100), "cpu");
  o.out = dir + "/serial";
  const FlowRunOutcome serial = run_flow(o);
  o.out = dir + "/ranks";
  o.distributed = true;
  o.single_vtu = true;  // rank 0 keeps the whole mesh: its fields come back
  const FlowRunOutcome ranks = run_flow(o);
  EXPECT_TRUE(ranks.reports);
  EXPECT_EQ(ranks.ranks, 1);
  EXPECT_EQ(ranks.summary["ranks"], 1);
  EXPECT_EQ(ranks.run.state.step, 3);
  EXPECT_TRUE(non_empty_file(dir + "/ranks/flow.vtu"));
  EXPECT_EQ(ranks.summary["iterations"]["pressure"]["last"], serial.summary["iterations"]["pressure"]["last"]);
  const auto [du, dp] = field_difference(serial, ranks);  // one rank: the same sums (0 measured)
  EXPECT_LE(du, 1e-8);
  EXPECT_LE(dp, 1e-8);
  EXPECT_NEAR(ranks.run.last.kinetic_energy, serial.run.last.kinetic_energy, 1e-9 * serial.run.last.kinetic_energy);
}

// A [heat] run: the lid at T = 1, the other walls at T = 0. The CPU run with --compare (the GPU run
// beside it) writes the temperature into flow.vtu (node and cell) and each group's heat into
// flow.json and heat.csv, and a probe samples T; the run through the MPI path on one rank ends on
// the same temperature.
// [output] slice_field = "temperature": flow.png is coloured by T. Two runs whose only difference is
// the lid's temperature (no buoyancy: the same velocity) draw different pictures; were the
// velocity drawn, they would be the same bytes.
TEST(RunFlow, SliceFieldTemperatureColoursThePicture) {
  const std::string dir = fresh_test_dir();
  std::string pictures[2];
  for (int hot = 1; hot <= 2; ++hot) {
    const std::string case_dir = dir + "/lid_" + std::to_string(hot);  // one file name: the subtitle names it
    std::filesystem::create_directories(case_dir);
    const std::string case_file = write_text(
        case_dir + "/slice.toml",
        "[mesh]\nfile = \"" + project_file("meshes/cavity.msh") +
            "\"\n[fluid]\nviscosity = 0.01\n[heat]\nconductivity = 0.05\n"
            "[[boundary]]\ngroup = \"lid\"\ntype = \"wall\"\nvelocity = [1.0, 0.0, 0.0]\ntemperature = " +
            std::to_string(hot) + "\n[[boundary]]\ngroup = \"walls\"\ntype = \"wall\"\ntemperature = 0\n"
            "[time]\ndt = 0.01\nsteps = 2\n[output]\ndirectory = \"out\"\nevery = 100\nslice_field = \"temperature\"\n");
    FlowRunOptions o = options_for(case_file, "cpu");
    o.no_png = false, o.no_vtu = true;
    o.out = case_dir + "/out";
    run_flow(o);
    std::ifstream png(o.out + "/flow.png", std::ios::binary);
    ASSERT_TRUE(png.good());
    pictures[hot - 1].assign(std::istreambuf_iterator<char>(png), std::istreambuf_iterator<char>());
    EXPECT_GT(pictures[hot - 1].size(), 1000u);
  }
  EXPECT_NE(pictures[0], pictures[1]);
}

TEST(RunFlow, HeatRunWritesTemperatureAndWallHeat) {
  const std::string dir = fresh_test_dir();
  const std::string case_file = write_text(
      dir + "/heated_cavity.toml",
      "[mesh]\nfile = \"" + project_file("meshes/cavity.msh") +
          "\"\n[fluid]\nviscosity = 0.01\n[heat]\nconductivity = 0.05\nreference_length = 1\n"
          "reference_temperature_difference = 1\n"
          "[[boundary]]\ngroup = \"lid\"\ntype = \"wall\"\nvelocity = [1.0, 0.0, 0.0]\ntemperature = 1\n"
          "[[boundary]]\ngroup = \"walls\"\ntype = \"wall\"\ntemperature = 0\n"
          "[[probe]]\nname = \"T\"\npoints = [[0.5, 0.5, 1.0], [0.5, 0.5, 0.0]]\nfields = [\"temperature\"]\n"
          "[time]\ndt = 0.01\nsteps = 3\n[output]\ndirectory = \"out\"\nevery = 100\n");
  FlowRunOptions o = options_for(case_file, "cpu");
  o.out = dir + "/out";
  o.compare = true;
  const FlowRunOutcome r = run_flow(o);
  const nlohmann::json& heat = r.summary["heat"];
  ASSERT_EQ(heat["groups"].size(), 2u);
  EXPECT_EQ(heat["groups"][0]["group"], "lid");
  EXPECT_EQ(heat["groups"][0]["condition"], "temperature");
  // The hot lid gives heat, the cold walls take it (their sum is what the fluid stored).
  EXPECT_GT(heat["groups"][0]["heat"].get<double>(), 0.0);
  EXPECT_LT(heat["groups"][1]["heat"].get<double>(), 0.0);
  EXPECT_TRUE(heat["groups"][0].contains("nusselt"));
  // Within the boundary values but for the P1 conduction's small undershoot next to the lid's jump
  // (its stiffness matrix has positive off-diagonals at obtuse dihedral angles: the heat command
  // shows the same, −0.0055 with the fluid at rest).
  EXPECT_GE(heat["temperature_min"].get<double>(), -0.01);
  EXPECT_LE(heat["temperature_max"].get<double>(), 1.0 + 1e-12);
  EXPECT_LE(heat["compare_max_temperature_diff"].get<double>(), 1e-5);  // GPU float against CPU double
  // The probe of T on the lid and on the floor reads their fixed values.
  const nlohmann::json& probe = r.summary["probes"]["T"];
  ASSERT_TRUE(probe.contains("values")) << probe.dump();
  EXPECT_NEAR(probe["values"]["temperature@0"].get<double>(), 1.0, 1e-12) << probe.dump();
  EXPECT_NEAR(probe["values"]["temperature@1"].get<double>(), 0.0, 1e-12) << probe.dump();
  EXPECT_EQ(r.fields.node_temperature.size(), r.fields.node_velocity.size());
  EXPECT_EQ(r.fields.temperature.size(), r.fields.cell_velocity.size());
  std::ifstream vtu(dir + "/out/flow.vtu");
  const std::string text((std::istreambuf_iterator<char>(vtu)), std::istreambuf_iterator<char>());
  size_t count = 0;
  for (size_t at = text.find("Name=\"temperature\""); at != std::string::npos; at = text.find("Name=\"temperature\"", at + 1))
    ++count;
  EXPECT_EQ(count, 2u);  // point and cell data
  // heat.csv: a row per group at step 0 and at the last step.
  std::ifstream csv(dir + "/out/heat.csv");
  std::vector<std::string> rows;
  for (std::string row; std::getline(csv, row);) rows.push_back(row);
  ASSERT_EQ(rows.size(), 5u);
  EXPECT_EQ(rows[0], "step,time,group,heat,area,heat_flux,nusselt");
  EXPECT_EQ(rows[3].rfind("3,", 0), 0u) << rows[3];
  EXPECT_NE(rows[3].find(",lid,"), std::string::npos) << rows[3];

  // The same case through the MPI path on one rank (distributed/distributed_flow_temperature.hpp):
  // the serial run's temperature, wall heat and temperature iterations (several ranks:
  // tests/distributed, check_flow_mpi.py).
  o.compare = false;
  o.distributed = true;
  o.single_vtu = true;  // rank 0 keeps the whole mesh: its fields come back
  o.out = dir + "/ranks";
  const FlowRunOutcome ranks = run_flow(o);
  ASSERT_EQ(ranks.fields.temperature.size(), r.fields.temperature.size());
  const std::vector<int> match = match_points(r.cell_centroids, ranks.cell_centroids);
  double dT = 0;
  for (size_t c = 0; c < match.size(); ++c) {
    ASSERT_GE(match[c], 0) << "cell " << c << " has no match";
    dT = std::max(dT, std::fabs(ranks.fields.temperature[c] - r.fields.temperature[size_t(match[c])]));
  }
  EXPECT_LE(dT, 1e-8);  // one rank: the same sums (0 measured)
  const nlohmann::json& heat1 = ranks.summary["heat"];
  ASSERT_EQ(heat1["groups"].size(), 2u);
  for (int g = 0; g < 2; ++g)
    EXPECT_NEAR(heat1["groups"][g]["heat"].get<double>(), heat["groups"][g]["heat"].get<double>(),
                1e-9 * std::fabs(heat["groups"][g]["heat"].get<double>()));
  EXPECT_EQ(heat1["temperature_iterations"], heat["temperature_iterations"]);
  EXPECT_NEAR(ranks.summary["probes"]["T"]["values"]["temperature@0"].get<double>(), 1.0, 1e-12);
}

// The heated duct sample in steady mode: the march converges on both the flow's and the
// temperature's relative change, flow.json's steady lists the temperature's per step beside the
// flow's, and the wall heat is reported as in a time-marched run.
TEST(RunFlow, SteadyHeatRunReportsTheTemperatureChange) {
  const std::string dir = fresh_test_dir();
  const std::string case_file = write_text(
      dir + "/steady_duct.toml",
      "[mesh]\nfile = \"" + project_file("meshes/duct.msh") +
          "\"\n[fluid]\nviscosity = 0.02\n[heat]\nconductivity = 0.01\n"
          "[[boundary]]\ngroup = \"inlet\"\ntype = \"velocity\"\nvelocity = [1.0, 0.0, 0.0]\ntemperature = 0\n"
          "[[boundary]]\ngroup = \"outlet\"\ntype = \"pressure\"\n"
          "[[boundary]]\ngroup = \"walls\"\ntype = \"wall\"\ntemperature = 1\n"
          "[time]\ndt = 0.02\n[steady]\ntolerance = 1e-4\nmax_steps = 200\n[output]\ndirectory = \"out\"\n"
          "every = 1000\n");
  FlowRunOptions o = options_for(case_file, "cpu");
  o.out = dir + "/out";
  const FlowRunOutcome r = run_flow(o);
  const nlohmann::json& steady = r.summary["steady"];
  EXPECT_EQ(steady["stop_reason"], "converged") << steady.dump();
  ASSERT_TRUE(steady.contains("temperature_residuals"));
  const auto& t = steady["temperature_residuals"];
  ASSERT_EQ(t.size(), steady["residuals"].size());
  EXPECT_LE(t.back().get<double>(), 1e-4);
  EXPECT_LE(steady["residuals"].back().get<double>(), 1e-4);
  EXPECT_GT(t.front().get<double>(), 1e-4);  // the march had a temperature to settle
  // The last step's report (the progress line's "change ... (temperature ...)") says the same.
  EXPECT_EQ(r.run.last.temperature_change, t.back().get<double>());
  EXPECT_EQ(r.run.last.steady_change, steady["residuals"].back().get<double>());
  // The momentum iterations of every step, the last one's as the progress line's.
  ASSERT_EQ(steady["momentum_iterations"].size(), steady["residuals"].size());
  EXPECT_EQ(steady["momentum_iterations"].back().get<int>(), r.run.last.momentum_iterations);
  EXPECT_GT(steady["momentum_iterations"].front().get<int>(), 0);
  const nlohmann::json& heat = r.summary["heat"];
  ASSERT_EQ(heat["groups"].size(), 2u);
  EXPECT_GT(heat["groups"][1]["heat"].get<double>(), 0.0);  // the hot walls heat the fluid
  EXPECT_GT(heat["max_thermal_courant"].get<double>(), 1.0);  // beyond the explicit step's bound
  EXPECT_GE(heat["temperature_min"].get<double>(), -1e-3);
  EXPECT_LE(heat["temperature_max"].get<double>(), 1.0 + 1e-12);
}

// A [heat] run restarted from its checkpoint ends where the run straight through ends (the
// checkpoint carries T) with the same heat.csv; a checkpoint without T is refused.
TEST(RunFlow, HeatRunRestartsFromItsCheckpoint) {
  const std::string dir = fresh_test_dir();
  const auto heated = [&](int steps) {
    return write_text(dir + "/heated.toml",
                      "[mesh]\nfile = \"" + project_file("meshes/cavity.msh") +
                          "\"\n[fluid]\nviscosity = 0.01\n[heat]\nconductivity = 0.05\n"
                          "[buoyancy]\ngravity = [0, 0, -1]\nexpansion = 0.5\n"
                          "[[boundary]]\ngroup = \"lid\"\ntype = \"wall\"\nvelocity = [1.0, 0.0, 0.0]\ntemperature = 1\n"
                          "[[boundary]]\ngroup = \"walls\"\ntype = \"wall\"\n"
                          "[time]\ndt = 0.01\nsteps = " + std::to_string(steps) +
                          "\n[output]\ndirectory = \"out\"\nevery = 2\n");
  };
  FlowRunOptions o = options_for(heated(4), "cpu");
  o.out = dir + "/straight";
  const FlowRunOutcome straight = run_flow(o);
  o.case_file = heated(2);
  o.out = dir + "/restarted";
  run_flow(o);
  o.case_file = heated(4);
  o.restart = true;
  const FlowRunOutcome restarted = run_flow(o);
  EXPECT_EQ(restarted.run.first_step, 2);
  const std::vector<double>& a = straight.run.state.temperature;
  const std::vector<double>& b = restarted.run.state.temperature;
  ASSERT_EQ(a.size(), b.size());
  double diff = 0, change = 0;
  for (size_t i = 0; i < a.size(); ++i) diff = std::max(diff, std::fabs(a[i] - b[i])), change = std::max(change, a[i]);
  EXPECT_GT(change, 0.5);
  EXPECT_LE(diff, 1e-12);  // measured 0: the same operations from the same state
  const auto [du, dp] = field_difference(straight, restarted);
  EXPECT_LE(du, 1e-12);
  EXPECT_LE(dp, 1e-12);
  // heat.csv kept its rows up to the checkpoint and continued as the straight run's.
  const auto text = [](const std::string& path) {
    std::ifstream in(path);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  };
  EXPECT_EQ(text(dir + "/restarted/heat.csv"), text(dir + "/straight/heat.csv"));
  EXPECT_FALSE(text(dir + "/straight/heat.csv").empty());

  // A checkpoint of the cavity without [heat]: the heated case does not continue from it.
  o.case_file = cavity_case(dir, 2, 2);
  o.out = dir + "/cold";
  o.restart = false;
  run_flow(o);
  o.case_file = heated(4);
  o.restart = true;
  try {
    run_flow(o);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("heated.toml:5: --restart: the checkpoint of step 2 in '"), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("' carries no temperature"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace ss::test
