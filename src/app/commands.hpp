#pragma once
// Each subcommand lives in its own cmd_*.cpp and registers itself on the top-level CLI11 app.
// The callback runs the command; errors are thrown as ss::Error and reported once by main().
#include <CLI/CLI.hpp>

#include "gl/context.hpp"

namespace ss {

// Options shared by every command that opens a GL context.
struct GlobalOptions {
  GlContextOptions gl;
};

void add_bench_commands(CLI::App& app, GlobalOptions& globals);
// `bench operators`, registered on the `bench` subcommand by add_bench_commands.
void add_bench_operator_commands(CLI::App& bench, GlobalOptions& globals);
// heat CASE.toml
void add_heat_command(CLI::App& app, GlobalOptions& globals);
// mesh-info, convert (no GL context).
void add_mesh_commands(CLI::App& app);

}  // namespace ss
