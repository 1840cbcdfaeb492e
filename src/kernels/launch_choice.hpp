#pragma once
// `--launch auto`: which launch path (LaunchPath) runs a device's kernels, chosen once the GL context
// exists. The fragment path is the thesis' method and the fastest on Mesa and consumer GPUs; on
// NVIDIA H100/H200 only two TPCs run pixel shaders and the compute path is 10–35× faster. So:
//
//   1. a forced path (--launch fragment|compute) is taken as it is;
//   2. the renderer alone decides where the outcome is known without measuring
//      (launch_from_renderer: Mesa's software rasterizers → fragment);
//   3. else a probe result cached for this device (vendor, renderer, version, work group) decides;
//   4. else a short probe (probe_launch_paths: the same axpy on both paths, glFinish-timed) decides
//      (launch_from_probe) and is cached.
//
// The cache is a small JSON file per device under $XDG_CACHE_HOME/streamsolve/ (else
// ~/.cache/streamsolve/). A cache that cannot be read or written never fails a run: the run probes.
// STREAMSOLVE_LAUNCH_PROBE=always measures again on every run (and rewrites the cache), whatever
// the renderer or the cache say; deleting the folder forgets every device.
#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "kernels/gpu_backend.hpp"

namespace ss {

class GlContext;
struct GlInfo;

// One entry of --launch: "auto" (automatic: chosen per device) or a path (parse_launch_path);
// anything else is an ss::Error.
struct LaunchRequest {
  LaunchPath path = LaunchPath::fragment;  // the forced path (fragment, unread, for auto)
  bool automatic = false;
};
LaunchRequest parse_launch_request(const std::string& name);

// One probe: the best time of one axpy (z = y + a·x on R32F fields of `elements` floats) on each
// path over `repetitions` timed batches.
struct LaunchProbe {
  std::int64_t elements = 0;
  int repetitions = 0;
  double fragment_seconds = 0, compute_seconds = 0;  // one axpy; compute 0 when `compute_failure`
  double probe_seconds = 0;  // wall time of the whole probe (programs, uploads, warm-up, batches)
  std::string compute_failure;  // why the compute path could not run (then fragment is chosen)
};

struct LaunchChoice {
  GpuOptions options;          // the resolved options: options.launch is the path
  std::string requested;       // "auto", "fragment" or "compute"
  std::string source;          // "option" (forced), "renderer", "cache" or "probe"
  std::string reason;          // one line: why this path
  std::optional<LaunchProbe> probe;  // the measurement that decided (source "cache" or "probe")
  std::string cache_file;      // the file read ("cache") or written ("probe"); empty when none
  LaunchPath path() const { return options.launch; }
};

// ---- the decision (pure) ----

// The path the renderer string alone decides, or nothing (then measure).
std::optional<LaunchChoice> launch_from_renderer(const std::string& renderer, const GpuOptions& base);
// The path a probe's timings decide: compute only when its axpy is clearly faster than fragment's
// (kLaunchComputeMargin), fragment when compute failed.
LaunchChoice launch_from_probe(const LaunchProbe& probe, const GpuOptions& base);
// Compute must beat fragment by this factor. The fragment path is the reference path (every CI run
// takes it on llvmpipe); where the two are within noise of each other a run should not flip between
// them from one probe to the next. The devices this is for differ by 10× and more.
inline constexpr double kLaunchComputeMargin = 1.25;

// ---- the cache (never throws) ----

// What identifies a device's probe: the GL strings and the compute work group it ran with.
struct LaunchCacheKey {
  std::string vendor, renderer, version;
  int local_size_x = 16, local_size_y = 16;
};
LaunchCacheKey launch_cache_key(const GlInfo& info, const GpuOptions& base);
// <directory>/launch-<16 hex digits of a hash of the key>.json
std::string launch_cache_path(const std::string& directory, const LaunchCacheKey& key);
// The cached probe of `key` in `directory`, or nothing when the file is missing, unreadable, not
// valid JSON, of another format or another key, or holds unusable timings.
std::optional<LaunchProbe> read_launch_cache(const std::string& directory, const LaunchCacheKey& key);
// Writes `probe` for `key` (the folder made if needed, the file replaced atomically). Returns the
// file, or nothing (and `why`) when it cannot be written.
std::optional<std::string> write_launch_cache(const std::string& directory, const LaunchCacheKey& key,
                                              const LaunchProbe& probe, std::string* why = nullptr);

// ---- measuring and resolving (GL) ----

// Times `repetitions` rounds of a batch of axpys on each path (alternating, after a warm-up) on the
// current context; the best batch of each path gives its time. The compute path's errors are caught
// (LaunchProbe::compute_failure); the fragment path's are thrown.
LaunchProbe probe_launch_paths(const GlContext& context, const GpuOptions& base, std::int64_t elements = 1 << 22,
                               int repetitions = 5);

struct LaunchResolveSettings {
  std::string cache_directory;  // empty: no cache (probe every time)
  bool reprobe = false;         // measure even where the renderer or the cache would decide
  bool renderer_rule = true;    // let the renderer decide where it can (tests turn it off)
  // 4M floats (16 MiB a field): large enough that the passes are bound by the chip, not by launch
  // latency. On an H200 an axpy of 4M floats took 0.022 ms on compute and 0.30 ms on fragment, one
  // of 64K floats 0.009 and 0.010 ms: a small probe would not see the difference.
  std::int64_t probe_elements = 1 << 22;
  int probe_repetitions = 5;
  bool verbose = false;         // one line on stderr: the path and the reason
};
// $XDG_CACHE_HOME/streamsolve (an absolute XDG_CACHE_HOME only, as the XDG spec says), else
// $HOME/.cache/streamsolve, else empty; reprobe from STREAMSOLVE_LAUNCH_PROBE=always.
LaunchResolveSettings launch_settings_from_environment(bool verbose);

// The path of a run on `context`: `gpu` as it is unless `automatic`, else steps 2–4 above.
LaunchChoice resolve_launch(const GlContext& context, const GpuOptions& gpu, bool automatic,
                            const LaunchResolveSettings& settings);

// The JSON summaries' "launch_choice": {"requested", "source", "reason"[, "probe": {...}][, "cache_file"]}.
nlohmann::json launch_choice_json(const LaunchChoice& choice);

}  // namespace ss
