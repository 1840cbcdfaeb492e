#include "kernels/launch_choice.hpp"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <memory>
#include <sstream>
#include <vector>

#include "gl/context.hpp"
#include "util/atomic_file.hpp"
#include "util/error.hpp"

namespace ss {

namespace {

using Clock = std::chrono::steady_clock;

// The cache file's layout; a file of another format is ignored (and replaced by the next probe).
constexpr int kCacheFormat = 1;

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return s;
}

std::string milliseconds(double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, "%.4g ms", seconds * 1e3);
  return text;
}

bool usable_seconds(double s) { return std::isfinite(s) && s > 0; }

// One path of the probe: its backend and three fields; batch() times `count` axpys to the last one done.
struct ProbePath {
  GpuBackend gpu;
  GpuBackend::Vector x, y, z;
  ProbePath(const GlContext& context, const GpuOptions& options, std::int64_t n)
      : gpu(context, LayoutOptions{}, options), x(gpu.make_vector(n)), y(gpu.make_vector(n)), z(gpu.make_vector(n)) {
    gpu.fill(x, 1.0);
    gpu.fill(y, 2.0);
  }
  double batch(int count) {
    gpu.finish();
    const auto t0 = Clock::now();
    for (int k = 0; k < count; ++k) gpu.axpy(0.5, x, y, z);
    gpu.finish();
    return std::chrono::duration<double>(Clock::now() - t0).count() / count;
  }
};

}  // namespace

LaunchRequest parse_launch_request(const std::string& name) {
  LaunchRequest r;
  if (name == "auto") r.automatic = true;
  else if (name == "fragment" || name == "compute") r.path = parse_launch_path(name);
  else SS_THROW("unknown launch path '" << name << "' (expected auto, fragment or compute)");
  return r;
}

// ---- the decision ----

std::optional<LaunchChoice> launch_from_renderer(const std::string& renderer, const GpuOptions& base) {
  const std::string r = lower(renderer);
  // Mesa's software rasterizers run both paths on the same CPU threads: the fragment path has no
  // hardware ceiling there, and llvmpipe's tiled rasterizer runs it faster than its compute path.
  // Measured on llvmpipe (LLVM 15, 2 cores; bench kernels --launch fragment,compute): an axpy of
  // 4M floats took 8.1 ms on fragment and 28.8 ms on compute (R32F), 3.7 and 13.0 ms (RGBA32F).
  // A probe there would cost over a second of every first run for a known answer.
  if (r.find("llvmpipe") != std::string::npos || r.find("softpipe") != std::string::npos) {
    LaunchChoice c;
    c.options = base;
    c.options.launch = LaunchPath::fragment;
    c.requested = "auto";
    c.source = "renderer";
    c.reason = "renderer '" + renderer +
               "' is Mesa's software rasterizer: fragment is the faster path there (no probe)";
    return c;
  }
  return std::nullopt;
}

LaunchChoice launch_from_probe(const LaunchProbe& probe, const GpuOptions& base) {
  LaunchChoice c;
  c.options = base;
  c.requested = "auto";
  c.source = "probe";
  c.probe = probe;
  const std::string what = "an axpy of " + std::to_string(probe.elements) + " floats";
  if (!probe.compute_failure.empty() || !usable_seconds(probe.compute_seconds)) {
    c.options.launch = LaunchPath::fragment;
    c.reason = "the compute path failed in the probe (" +
               (probe.compute_failure.empty() ? std::string("no timing") : probe.compute_failure) + ")";
    return c;
  }
  const double ratio = probe.fragment_seconds / probe.compute_seconds;  // > 1: compute faster
  const bool compute = ratio >= kLaunchComputeMargin;
  char verdict[96];
  if (compute) std::snprintf(verdict, sizeof verdict, "compute %.2fx faster", ratio);
  else if (ratio < 1) std::snprintf(verdict, sizeof verdict, "fragment %.2fx faster", 1 / ratio);
  else
    std::snprintf(verdict, sizeof verdict, "compute only %.2fx faster, below the %.2fx margin", ratio,
                  kLaunchComputeMargin);
  c.options.launch = compute ? LaunchPath::compute : LaunchPath::fragment;
  c.reason = what + " took " + milliseconds(probe.compute_seconds) + " on compute, " +
             milliseconds(probe.fragment_seconds) + " on fragment (" + verdict + ")";
  return c;
}

// ---- the cache ----

LaunchCacheKey launch_cache_key(const GlInfo& info, const GpuOptions& base) {
  return {info.vendor, info.renderer, info.version, base.local_size_x, base.local_size_y};
}

std::string launch_cache_path(const std::string& directory, const LaunchCacheKey& key) {
  // FNV-1a (64 bits) of the key: a short file name per device; the file repeats the key, checked on read.
  std::uint64_t h = 1469598103934665603ull;
  const std::string text = key.vendor + "\n" + key.renderer + "\n" + key.version + "\n" +
                           std::to_string(key.local_size_x) + "x" + std::to_string(key.local_size_y);
  for (unsigned char ch : text) h = (h ^ ch) * 1099511628211ull;
  char name[40];
  std::snprintf(name, sizeof name, "launch-%016llx.json", (unsigned long long)h);
  return (std::filesystem::path(directory) / name).string();
}

std::optional<LaunchProbe> read_launch_cache(const std::string& directory, const LaunchCacheKey& key) {
  if (directory.empty()) return std::nullopt;
  try {
    std::ifstream in(launch_cache_path(directory, key), std::ios::binary);
    if (!in) return std::nullopt;
    std::stringstream text;
    text << in.rdbuf();
    const nlohmann::json j = nlohmann::json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
    if (!j.is_object() || j.value("format", 0) != kCacheFormat) return std::nullopt;
    const std::vector<int> local_size{key.local_size_x, key.local_size_y};
    if (j.value("vendor", "") != key.vendor || j.value("renderer", "") != key.renderer ||
        j.value("version", "") != key.version || j.value("local_size", std::vector<int>{}) != local_size)
      return std::nullopt;
    LaunchProbe p;
    p.elements = j.at("elements").get<std::int64_t>();
    p.repetitions = j.at("repetitions").get<int>();
    p.fragment_seconds = j.at("fragment_seconds").get<double>();
    p.compute_seconds = j.at("compute_seconds").get<double>();
    p.probe_seconds = j.value("probe_seconds", 0.0);
    p.compute_failure = j.value("compute_failure", "");
    if (p.elements <= 0 || p.repetitions <= 0 || !usable_seconds(p.fragment_seconds) ||
        (p.compute_failure.empty() && !usable_seconds(p.compute_seconds)))
      return std::nullopt;
    return p;
  } catch (const std::exception&) {  // a wrong type or a missing key: a file this version did not write
    return std::nullopt;
  }
}

std::optional<std::string> write_launch_cache(const std::string& directory, const LaunchCacheKey& key,
                                              const LaunchProbe& probe, std::string* why) {
  try {
    SS_REQUIRE(!directory.empty(), "no cache folder");
    std::error_code ec;
    std::filesystem::create_directories(directory, ec);
    SS_REQUIRE(!ec, "cannot make '" << directory << "': " << ec.message());
    const nlohmann::json j = {{"format", kCacheFormat},
                              {"vendor", key.vendor},
                              {"renderer", key.renderer},
                              {"version", key.version},
                              {"local_size", {key.local_size_x, key.local_size_y}},
                              {"elements", probe.elements},
                              {"repetitions", probe.repetitions},
                              {"fragment_seconds", probe.fragment_seconds},
                              {"compute_seconds", probe.compute_seconds},
                              {"probe_seconds", probe.probe_seconds},
                              {"compute_failure", probe.compute_failure}};
    const std::string path = launch_cache_path(directory, key);
    write_file_atomically(path, j.dump(2) + "\n");
    return path;
  } catch (const std::exception& e) {
    if (why) *why = e.what();
    return std::nullopt;
  }
}

// ---- measuring and resolving ----

LaunchProbe probe_launch_paths(const GlContext& context, const GpuOptions& base, std::int64_t elements, int repetitions) {
  SS_REQUIRE(elements > 0 && repetitions > 0,
             "launch probe: " << elements << " elements, " << repetitions << " repetitions");
  const auto start = Clock::now();
  // A batch of axpys per timing: one glFinish round trip (tens of microseconds) would otherwise be
  // a good part of a compute axpy on a fast device.
  constexpr int batch = 8;
  LaunchProbe probe;
  probe.elements = elements;
  probe.repetitions = repetitions;
  probe.fragment_seconds = probe.compute_seconds = std::numeric_limits<double>::infinity();
  GpuOptions fragment_options = base, compute_options = base;
  fragment_options.launch = LaunchPath::fragment;
  compute_options.launch = LaunchPath::compute;
  ProbePath fragment(context, fragment_options, elements);
  std::unique_ptr<ProbePath> compute;
  const auto compute_failed = [&](const std::exception& e) {
    probe.compute_failure = e.what();
    probe.compute_seconds = 0;
    compute.reset();
  };
  try {
    compute = std::make_unique<ProbePath>(context, compute_options, elements);
    compute->batch(2);  // warm-up: the program compiled, the fields touched, the clocks up
  } catch (const std::exception& e) {
    compute_failed(e);
  }
  fragment.batch(2);
  // Alternating rounds, so that a clock ramping up during the probe slows both paths alike.
  for (int r = 0; r < repetitions; ++r) {
    probe.fragment_seconds = std::min(probe.fragment_seconds, fragment.batch(batch));
    if (!compute) continue;
    try {
      probe.compute_seconds = std::min(probe.compute_seconds, compute->batch(batch));
    } catch (const std::exception& e) {
      compute_failed(e);
    }
  }
  probe.probe_seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return probe;
}

LaunchResolveSettings launch_settings_from_environment(bool verbose) {
  LaunchResolveSettings s;
  s.verbose = verbose;
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  const char* home = std::getenv("HOME");
  if (xdg && xdg[0] == '/') s.cache_directory = std::string(xdg) + "/streamsolve";
  else if (home && home[0] != '\0') s.cache_directory = std::string(home) + "/.cache/streamsolve";
  const char* probe = std::getenv("STREAMSOLVE_LAUNCH_PROBE");
  s.reprobe = probe && std::string(probe) == "always";
  return s;
}

namespace {

LaunchChoice resolve_auto(const GlContext& context, const GpuOptions& gpu, const LaunchResolveSettings& s) {
  const GlInfo& info = context.info();
  if (s.renderer_rule && !s.reprobe)
    if (std::optional<LaunchChoice> c = launch_from_renderer(info.renderer, gpu)) return *c;
  const LaunchCacheKey key = launch_cache_key(info, gpu);
  if (!s.reprobe)
    if (std::optional<LaunchProbe> cached = read_launch_cache(s.cache_directory, key)) {
      LaunchChoice c = launch_from_probe(*cached, gpu);
      c.source = "cache";
      c.cache_file = launch_cache_path(s.cache_directory, key);
      c.reason = "cached probe: " + c.reason;
      return c;
    }
  const LaunchProbe probe = probe_launch_paths(context, gpu, s.probe_elements, s.probe_repetitions);
  LaunchChoice c = launch_from_probe(probe, gpu);
  char took[32];
  std::snprintf(took, sizeof took, "%.3f s", probe.probe_seconds);
  c.reason = "probe (" + std::string(took) + "): " + c.reason;
  std::string why = "no cache folder ($XDG_CACHE_HOME and $HOME unset)";
  if (!s.cache_directory.empty())
    if (std::optional<std::string> file = write_launch_cache(s.cache_directory, key, probe, &why)) c.cache_file = *file;
  if (c.cache_file.empty() && s.verbose)
    std::fprintf(stderr, "streamsolve: launch: the probe is not cached: %s\n", why.c_str());
  return c;
}

}  // namespace

LaunchChoice resolve_launch(const GlContext& context, const GpuOptions& gpu, bool automatic,
                            const LaunchResolveSettings& settings) {
  LaunchChoice c;
  if (automatic) {
    c = resolve_auto(context, gpu, settings);
  } else {
    c.options = gpu;
    c.requested = to_string(gpu.launch);
    c.source = "option";
    c.reason = std::string("forced by --launch ") + to_string(gpu.launch);
  }
  if (settings.verbose)
    std::fprintf(stderr, "streamsolve: launch: %s (%s: %s)\n", to_string(c.path()), c.requested.c_str(), c.reason.c_str());
  return c;
}

nlohmann::json launch_choice_json(const LaunchChoice& c) {
  nlohmann::json j = {{"requested", c.requested}, {"source", c.source}, {"reason", c.reason}};
  if (c.probe) {
    const LaunchProbe& p = *c.probe;
    nlohmann::json probe = {{"elements", p.elements},
                            {"repetitions", p.repetitions},
                            {"fragment_seconds", p.fragment_seconds},
                            {"compute_seconds", p.compute_seconds}};
    if (c.source == "probe") probe["probe_seconds"] = p.probe_seconds;  // measured in this run
    if (!p.compute_failure.empty()) probe["compute_failure"] = p.compute_failure;
    j["probe"] = probe;
  }
  if (!c.cache_file.empty()) j["cache_file"] = c.cache_file;
  return j;
}

}  // namespace ss
