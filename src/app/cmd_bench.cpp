// `streamsolve bench kernels` and `streamsolve bench layout`.
#include <chrono>
#include <cstdio>
#include <functional>
#include <random>
#include <thread>

#include <nlohmann/json.hpp>

#include "app/bench_timing.hpp"
#include "app/commands.hpp"
#include "cpu/cpu_backend.hpp"
#include "field/layout.hpp"
#include "gl/context.hpp"
#include "kernels/gpu_backend.hpp"
#include "util/atomic_file.hpp"
#include "util/error.hpp"

namespace ss {
namespace {

struct KernelBenchOptions {
  std::vector<std::int64_t> sizes{1 << 16, 1 << 20, 4'000'000, 1 << 24};
  std::vector<std::string> formats{"R32F", "RGBA32F"};
  std::string layout = "tight";
  int reduction_fold = 4;
  double min_seconds = 0.2;
  std::string json;
};

// Bytes each operation moves per element (floats on the GPU, doubles on the CPU reference).
int streams(const std::string& op) {
  if (op == "copy") return 2;   // read x, write z
  if (op == "axpy") return 3;   // read x, y, write z
  if (op == "dot") return 2;    // read x, y (the partial sums are negligible)
  return 1;                     // sum: read x
}

void run_kernel_bench(const KernelBenchOptions& o, const GlobalOptions& globals) {
  GlContext context(globals.gl);
  nlohmann::json report;
  report["device"] = context.info().renderer;
  report["gl_version"] = context.info().version;
  report["gl_device"] = context.info().device;
  report["layout_policy"] = o.layout;
  report["reduction_fold"] = o.reduction_fold;
  const std::vector<LaunchChoice> launches = globals.launch_choices(context);
  describe_launches(report, launches);  // launch paths timed, in order (each result row names its own)
  report["local_size"] = {globals.local_size_x, globals.local_size_y};
  report["cpu_threads"] = std::thread::hardware_concurrency();
  report["results"] = nlohmann::json::array();
  report["fusion"] = nlohmann::json::array();
  std::printf("%-5s %10s %-8s %-8s %12s %9s %8s %12s %9s %8s %8s\n", "op", "n", "format", "launch", "gpu_s", "gpu_GB/s",
              "%copy", "cpu_s", "cpu_GB/s", "gpu/cpu", "vs_frag");
  std::mt19937_64 rng(42);
  const std::vector<std::string> ops{"copy", "axpy", "dot", "sum"};
  for (std::int64_t n : o.sizes) {
    std::uniform_real_distribution<double> dist(-1.0, 1.0);
    std::vector<double> hx(static_cast<size_t>(n)), hy(static_cast<size_t>(n));
    for (auto& v : hx) v = float(dist(rng));
    for (auto& v : hy) v = float(dist(rng));

    // CPU reference timings (double precision, all threads), once per size.
    CpuBackend cpu;
    CpuBackend::Vector cx = hx, cy = hy, cz(hx.size());
    volatile double sink = 0;
    std::map<std::string, double> cpu_seconds;
    const auto nothing = [] {};
    cpu_seconds["copy"] = time_per_call([&] { cpu.copy(cx, cz); }, nothing, o.min_seconds);
    cpu_seconds["axpy"] = time_per_call([&] { cpu.axpy(0.5, cx, cy, cz); }, nothing, o.min_seconds);
    cpu_seconds["dot"] = time_per_call([&] { sink = sink + cpu.dot(cx, cy); }, nothing, o.min_seconds);
    cpu_seconds["sum"] = time_per_call([&] { sink = sink + cpu.sum(cx); }, nothing, o.min_seconds);

    for (const std::string& format : o.formats) {
      LayoutOptions lo;
      lo.policy = parse_layout_policy(o.layout);
      lo.packing = parse_packing(format);
      std::map<std::string, double> fragment_seconds;  // this size and format, when fragment ran first
      for (const LaunchChoice& choice : launches) {
        const GpuOptions& path = choice.options;
        const std::string launch = to_string(path.launch);
        GpuBackend gpu(context, lo, path);
        gpu.set_reduction_fold(o.reduction_fold);
        GpuBackend::Vector x = gpu.upload(hx), y = gpu.upload(hy), z = gpu.make_vector(n);
        const auto sync = [&] { gpu.finish(); };
        // Warm-up: compile every program and let the GPU reach its clocks before anything is timed.
        time_per_call([&] { gpu.copy(x, z); gpu.axpy(0.5, x, y, z); sink = sink + gpu.dot(x, y) + gpu.sum(x); },
                      sync, o.min_seconds / 2);
        std::map<std::string, double> gpu_seconds;
        gpu_seconds["copy"] = time_per_call([&] { gpu.copy(x, z); }, sync, o.min_seconds);
        gpu_seconds["axpy"] = time_per_call([&] { gpu.axpy(0.5, x, y, z); }, sync, o.min_seconds);
        gpu_seconds["dot"] = time_per_call([&] { sink = sink + gpu.dot(x, y); }, sync, o.min_seconds);
        gpu_seconds["sum"] = time_per_call([&] { sink = sink + gpu.sum(x); }, sync, o.min_seconds);
        if (path.launch == LaunchPath::fragment) fragment_seconds = gpu_seconds;
        // What fusing passes buys CG: x += a·p and r −= a·q in one two-output pass against two axpy
        // passes, and dot with the product in the first reduction pass against multiply-then-sum.
        {
          GpuBackend::Vector p = gpu.upload(hy), q = gpu.upload(hx), r = gpu.upload(hy), w = gpu.make_vector(n);
          const double fused_update = time_per_call([&] { gpu.update_pair(1e-3, p, q, z, r); }, sync, o.min_seconds);
          const double two_axpys = time_per_call([&] { gpu.axpy(1e-3, p, z, z); gpu.axpy(-1e-3, q, r, r); }, sync,
                                                 o.min_seconds);
          const double unfused_dot = time_per_call([&] { gpu.multiply(x, y, w); sink = sink + gpu.sum(w); }, sync,
                                                   o.min_seconds);
          report["fusion"].push_back({{"n", n}, {"format", format}, {"launch", launch},
                                      {"update_pair_seconds", fused_update}, {"two_axpy_seconds", two_axpys},
                                      {"dot_seconds", gpu_seconds["dot"]}, {"multiply_then_sum_seconds", unfused_dot}});
          std::printf("fusion %10lld %-8s %-8s update_pair %.3e s vs 2 axpy %.3e s (%.2fx); dot %.3e s vs multiply+sum %.3e s (%.2fx)\n",
                      (long long)n, format.c_str(), launch.c_str(), fused_update, two_axpys, two_axpys / fused_update,
                      gpu_seconds["dot"], unfused_dot, unfused_dot / gpu_seconds["dot"]);
        }
        const Layout layout = gpu.layout_for(n);
        for (const std::string& op : ops) {
          const double gpu_gbps = double(streams(op)) * 4.0 * double(n) / gpu_seconds[op] / 1e9;
          const double cpu_gbps = double(streams(op)) * 8.0 * double(n) / cpu_seconds[op] / 1e9;
          const double copy_gbps = 2.0 * 4.0 * double(n) / gpu_seconds["copy"] / 1e9;
          const double of_copy = 100.0 * gpu_gbps / copy_gbps;
          nlohmann::json row = {{"op", op}, {"n", n}, {"format", format}, {"launch", launch},
                                {"width", layout.width}, {"height", layout.height},
                                {"gpu_seconds", gpu_seconds[op]}, {"gpu_gbps", gpu_gbps},
                                {"percent_of_copy", of_copy},
                                {"cpu_seconds", cpu_seconds[op]}, {"cpu_gbps", cpu_gbps},
                                {"gpu_over_cpu_speedup", cpu_seconds[op] / gpu_seconds[op]}};
          if (path.launch == LaunchPath::compute) {
            row["local_size"] = {path.local_size_x, path.local_size_y};
            // The same op on the fragment path of this run (its copy is the fragment ceiling).
            if (fragment_seconds.count(op)) {
              row["fragment_gpu_seconds"] = fragment_seconds[op];
              row["speedup_over_fragment"] = fragment_seconds[op] / gpu_seconds[op];
              row["percent_of_fragment_copy"] = 100.0 * gpu_gbps / (8.0 * double(n) / fragment_seconds["copy"] / 1e9);
            }
          }
          report["results"].push_back(row);
          std::printf("%-5s %10lld %-8s %-8s %12.3e %9.1f %7.1f%% %12.3e %9.1f %8.2f", op.c_str(), (long long)n,
                      format.c_str(), launch.c_str(), gpu_seconds[op], gpu_gbps, of_copy, cpu_seconds[op], cpu_gbps,
                      cpu_seconds[op] / gpu_seconds[op]);
          if (path.launch == LaunchPath::compute && fragment_seconds.count(op))
            std::printf(" %8.2f", fragment_seconds[op] / gpu_seconds[op]);
          std::printf("\n");
          std::fflush(stdout);
        }
      }
    }
  }
  if (!o.json.empty()) write_file_atomically(o.json, report.dump(2) + "\n");
}

struct LayoutBenchOptions {
  std::int64_t n_min = 1024;
  std::int64_t n_max = 3'000'000;
  int max_size = 16384;
  std::string json;
};

void run_layout_bench(const LayoutBenchOptions& o) {
  SS_REQUIRE(1 <= o.n_min && o.n_min <= o.n_max, "--n-min must be between 1 and --n-max");
  struct Case {
    LayoutPolicy policy;
    int rmin;
  };
  const std::vector<Case> cases{{LayoutPolicy::tight, 0}, {LayoutPolicy::thesis, 32}, {LayoutPolicy::thesis, 64},
                                {LayoutPolicy::thesis, 128}};
  nlohmann::json report;
  report["layout"] = nlohmann::json::array();
  std::printf("%-7s %5s %10s %10s %10s %10s\n", "policy", "rmin", "n_min", "n_max", "max_pad_%", "mean_pad_%");
  for (const Case& c : cases) {
    LayoutOptions lo;
    lo.policy = c.policy;
    lo.rmin = c.rmin ? c.rmin : 32;
    lo.max_size = o.max_size;
    double max_pad = 0.0, sum_pad = 0.0;
    std::int64_t worst_n = o.n_min;
    for (std::int64_t n = o.n_min; n <= o.n_max; ++n) {
      const double pad = make_layout(n, lo).padding_percent();
      sum_pad += pad;
      if (pad > max_pad) max_pad = pad, worst_n = n;
    }
    const double mean_pad = sum_pad / double(o.n_max - o.n_min + 1);
    nlohmann::json row = {{"policy", to_string(c.policy)}, {"n_min", o.n_min}, {"n_max", o.n_max},
                          {"max_padding_percent", max_pad}, {"mean_padding_percent", mean_pad}, {"worst_n", worst_n}};
    row["rmin"] = c.rmin ? nlohmann::json(c.rmin) : nlohmann::json(nullptr);
    report["layout"].push_back(row);
    std::printf("%-7s %5s %10lld %10lld %10.4f %10.4f\n", to_string(c.policy), c.rmin ? std::to_string(c.rmin).c_str() : "-",
                (long long)o.n_min, (long long)o.n_max, max_pad, mean_pad);
  }
  if (!o.json.empty()) write_file_atomically(o.json, report.dump(2) + "\n");
}

}  // namespace

void add_bench_commands(CLI::App& app, GlobalOptions& globals) {
  auto* bench = app.add_subcommand("bench", "benchmarks that print figures (and write JSON)");
  bench->require_subcommand(1);
  add_bench_operator_commands(*bench, globals);  // `bench operators` (cmd_bench_operators.cpp)
  add_bench_cg_command(*bench, globals);         // `bench cg` (cmd_bench_cg.cpp)
  add_bench_flow_command(*bench, globals);       // `bench flow` (cmd_bench_flow.cpp)
  add_bench_refine_command(*bench, globals);     // `bench refine` (cmd_bench_refine.cpp)

  static KernelBenchOptions kernels;
  auto* k = bench->add_subcommand("kernels",
                                  "GB/s of copy, axpy, dot, sum on the GPU (each --launch path; e.g. --launch "
                                  "fragment,compute puts both side by side) and the CPU reference");
  k->add_option("--sizes", kernels.sizes, "element counts")->delimiter(',')->check(CLI::Range(std::int64_t(1), std::int64_t(1) << 34));
  k->add_option("--formats", kernels.formats, "texture formats: R32F, RGBA32F")->delimiter(',');
  k->add_option("--layout", kernels.layout, "layout policy: tight or thesis")->check(CLI::IsMember({"tight", "thesis"}));
  k->add_option("--reduction-fold", kernels.reduction_fold, "texels per side combined by a fragment-path reduction pass (2 = thesis quarter pass, 4); the compute path reduces in one work-group pass")
      ->check(CLI::IsMember({2, 4}));
  k->add_option("--min-seconds", kernels.min_seconds, "time each measurement for at least this long");
  k->add_option("--json", kernels.json, "write the results as JSON to this file");
  k->callback([&globals] { run_kernel_bench(kernels, globals); });

  static LayoutBenchOptions layout;
  auto* l = bench->add_subcommand("layout", "max and mean padding of the layout policies over a range of sizes");
  l->add_option("--n-min", layout.n_min, "smallest array size");
  l->add_option("--n-max", layout.n_max, "largest array size");
  l->add_option("--max-size", layout.max_size, "texture size limit assumed for the tight policy");
  l->add_option("--json", layout.json, "write the results as JSON to this file");
  l->callback([] { run_layout_bench(layout); });
}

}  // namespace ss
