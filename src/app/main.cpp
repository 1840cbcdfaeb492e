// streamsolve — PDE solvers on unstructured tetrahedral meshes with OpenGL fragment shaders.
#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <exception>
#include <new>
#include <string>
#include <sys/resource.h>
#include <thread>

#include <CLI/CLI.hpp>

#include "app/commands.hpp"
#include "parallel/mpi_env.hpp"
#include "util/error.hpp"
#include "util/fatal_signal.hpp"
#include "util/host_memory.hpp"

namespace ss {

std::vector<LaunchChoice> GlobalOptions::launch_choices(const GlContext& context) const {
  SS_REQUIRE(!launch.empty(), "--launch names no launch path");
  std::vector<LaunchChoice> list;
  for (const std::string& name : launch) {
    const LaunchRequest request = parse_launch_request(name);
    GpuOptions o;
    o.launch = request.path, o.local_size_x = local_size_x, o.local_size_y = local_size_y;
    LaunchChoice c = resolve_launch(context, o, request.automatic, launch_settings_from_environment(gl.verbose));
    const bool again = std::any_of(list.begin(), list.end(), [&](const LaunchChoice& e) { return e.path() == c.path(); });
    if (!again) list.push_back(std::move(c));
  }
  return list;
}

GpuOptions GlobalOptions::gpu_options(bool* automatic) const {
  SS_REQUIRE(launch.size() == 1, "this command runs one launch path; --launch names " << launch.size());
  const LaunchRequest request = parse_launch_request(launch[0]);
  GpuOptions o;
  o.launch = request.path, o.local_size_x = local_size_x, o.local_size_y = local_size_y;
  *automatic = request.automatic;
  return o;
}

void describe_launches(nlohmann::json& report, const std::vector<LaunchChoice>& choices) {
  report["launch"] = nlohmann::json::array();
  report["launch_choices"] = nlohmann::json::array();
  for (const LaunchChoice& c : choices) {
    report["launch"].push_back(to_string(c.path()));
    report["launch_choices"].push_back(launch_choice_json(c));
  }
}

// The one line a failed allocation gets: what limit the process ran under, and what to change.
std::string out_of_memory_message() {
  std::string limit = "no address-space limit";
  rlimit as{};
  if (getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY)
    limit = "address-space limit " + std::to_string(as.rlim_cur >> 20) + " MB (ulimit -v)";
  return "out of memory: an allocation failed (peak resident " + std::to_string(ss::peak_host_memory_bytes() >> 20) + " MB, " +
         limit + "); use a coarser mesh or a smaller refine, or run where more memory is available";
}

// The one error line of a failed run. Under MPI the failing rank names itself and ends every rank
// (an MPI abort: no rank waits forever). When several ranks fail alike (a --gpu no rank has, a case
// every rank parses), rank r speaks only after r × 0.2 s (at most 2 s): the lowest failing rank's
// abort ends the others first, so the job prints one line.
void report_error(bool parallel, const std::string& message) {
  if (!parallel) {
    std::fprintf(stderr, "streamsolve: error: %s\n", message.c_str());
    return;
  }
  const int rank = mpi::rank();
  if (rank > 0) std::this_thread::sleep_for(std::chrono::milliseconds(200 * std::min(rank, 10)));
  std::fprintf(stderr, "streamsolve: error: rank %d of %d: %s\n", rank, mpi::size(), message.c_str());
  std::fflush(stderr);
  mpi::abort(1);
}

}  // namespace ss

int main(int argc, char** argv) {
  ss::use_huge_pages_for_large_arrays(argv);
  // A file-size limit (ulimit -f) then makes write() fail with EFBIG, which the writers report as one
  // error line and clean up after, instead of SIGXFSZ killing the process mid-file.
  std::signal(SIGXFSZ, SIG_IGN);
  ss::keep_freed_memory_for_reuse();
  ss::report_fatal_signals();
  ss::GlobalOptions globals;
  CLI::App app{"streamsolve: GPU PDE solvers on tetrahedral meshes with OpenGL (heat, flow)"};
  app.set_version_flag("--version", std::string("streamsolve ") + SS_VERSION);
  app.require_subcommand(1);
  app.fallthrough();

  auto* gl = app.add_option_group("GL device");
  globals.gpu_option = gl->add_option("--gpu", globals.gl.gpu, "EGL device index to run on (default 0; under mpirun: local rank modulo the number of devices)")
                           ->check(CLI::NonNegativeNumber);
  gl->add_flag("--window", globals.gl.window, "open a visible GLFW window instead of headless EGL");
  gl->add_flag("--glfw", globals.gl.use_glfw, "use a hidden GLFW window instead of headless EGL");
  gl->add_flag("-v,--verbose", globals.gl.verbose, "print GL vendor, renderer, version, the chosen device and launch path");
  gl->add_option("--launch", globals.launch,
                 "how GPU kernels run: auto (default: the faster path on this device, probed once and cached), "
                 "fragment (draws) or compute (dispatches with image stores); the bench commands take a list, "
                 "e.g. fragment,compute")
      ->delimiter(',')
      ->check(CLI::IsMember({"auto", "fragment", "compute"}));
  gl->add_option_function<std::string>(
         "--local-size",
         [&globals](const std::string& value) {
           int x = 0, y = 0;
           char sep = 0, extra = 0;
           if (std::sscanf(value.c_str(), "%d%c%d%c", &x, &sep, &y, &extra) != 3 || sep != 'x' || x < 1 || y < 1)
             throw CLI::ValidationError("--local-size", "expected WxH, e.g. 16x16 (got '" + value + "')");
           globals.local_size_x = x, globals.local_size_y = y;
         },
         "compute work-group size WxH for --launch compute (default 16x16)");

  ss::add_bench_commands(app, globals);
  ss::add_mesh_commands(app);
  ss::add_heat_command(app, globals);
  ss::add_flow_command(app, globals);

  // Under mpirun/mpiexec every rank runs this same main (thesis §8.1); MPI is not touched otherwise.
  ss::mpi::init(&argc, &argv);
  const bool parallel = ss::mpi::size() > 1;
  int code = 0;
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    code = ss::mpi::rank() == 0 ? app.exit(e) : e.get_exit_code();  // every rank has the same argv: print once
  } catch (const ss::Error& e) {
    ss::report_error(parallel, std::string(e.what()) + " (" + e.file() + ":" + std::to_string(e.line()) + ")");
    code = 1;
  } catch (const std::bad_alloc&) {
    ss::report_error(parallel, ss::out_of_memory_message());
    code = 1;
  } catch (const std::exception& e) {
    ss::report_error(parallel, e.what());
    code = 1;
  }
  ss::mpi::finalize();
  return code;
}
