#pragma once
// Each subcommand lives in its own cmd_*.cpp and registers itself on the top-level CLI11 app.
// The callback runs the command; errors are thrown as ss::Error and reported once by main().
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "gl/context.hpp"
#include "kernels/gpu_backend.hpp"
#include "kernels/launch_choice.hpp"

namespace ss {

// Options shared by every command that opens a GL context.
struct GlobalOptions {
  GlContextOptions gl;
  CLI::Option* gpu_option = nullptr;  // --gpu: given on the command line (MPI ranks then all use that device)
  // --launch auto|fragment|compute (a comma list for the bench commands that compare paths in one
  // run). auto, the default, is resolved per device once the GL context exists (kernels/launch_choice.hpp).
  std::vector<std::string> launch{"auto"};
  int local_size_x = 16, local_size_y = 16;  // --local-size WxH (compute work group)

  // The launch path of each entry of --launch on `context`, in order, an `auto` resolved for this
  // device (its -v line with gl.verbose); a path met again is dropped (auto,compute on a device
  // where auto is compute runs compute once).
  std::vector<LaunchChoice> launch_choices(const GlContext& context) const;
  // --launch's one entry for a command that runs a single backend (a list is an error): the backend
  // options (launch: the named path; fragment for auto) and whether it is auto.
  GpuOptions gpu_options(bool* automatic) const;
};

// The bench reports' "launch" (the paths run, in order) and "launch_choices" (launch_choice_json of each).
void describe_launches(nlohmann::json& report, const std::vector<LaunchChoice>& choices);

void add_bench_commands(CLI::App& app, GlobalOptions& globals);
// `bench operators`, registered on the `bench` subcommand by add_bench_commands.
void add_bench_operator_commands(CLI::App& bench, GlobalOptions& globals);
// `bench cg` (cmd_bench_cg.cpp), registered on `bench` by add_bench_commands.
void add_bench_cg_command(CLI::App& bench, GlobalOptions& globals);
// `bench flow` (cmd_bench_flow.cpp), registered on `bench` by add_bench_commands.
void add_bench_flow_command(CLI::App& bench, GlobalOptions& globals);
// `bench refine` (cmd_bench_refine.cpp), registered on `bench` by add_bench_commands.
void add_bench_refine_command(CLI::App& bench, GlobalOptions& globals);
// heat CASE.toml
void add_heat_command(CLI::App& app, GlobalOptions& globals);
// flow CASE.toml (cmd_flow.cpp)
void add_flow_command(CLI::App& app, GlobalOptions& globals);
// mesh-info, convert (no GL context).
void add_mesh_commands(CLI::App& app);

}  // namespace ss
