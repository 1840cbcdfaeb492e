// The heat run as a library call (run/run_heat.hpp), in-process:
//  - steady on the cube, 20 and 100 on two opposite faces and insulated elsewhere: T is linear in x,
//    which P1 reproduces exactly, on the CPU reference and on the GPU (mixed precision: the true
//    residual reaches the tolerance);
//  - the files it promises: heat.json (its figures the result's), heat.vtu, heat.png;
//  - a case parsed already runs without its file (serial runs only);
//  - a case naming a boundary group the mesh lacks throws ss::Error naming the case file, before the
//    output folder is made or changed;
//  - a solve that does not converge: heat.json says so, no fields, throw_if_failed raises the failure;
//  - the finest level made on the GPU, chosen by run_heat for a refined GPU run, equals the host's;
//  - the run over MPI ranks on one rank equals the serial run (matched by node position).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "run/run_heat.hpp"
#include "run_test_util.hpp"
#include "util/error.hpp"

namespace ss::test {
namespace {

const auto* const mpi_finalizer = ::testing::AddGlobalTestEnvironment(new MpiFinalizer);

// The cube with T = 20 at x = 0 and T = 100 on `group` (x = 1), insulated elsewhere (`extra`: more
// [solver] keys), outputs in <case folder>/out.
std::string linear_case_text(const std::string& extra = "", const std::string& group = "right") {
  return "[mesh]\nfile = \"" + project_file("meshes/cube.msh") + "\"\n" +
         "[[boundary]]\ngroup = \"left\"\ntype = \"dirichlet\"\nvalue = 20.0\n" +
         "[[boundary]]\ngroup = \"" + group + "\"\ntype = \"dirichlet\"\nvalue = 100.0\n" +
         "[solver]\npreconditioner = \"jacobi\"\ntolerance = 1e-10\n" + extra + "[output]\ndirectory = \"out\"\n";
}

std::string linear_case(const std::string& dir, const std::string& extra = "", const std::string& group = "right") {
  return write_text(dir + "/linear.toml", linear_case_text(extra, group));
}

HeatRunOptions options_for(const std::string& case_file, const std::string& backend) {
  HeatRunOptions o;
  o.case_file = case_file;
  o.backend = backend;
  o.keep_fields = true;
  return o;
}

// max |T − (20 + 80 x)| over the nodes, of the range 80.
double linear_error(const HeatRunResult& r) {
  EXPECT_EQ(r.temperature.size(), r.nodes.size());
  double error = 0;
  for (size_t i = 0; i < r.temperature.size(); ++i)
    error = std::max(error, std::fabs(r.temperature[i] - (20.0 + 80.0 * r.nodes[i].x)));
  return error / 80.0;
}

// What every converged serial run must show: its files, and heat.json agreeing with the result.
void expect_outputs(const HeatRunResult& r, const std::string& out_dir, bool png) {
  EXPECT_TRUE(r.converged);
  EXPECT_TRUE(r.failure.empty()) << r.failure;
  EXPECT_EQ(r.out_dir, out_dir);
  EXPECT_EQ(r.json_path, out_dir + "/heat.json");
  const nlohmann::json j = read_json(r.json_path);
  EXPECT_EQ(j, r.summary);
  EXPECT_EQ(j["problem"], "heat");
  EXPECT_EQ(j["backend"], r.backend);
  EXPECT_EQ(j["iterations"].get<int>(), r.report.iterations);
  EXPECT_TRUE(j["converged"].get<bool>());
  EXPECT_DOUBLE_EQ(j["temperature"]["min"].get<double>(), r.t_min);
  EXPECT_DOUBLE_EQ(j["temperature"]["max"].get<double>(), r.t_max);
  EXPECT_TRUE(non_empty_file(out_dir + "/heat.vtu"));
  EXPECT_EQ(non_empty_file(out_dir + "/heat.png"), png);
}

TEST(RunHeat, SteadyLinearOnTheCubeCpu) {
  const std::string dir = fresh_test_dir();
  HeatRunOptions o = options_for(linear_case(dir), "cpu");
  o.no_png = true;  // no GL context on the CPU
  const HeatRunResult r = run_heat(o);
  expect_outputs(r, dir + "/out", false);
  EXPECT_EQ(r.finest_level, "host");
  EXPECT_EQ(r.backend, "cpu");
  EXPECT_EQ(r.summary["mesh"]["nodes"].get<size_t>(), r.nodes.size());
  EXPECT_LE(linear_error(r), 5e-9);  // CG to 1e-10 in double (5.4e-10 measured)
  EXPECT_NEAR(r.t_min, 20.0, 1e-8);
  EXPECT_NEAR(r.t_max, 100.0, 1e-8);
}

TEST(RunHeat, ParsedCaseNeedsNoFile) {
  const std::string dir = fresh_test_dir();
  HeatRunOptions o;
  o.heat_case = parse_heat_case(linear_case_text(), dir + "/never_written.toml");
  o.backend = "cpu";
  o.no_png = true;
  o.no_vtu = true;
  o.keep_fields = true;
  const HeatRunResult r = run_heat(o);
  EXPECT_TRUE(r.converged);
  EXPECT_EQ(r.out_dir, dir + "/out");  // the case's [output] directory, next to its path
  EXPECT_EQ(r.summary["case"], dir + "/never_written.toml");
  EXPECT_LE(linear_error(r), 5e-9);
  o.distributed = true;  // the ranks parse the case file's text: a parsed case is refused
  EXPECT_THROW(run_heat(o), Error);
}

TEST(RunHeat, SteadyLinearOnTheCubeGpu) {
  const std::string dir = fresh_test_dir();
  const HeatRunResult r = run_heat(options_for(linear_case(dir), "gpu"));
  expect_outputs(r, dir + "/out", true);
  EXPECT_EQ(r.backend, "gpu");
  EXPECT_EQ(r.summary["launch"], "fragment");
  EXPECT_EQ(r.summary["launch_choice"]["requested"], "fragment");  // RunOptions' gpu.launch, as it is
  EXPECT_EQ(r.summary["launch_choice"]["source"], "option");
  // Mixed precision: float CG inside, the correction's residual in double, to a true residual of
  // 1e-10 (3e-10 measured on llvmpipe).
  EXPECT_LE(linear_error(r), 5e-9);
}

TEST(RunHeat, ComparedRunReportsTheOtherBackend) {
  const std::string dir = fresh_test_dir();
  HeatRunOptions o = options_for(linear_case(dir), "cpu");
  o.compare = true;
  o.no_png = true;
  o.no_vtu = true;
  const HeatRunResult r = run_heat(o);
  ASSERT_TRUE(r.compare);
  EXPECT_EQ(r.compare->backend, "gpu");
  EXPECT_LE(r.compare->max_rel_diff, 5e-9);  // both to a true residual of 1e-10 (8e-10 measured)
  EXPECT_EQ(read_json(r.json_path)["compare"]["max_abs_diff"].get<double>(), r.compare->max_abs_diff);
  EXPECT_EQ(files_in(dir + "/out"), std::vector<std::string>{"heat.json"});  // --no-png, --no-vtu
}

TEST(RunHeat, UnknownBoundaryGroupThrowsBeforeAnyOutput) {
  const std::string dir = fresh_test_dir();
  const std::string case_file = linear_case(dir, "", "nowhere");
  for (const std::string backend : {"cpu", "gpu"}) {
    try {
      run_heat(options_for(case_file, backend));
      FAIL() << "no error for a group the mesh lacks";
    } catch (const Error& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("linear.toml"), std::string::npos) << what;
      EXPECT_NE(what.find("nowhere"), std::string::npos) << what;
    }
    EXPECT_FALSE(fs::exists(dir + "/out")) << backend;
  }
  // A folder a previous run left keeps its files.
  fs::create_directories(dir + "/out");
  write_text(dir + "/out/heat.json", "{}\n");
  HeatRunOptions o = options_for(case_file, "cpu");
  EXPECT_THROW(run_heat(o), Error);
  EXPECT_EQ(files_in(dir + "/out"), std::vector<std::string>{"heat.json"});
  EXPECT_EQ(read_json(dir + "/out/heat.json"), nlohmann::json::object());
}

TEST(RunHeat, UnconvergedSolveWritesOnlyTheSummary) {
  const std::string dir = fresh_test_dir();
  HeatRunOptions o = options_for(linear_case(dir, "max_iterations = 3\n"), "cpu");
  o.no_png = true;
  const HeatRunResult r = run_heat(o);
  EXPECT_FALSE(r.converged);
  EXPECT_NE(r.failure.find("cpu solve did not converge"), std::string::npos) << r.failure;
  EXPECT_NE(r.failure.find(r.json_path), std::string::npos) << r.failure;
  EXPECT_FALSE(read_json(r.json_path)["converged"].get<bool>());
  EXPECT_EQ(files_in(dir + "/out"), std::vector<std::string>{"heat.json"});
  EXPECT_THROW(throw_if_failed(r), Error);
}

// A case with [[mesh.surface]] refines on the host (the GPU refinement makes straight midpoints):
// auto picks the host path, its hole nodes lie on the cylinder, and --finest-level gpu is refused.
TEST(RunHeat, MeshSurfaceRefinesOnTheHost) {
  const std::string dir = fresh_test_dir();
  const std::string case_file = write_text(
      dir + "/hole.toml", "[mesh]\nfile = \"" + project_file("tests/data/surface/cylinder_hole.msh") + "\"\nrefine = 1\n" +
                              "[[mesh.surface]]\ngroup = \"cylinder\"\ntype = \"cylinder\"\npoint = [0.2, 0.2, 0]\n" +
                              "axis = [0, 0, 1]\nradius = 0.1\n" +
                              "[[boundary]]\ngroup = \"cylinder\"\ntype = \"dirichlet\"\nvalue = 100.0\n" +
                              "[[boundary]]\ngroup = \"outer\"\ntype = \"dirichlet\"\nvalue = 0.0\n" +
                              "[output]\ndirectory = \"out\"\n");
  HeatRunOptions o = options_for(case_file, "gpu");
  o.no_png = true;
  const HeatRunResult r = run_heat(o);
  EXPECT_TRUE(r.converged);
  EXPECT_EQ(r.finest_level, "host");
  size_t on_hole = 0;
  for (size_t i = 0; i < r.nodes.size(); ++i) {
    const double off = std::hypot(r.nodes[i].x - 0.2, r.nodes[i].y - 0.2) - 0.1;
    if (r.temperature[i] != 100.0) continue;  // the hole's nodes are its Dirichlet nodes
    ++on_hole;
    EXPECT_LT(std::fabs(off), 1e-15) << "hole node " << i;
  }
  EXPECT_GT(on_hole, 80u);  // 94 here
  o.finest_level = "gpu";
  try {
    run_heat(o);
    FAIL() << "--finest-level gpu with [[mesh.surface]] must be refused";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("hole.toml: --finest-level gpu refines with straight midpoints and cannot honour [[mesh.surface]]"),
              std::string::npos)
        << what;
  }
}

TEST(RunHeat, GpuMadeFinestLevelEqualsTheHostPath) {
  const std::string dir = fresh_test_dir();
  HeatRunOptions o = options_for(linear_case(dir), "gpu");
  o.refine = 1;
  o.no_png = true;
  o.out = dir + "/gpu";
  const HeatRunResult gpu = run_heat(o);  // auto: a refined run on the GPU alone
  EXPECT_EQ(gpu.finest_level, "gpu");
  EXPECT_EQ(gpu.summary["finest_level"], "gpu");
  EXPECT_TRUE(non_empty_file(dir + "/gpu/heat.vtu"));
  o.finest_level = "host";
  o.out = dir + "/host";
  const HeatRunResult host = run_heat(o);
  EXPECT_EQ(host.finest_level, "host");
  ASSERT_EQ(gpu.temperature.size(), host.temperature.size());
  const std::vector<int> match = match_points(host.nodes, gpu.nodes);
  double diff = 0;
  for (size_t i = 0; i < match.size(); ++i) {
    ASSERT_GE(match[i], 0) << "node " << i << " of the GPU-made level is not in the host's";
    diff = std::max(diff, std::fabs(gpu.temperature[i] - host.temperature[size_t(match[i])]));
  }
  // Level 1 (8x the cells) conditions worse: 1.3e-8 measured on llvmpipe, both against each other
  // and against the exact field.
  EXPECT_LE(diff / 80.0, 1e-7);
  EXPECT_LE(linear_error(gpu), 1e-7);
}

// launch_auto (the command line's default): each path resolves the launch on its device and records
// the path and why in heat.json; the MPI path records every rank's path in per_rank too.
TEST(RunHeat, AutoLaunchIsResolvedOnTheDeviceAndRecorded) {
  const std::string dir = fresh_test_dir();
  // The cache (written only where the run probes: not on llvmpipe) in the test's folder.
  const char* old_cache = std::getenv("XDG_CACHE_HOME");
  const std::string kept = old_cache ? old_cache : "";
  setenv("XDG_CACHE_HOME", (dir + "/cache").c_str(), 1);
  HeatRunOptions o = options_for(linear_case(dir), "gpu");
  o.launch_auto = true;
  o.gpu.launch = LaunchPath::compute;  // not read with launch_auto
  o.no_png = true;
  o.no_vtu = true;
  std::vector<std::pair<std::string, nlohmann::json>> summaries;
  o.out = dir + "/host";
  summaries.emplace_back("host", run_heat(o).summary);
  o.refine = 1;  // the finest level made on the GPU
  o.out = dir + "/gpu";
  summaries.emplace_back("gpu", run_heat(o).summary);
  o.refine.reset();
  o.distributed = true;
  o.out = dir + "/ranks";
  const HeatRunResult ranks = run_heat(o);
  summaries.emplace_back("distributed", ranks.summary);
  if (old_cache) setenv("XDG_CACHE_HOME", kept.c_str(), 1);
  else unsetenv("XDG_CACHE_HOME");

  for (const auto& [path, j] : summaries) {
    SCOPED_TRACE(path);
    if (path != "distributed") {
      EXPECT_EQ(j["finest_level"], path);
    }
    ASSERT_TRUE(j.contains("launch_choice")) << j.dump(2);
    const nlohmann::json& c = j["launch_choice"];
    EXPECT_EQ(c["requested"], "auto");
    EXPECT_FALSE(c["reason"].get<std::string>().empty());
    const std::string device = j["device"];
    if (device.find("llvmpipe") != std::string::npos) {  // CI: the renderer decides, fragment
      EXPECT_EQ(j["launch"], "fragment");
      EXPECT_EQ(c["source"], "renderer");
      EXPECT_NE(c["reason"].get<std::string>().find("llvmpipe"), std::string::npos) << c["reason"];
    } else {  // a GPU: measured (or read from this test's cache)
      EXPECT_TRUE(j["launch"] == "fragment" || j["launch"] == "compute") << j["launch"];
      EXPECT_TRUE(c["source"] == "probe" || c["source"] == "cache") << c["source"];
      EXPECT_TRUE(c.contains("probe"));
    }
  }
  ASSERT_EQ(ranks.summary["per_rank"].size(), 1u);
  EXPECT_EQ(ranks.summary["per_rank"][0]["launch"], ranks.summary["launch"]);
}

TEST(RunHeat, DistributedOnOneRankEqualsSerial) {
  const std::string dir = fresh_test_dir();
  // A source and a flux: not a field P1 reproduces exactly, so the two runs' agreement means something.
  const std::string case_file = write_text(dir + "/source.toml", "[mesh]\nfile = \"" + project_file("meshes/cube.msh") +
                            "\"\n[material]\nconductivity = 2.0\nsource = 1.0\n"
                            "[[boundary]]\ngroup = \"left\"\ntype = \"dirichlet\"\nvalue = 0.0\n"
                            "[[boundary]]\ngroup = \"right\"\ntype = \"dirichlet\"\nvalue = 1.0\n"
                            "[[boundary]]\ngroup = \"top\"\ntype = \"neumann\"\nvalue = 0.5\n"
                            "[solver]\npreconditioner = \"jacobi\"\ntolerance = 1e-10\n[output]\ndirectory = \"out\"\n");
  HeatRunOptions o = options_for(case_file, "cpu");
  o.no_png = true;
  o.out = dir + "/serial";
  const HeatRunResult serial = run_heat(o);
  o.out = dir + "/ranks";
  o.distributed = true;
  const HeatRunResult ranks = run_heat(o);  // the MPI path on this one process
  EXPECT_EQ(ranks.finest_level, "distributed");
  EXPECT_TRUE(ranks.reports);
  EXPECT_EQ(ranks.ranks, 1);
  EXPECT_TRUE(ranks.converged);
  EXPECT_EQ(ranks.summary["ranks"], 1);
  EXPECT_EQ(files_in(dir + "/ranks"), (std::vector<std::string>{"heat.json", "heat.pvtu", "heat_piece_0.vtu"}));
  EXPECT_NEAR(ranks.report.iterations, serial.report.iterations, 2);
  ASSERT_EQ(ranks.temperature.size(), serial.temperature.size());
  const std::vector<int> match = match_points(serial.nodes, ranks.nodes);
  double diff = 0;
  for (size_t i = 0; i < match.size(); ++i) {
    ASSERT_GE(match[i], 0) << "node " << i;
    diff = std::max(diff, std::fabs(ranks.temperature[i] - serial.temperature[size_t(match[i])]));
  }
  EXPECT_LE(diff / (serial.t_max - serial.t_min), 1e-9);  // one rank: the same sums (0 measured)
  EXPECT_NEAR(ranks.t_min, serial.t_min, 1e-9);
  EXPECT_NEAR(ranks.t_max, serial.t_max, 1e-9);
}

}  // namespace
}  // namespace ss::test
