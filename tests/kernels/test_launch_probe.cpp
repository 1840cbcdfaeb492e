// --launch auto on a real context (llvmpipe in CI): the probe times both paths, resolve_launch takes
// a forced path as it is, lets the renderer decide where it can, and otherwise probes once and then
// reads the per-device cache (a temporary folder), probing again when the cache is corrupt or
// unwritable or when asked to.
#include <gtest/gtest.h>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

#include "gl/context.hpp"
#include "kernels/launch_choice.hpp"
#include "support/temp_folder.hpp"
#include "support/gl_fixture.hpp"

namespace ss::test {
namespace {

namespace fs = std::filesystem;

bool is_software(const std::string& renderer) {
  std::string r = renderer;
  for (char& c : r) c = char(std::tolower(static_cast<unsigned char>(c)));
  return r.find("llvmpipe") != std::string::npos || r.find("softpipe") != std::string::npos;
}

// A small probe: the same code as a run's, on fields small enough for a CI machine.
LaunchResolveSettings small_probe(const std::string& cache_directory) {
  LaunchResolveSettings s;
  s.cache_directory = cache_directory;
  s.probe_elements = 1 << 16;
  s.probe_repetitions = 2;
  return s;
}

class LaunchProbeTest : public GlTest {};

TEST_F(LaunchProbeTest, TimesBothPaths) {
  const LaunchProbe p = probe_launch_paths(shared_gl_context(), GpuOptions{}, 1 << 16, 2);
  EXPECT_EQ(p.elements, 1 << 16);
  EXPECT_EQ(p.repetitions, 2);
  EXPECT_TRUE(p.compute_failure.empty()) << p.compute_failure;
  EXPECT_GT(p.fragment_seconds, 0);
  EXPECT_GT(p.compute_seconds, 0);
  // The whole probe holds at least the two paths' timed batches (8 axpys each round).
  EXPECT_GE(p.probe_seconds, 2 * 8 * (p.fragment_seconds + p.compute_seconds));
}

TEST_F(LaunchProbeTest, AComputeGroupTheDeviceRefusesFallsBackToFragment) {
  GpuOptions too_big;
  too_big.local_size_x = too_big.local_size_y = 4096;  // beyond every device's work-group limits
  const LaunchProbe p = probe_launch_paths(shared_gl_context(), too_big, 1 << 12, 1);
  EXPECT_NE(p.compute_failure.find("exceeds the device's limits"), std::string::npos) << p.compute_failure;
  EXPECT_GT(p.fragment_seconds, 0);
  EXPECT_EQ(launch_from_probe(p, too_big).path(), LaunchPath::fragment);
}

TEST_F(LaunchProbeTest, AForcedPathIsTakenAsItIs) {
  TempFolder tmp("ss_launch_probe");
  for (LaunchPath path : {LaunchPath::fragment, LaunchPath::compute}) {
    GpuOptions gpu;
    gpu.launch = path;
    const LaunchChoice c = resolve_launch(shared_gl_context(), gpu, false, small_probe(tmp.path()));
    EXPECT_EQ(c.path(), path);
    EXPECT_EQ(c.requested, to_string(path));
    EXPECT_EQ(c.source, "option");
    EXPECT_EQ(c.reason, std::string("forced by --launch ") + to_string(path));
    EXPECT_FALSE(c.probe);
  }
  EXPECT_TRUE(fs::is_empty(tmp.path()));  // nothing probed, nothing cached
}

TEST_F(LaunchProbeTest, AutoResolvesOnThisDevice) {
  TempFolder tmp("ss_launch_probe");
  const GlInfo& info = shared_gl_context().info();
  const LaunchChoice c = resolve_launch(shared_gl_context(), GpuOptions{}, true, small_probe(tmp.path()));
  EXPECT_EQ(c.requested, "auto");
  EXPECT_FALSE(c.reason.empty());
  if (is_software(info.renderer)) {
    // Mesa's software rasterizer: decided by the renderer, no probe, nothing cached.
    EXPECT_EQ(c.source, "renderer");
    EXPECT_EQ(c.path(), LaunchPath::fragment);
    EXPECT_NE(c.reason.find(info.renderer), std::string::npos) << c.reason;
    EXPECT_TRUE(fs::is_empty(tmp.path()));
  } else {
    EXPECT_EQ(c.source, "probe");
    ASSERT_TRUE(c.probe);
    EXPECT_TRUE(fs::is_regular_file(c.cache_file)) << c.cache_file;
  }
}

TEST_F(LaunchProbeTest, ProbesOnceThenReadsTheCache) {
  TempFolder tmp("ss_launch_probe");
  LaunchResolveSettings s = small_probe(tmp.path() + "/streamsolve");
  s.renderer_rule = false;  // measure even on llvmpipe
  const GlContext& context = shared_gl_context();

  const LaunchChoice first = resolve_launch(context, GpuOptions{}, true, s);
  EXPECT_EQ(first.source, "probe");
  ASSERT_TRUE(first.probe);
  EXPECT_GT(first.probe->fragment_seconds, 0);
  EXPECT_GT(first.probe->compute_seconds, 0);
  EXPECT_EQ(first.cache_file, launch_cache_path(s.cache_directory, launch_cache_key(context.info(), GpuOptions{})));
  ASSERT_TRUE(fs::is_regular_file(first.cache_file));
  EXPECT_EQ(first.reason.rfind("probe (", 0), 0u) << first.reason;
  EXPECT_EQ(launch_choice_json(first).at("probe").count("probe_seconds"), 1u);

  // The second resolution reads the first's timings back: the same path, no new measurement.
  const LaunchChoice second = resolve_launch(context, GpuOptions{}, true, s);
  EXPECT_EQ(second.source, "cache");
  EXPECT_EQ(second.path(), first.path());
  ASSERT_TRUE(second.probe);
  EXPECT_EQ(second.probe->fragment_seconds, first.probe->fragment_seconds);
  EXPECT_EQ(second.probe->compute_seconds, first.probe->compute_seconds);
  EXPECT_EQ(second.cache_file, first.cache_file);
  EXPECT_EQ(second.reason.rfind("cached probe: ", 0), 0u) << second.reason;
  EXPECT_EQ(launch_choice_json(second).at("probe").count("probe_seconds"), 0u);

  // Another work group is another entry: probed, not read from the first.
  GpuOptions group;
  group.local_size_x = 8, group.local_size_y = 8;
  const LaunchChoice other_group = resolve_launch(context, group, true, s);
  EXPECT_EQ(other_group.source, "probe");
  EXPECT_NE(other_group.cache_file, first.cache_file);
  EXPECT_EQ(other_group.options.local_size_x, 8);

  // Asked to measure again (STREAMSOLVE_LAUNCH_PROBE=always): probed although cached, the file rewritten.
  LaunchResolveSettings again = s;
  again.reprobe = true;
  EXPECT_EQ(resolve_launch(context, GpuOptions{}, true, again).source, "probe");

  // A corrupt cache: probed again and replaced.
  {
    std::ofstream out(first.cache_file, std::ios::trunc);
    out << "{\"format\": 1, \"vendor\": ";
  }
  const LaunchChoice after_corrupt = resolve_launch(context, GpuOptions{}, true, s);
  EXPECT_EQ(after_corrupt.source, "probe");
  EXPECT_EQ(resolve_launch(context, GpuOptions{}, true, s).source, "cache");
}

TEST_F(LaunchProbeTest, AnUnwritableCacheNeverFailsTheRun) {
  TempFolder tmp("ss_launch_probe");
  { std::ofstream(tmp.path() + "/file") << "x"; }
  LaunchResolveSettings s = small_probe(tmp.path() + "/file/streamsolve");  // a folder under a file
  s.renderer_rule = false;
  s.verbose = true;  // the note that the probe is not cached goes to stderr
  for (int run = 0; run < 2; ++run) {
    LaunchChoice c;
    ASSERT_NO_THROW(c = resolve_launch(shared_gl_context(), GpuOptions{}, true, s));
    EXPECT_EQ(c.source, "probe");  // nothing cached: every run measures
    EXPECT_TRUE(c.cache_file.empty());
    EXPECT_TRUE(c.path() == LaunchPath::fragment || c.path() == LaunchPath::compute);
  }
  s.cache_directory.clear();  // no cache folder at all ($HOME unset)
  EXPECT_EQ(resolve_launch(shared_gl_context(), GpuOptions{}, true, s).source, "probe");
}

}  // namespace
}  // namespace ss::test
