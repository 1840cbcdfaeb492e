// --launch auto without a GL context: the request parser, the decision from the renderer string and
// from a probe's timings, the per-device cache file (a temporary folder: written, read back, keyed,
// corrupt, unwritable), the settings from the environment and the summary's JSON.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include <unistd.h>

#include "kernels/launch_choice.hpp"
#include "support/temp_folder.hpp"
#include "util/error.hpp"

namespace ss::test {
namespace {

namespace fs = std::filesystem;

// The figures of the H200 measurements in docs/gpu-machine.md: fragment ~20× slower.
LaunchProbe hopper_like_probe() {
  LaunchProbe p;
  p.elements = 1 << 22;
  p.repetitions = 5;
  p.fragment_seconds = 3.1e-4;
  p.compute_seconds = 1.5e-5;
  p.probe_seconds = 0.08;
  return p;
}

LaunchCacheKey h200_key() {
  return {"NVIDIA Corporation", "NVIDIA H200/PCIe/SSE2", "4.5.0 NVIDIA 580.159", 16, 16};
}

void write_text(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  ASSERT_TRUE(out.good()) << path;
}

// Sets an environment variable for one scope, then puts the old value back.
class ScopedEnv {
public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value) setenv(name, value, 1);
    else unsetenv(name);
  }
  ~ScopedEnv() {
    if (old_) setenv(name_, old_->c_str(), 1);
    else unsetenv(name_);
  }

private:
  const char* name_;
  std::optional<std::string> old_;
};

TEST(LaunchRequest, ParsesAutoAndBothPaths) {
  EXPECT_TRUE(parse_launch_request("auto").automatic);
  const LaunchRequest fragment = parse_launch_request("fragment"), compute = parse_launch_request("compute");
  EXPECT_FALSE(fragment.automatic);
  EXPECT_EQ(fragment.path, LaunchPath::fragment);
  EXPECT_FALSE(compute.automatic);
  EXPECT_EQ(compute.path, LaunchPath::compute);
  for (const char* wrong : {"", "Auto", "AUTO", "vertex", "auto,compute", " auto"}) {
    try {
      parse_launch_request(wrong);
      ADD_FAILURE() << "'" << wrong << "' was accepted";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("expected auto, fragment or compute"), std::string::npos) << e.what();
    }
  }
}

TEST(LaunchFromRenderer, MesaSoftwareRasterizersTakeFragment) {
  GpuOptions base;
  base.local_size_x = 32, base.local_size_y = 8;
  for (const char* renderer : {"llvmpipe (LLVM 15.0.6, 256 bits)", "LLVMPIPE (LLVM 17.0.0, 128 bits)", "softpipe"}) {
    const std::optional<LaunchChoice> c = launch_from_renderer(renderer, base);
    ASSERT_TRUE(c) << renderer;
    EXPECT_EQ(c->path(), LaunchPath::fragment) << renderer;
    EXPECT_EQ(c->requested, "auto");
    EXPECT_EQ(c->source, "renderer");
    EXPECT_NE(c->reason.find(renderer), std::string::npos) << c->reason;
    EXPECT_FALSE(c->probe);
    EXPECT_EQ(c->options.local_size_x, 32);  // the rest of the options kept
    EXPECT_EQ(c->options.local_size_y, 8);
  }
}

TEST(LaunchFromRenderer, HardwareRenderersAreMeasured) {
  for (const char* renderer : {"NVIDIA H200/PCIe/SSE2", "NVIDIA H100 80GB HBM3/PCIe/SSE2", "NVIDIA GeForce RTX 4090/PCIe/SSE2",
                               "AMD Radeon RX 7900 XTX (radeonsi, navi31, LLVM 15.0.7, DRM 3.54)",
                               "Mesa Intel(R) UHD Graphics 630 (CFL GT2)", ""})
    EXPECT_FALSE(launch_from_renderer(renderer, GpuOptions{})) << renderer;
}

TEST(LaunchFromProbe, ComputeWhenClearlyFaster) {
  GpuOptions base;
  base.local_size_x = 8;
  const LaunchChoice c = launch_from_probe(hopper_like_probe(), base);
  EXPECT_EQ(c.path(), LaunchPath::compute);
  EXPECT_EQ(c.options.local_size_x, 8);
  EXPECT_EQ(c.requested, "auto");
  EXPECT_EQ(c.source, "probe");
  ASSERT_TRUE(c.probe);
  EXPECT_EQ(c.probe->fragment_seconds, 3.1e-4);
  // The reason names both timings and the ratio.
  EXPECT_NE(c.reason.find("0.015 ms on compute"), std::string::npos) << c.reason;
  EXPECT_NE(c.reason.find("0.31 ms on fragment"), std::string::npos) << c.reason;
  EXPECT_NE(c.reason.find("(compute 20.67x faster)"), std::string::npos) << c.reason;
  EXPECT_NE(c.reason.find("4194304 floats"), std::string::npos) << c.reason;
}

TEST(LaunchFromProbe, FragmentWhenComputeIsNotClearlyFaster) {
  LaunchProbe p = hopper_like_probe();
  p.compute_seconds = p.fragment_seconds;  // a tie
  EXPECT_EQ(launch_from_probe(p, {}).path(), LaunchPath::fragment);
  p.compute_seconds = 2 * p.fragment_seconds;  // fragment faster (a consumer GPU)
  const LaunchChoice slower = launch_from_probe(p, {});
  EXPECT_EQ(slower.path(), LaunchPath::fragment);
  EXPECT_NE(slower.reason.find("(fragment 2.00x faster)"), std::string::npos) << slower.reason;
  p.compute_seconds = p.fragment_seconds / 1.2;  // faster, but within the margin
  const LaunchChoice within = launch_from_probe(p, {});
  EXPECT_EQ(within.path(), LaunchPath::fragment);
  EXPECT_NE(within.reason.find("(compute only 1.20x faster, below the 1.25x margin)"), std::string::npos) << within.reason;
  p.compute_seconds = p.fragment_seconds / (kLaunchComputeMargin * 1.001);  // just past the margin
  EXPECT_EQ(launch_from_probe(p, {}).path(), LaunchPath::compute);
}

TEST(LaunchFromProbe, FragmentWhenComputeFailed) {
  LaunchProbe p = hopper_like_probe();
  p.compute_seconds = 0;
  p.compute_failure = "compute work group 16x16 exceeds the device's limits";
  const LaunchChoice c = launch_from_probe(p, {});
  EXPECT_EQ(c.path(), LaunchPath::fragment);
  EXPECT_NE(c.reason.find("exceeds the device's limits"), std::string::npos) << c.reason;
  p.compute_failure.clear();  // no timing and no failure named: never compute
  EXPECT_EQ(launch_from_probe(p, {}).path(), LaunchPath::fragment);
}

TEST(LaunchCache, WritesAndReadsBackOneFilePerDevice) {
  TempFolder tmp("ss_launch_cache");
  const std::string dir = tmp.path() + "/new/streamsolve";  // made on write
  const LaunchCacheKey key = h200_key();
  EXPECT_FALSE(read_launch_cache(dir, key));  // nothing yet (the folder does not exist either)
  const std::optional<std::string> file = write_launch_cache(dir, key, hopper_like_probe());
  ASSERT_TRUE(file);
  EXPECT_EQ(*file, launch_cache_path(dir, key));
  EXPECT_TRUE(fs::is_regular_file(*file));
  EXPECT_EQ(fs::path(*file).filename().string().rfind("launch-", 0), 0u) << *file;
  const std::optional<LaunchProbe> back = read_launch_cache(dir, key);
  ASSERT_TRUE(back);
  const LaunchProbe want = hopper_like_probe();
  EXPECT_EQ(back->elements, want.elements);
  EXPECT_EQ(back->repetitions, want.repetitions);
  EXPECT_EQ(back->fragment_seconds, want.fragment_seconds);
  EXPECT_EQ(back->compute_seconds, want.compute_seconds);
  EXPECT_EQ(back->probe_seconds, want.probe_seconds);
  EXPECT_EQ(launch_from_probe(*back, {}).path(), LaunchPath::compute);
  // No temporary left beside it.
  int files = 0;
  for (const auto& entry : fs::directory_iterator(dir)) files += 1, (void)entry;
  EXPECT_EQ(files, 1);

  // Another device (vendor, renderer, driver version) or work group: another file, not this one.
  std::vector<LaunchCacheKey> others(4, key);
  others[0].vendor = "AMD";
  others[1].renderer = "NVIDIA H100 80GB HBM3/PCIe/SSE2";
  others[2].version = "4.5.0 NVIDIA 590.10";
  others[3].local_size_x = 32;
  for (const LaunchCacheKey& other : others) {
    EXPECT_NE(launch_cache_path(dir, other), *file);
    EXPECT_FALSE(read_launch_cache(dir, other));
  }
}

TEST(LaunchCache, AFileOfAnotherKeyUnderThisNameIsNotUsed) {
  TempFolder tmp("ss_launch_cache");
  const LaunchCacheKey key = h200_key();
  LaunchCacheKey other = key;
  other.renderer = "NVIDIA H100 80GB HBM3/PCIe/SSE2";
  ASSERT_TRUE(write_launch_cache(tmp.path(), other, hopper_like_probe()));
  // As if the two keys' hashes collided: the file names its key, and the key is checked.
  fs::rename(launch_cache_path(tmp.path(), other), launch_cache_path(tmp.path(), key));
  EXPECT_FALSE(read_launch_cache(tmp.path(), key));
}

TEST(LaunchCache, CorruptOrForeignFilesAreIgnoredAndReplaced) {
  TempFolder tmp("ss_launch_cache");
  const LaunchCacheKey key = h200_key();
  const std::string file = launch_cache_path(tmp.path(), key);
  ASSERT_TRUE(write_launch_cache(tmp.path(), key, hopper_like_probe()));
  std::string good;
  {
    std::ifstream in(file);
    good.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  const auto replaced = [&](const std::string& from, const std::string& to) {
    const size_t at = good.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return at == std::string::npos ? good : good.substr(0, at) + to + good.substr(at + from.size());
  };
  for (const std::string& bad : {std::string(), std::string("not json {"), good.substr(0, good.size() / 2),
                                 std::string("[1, 2, 3]"), std::string("\x00\x01\x02garbage", 10),
                                 replaced("\"format\": 1", "\"format\": 99"),
                                 replaced("\"fragment_seconds\"", "\"fragment_time\""),
                                 replaced("\"compute_seconds\": 1.5e-05", "\"compute_seconds\": -1.0"),
                                 replaced("\"compute_seconds\": 1.5e-05", "\"compute_seconds\": \"fast\""),
                                 replaced("\"elements\": 4194304", "\"elements\": 0")}) {
    write_text(file, bad);
    EXPECT_FALSE(read_launch_cache(tmp.path(), key)) << "accepted: " << bad;
  }
  // The next probe's result replaces the corrupt file.
  write_text(file, "not json {");
  ASSERT_TRUE(write_launch_cache(tmp.path(), key, hopper_like_probe()));
  EXPECT_TRUE(read_launch_cache(tmp.path(), key));
  // The unchanged text still reads (the replacements above changed what they were meant to).
  write_text(file, good);
  EXPECT_TRUE(read_launch_cache(tmp.path(), key));
}

TEST(LaunchCache, AFolderThatCannotBeMadeIsReportedNotThrown) {
  TempFolder tmp("ss_launch_cache");
  write_text(tmp.path() + "/a_file", "x");
  const std::string dir = tmp.path() + "/a_file/streamsolve";  // under a regular file (fails as root too)
  std::string why;
  EXPECT_FALSE(write_launch_cache(dir, h200_key(), hopper_like_probe(), &why));
  EXPECT_FALSE(why.empty());
  EXPECT_FALSE(read_launch_cache(dir, h200_key()));
  EXPECT_FALSE(write_launch_cache("", h200_key(), hopper_like_probe()));  // no folder at all
  EXPECT_FALSE(read_launch_cache("", h200_key()));
  // A folder in the way of the file itself.
  fs::create_directories(launch_cache_path(tmp.path(), h200_key()));
  EXPECT_FALSE(write_launch_cache(tmp.path(), h200_key(), hopper_like_probe(), &why));
  EXPECT_FALSE(read_launch_cache(tmp.path(), h200_key()));
}

TEST(LaunchSettings, CacheFolderAndReprobeFromTheEnvironment) {
  {
    ScopedEnv xdg("XDG_CACHE_HOME", "/var/cache/me"), home("HOME", "/home/me"), probe("STREAMSOLVE_LAUNCH_PROBE", nullptr);
    const LaunchResolveSettings s = launch_settings_from_environment(true);
    EXPECT_EQ(s.cache_directory, "/var/cache/me/streamsolve");
    EXPECT_FALSE(s.reprobe);
    EXPECT_TRUE(s.verbose);
    EXPECT_TRUE(s.renderer_rule);
  }
  {
    // A relative XDG_CACHE_HOME is invalid (XDG base directory spec): ~/.cache then.
    ScopedEnv xdg("XDG_CACHE_HOME", "relative/cache"), home("HOME", "/home/me"), probe("STREAMSOLVE_LAUNCH_PROBE", "always");
    const LaunchResolveSettings s = launch_settings_from_environment(false);
    EXPECT_EQ(s.cache_directory, "/home/me/.cache/streamsolve");
    EXPECT_TRUE(s.reprobe);
    EXPECT_FALSE(s.verbose);
  }
  {
    ScopedEnv xdg("XDG_CACHE_HOME", nullptr), home("HOME", nullptr), probe("STREAMSOLVE_LAUNCH_PROBE", "no");
    const LaunchResolveSettings s = launch_settings_from_environment(false);
    EXPECT_EQ(s.cache_directory, "");  // no cache: every run probes
    EXPECT_FALSE(s.reprobe);
  }
}

TEST(LaunchChoiceJson, RecordsRequestSourceReasonAndProbe) {
  LaunchChoice probed = launch_from_probe(hopper_like_probe(), {});
  probed.cache_file = "/tmp/x/launch-0123456789abcdef.json";
  const nlohmann::json j = launch_choice_json(probed);
  EXPECT_EQ(j.at("requested"), "auto");
  EXPECT_EQ(j.at("source"), "probe");
  EXPECT_EQ(j.at("reason"), probed.reason);
  EXPECT_EQ(j.at("probe").at("elements"), 1 << 22);
  EXPECT_EQ(j.at("probe").at("fragment_seconds"), 3.1e-4);
  EXPECT_EQ(j.at("probe").at("compute_seconds"), 1.5e-5);
  EXPECT_EQ(j.at("probe").at("probe_seconds"), 0.08);  // measured in this run
  EXPECT_EQ(j.at("cache_file"), probed.cache_file);

  LaunchChoice cached = probed;
  cached.source = "cache";
  EXPECT_FALSE(launch_choice_json(cached).at("probe").contains("probe_seconds"));  // no probe in this run

  const nlohmann::json renderer = launch_choice_json(*launch_from_renderer("llvmpipe (LLVM 15.0.6, 256 bits)", {}));
  EXPECT_EQ(renderer.at("source"), "renderer");
  EXPECT_FALSE(renderer.contains("probe"));
  EXPECT_FALSE(renderer.contains("cache_file"));
}

}  // namespace
}  // namespace ss::test
