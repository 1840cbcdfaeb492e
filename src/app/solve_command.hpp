#pragma once
// The command-line side of the solve commands (heat, flow): their common options, parsed into the
// run layer's RunOptions (src/run/run_options.hpp), and the global GL options copied into it.
#include <string>

#include <CLI/CLI.hpp>

#include "app/commands.hpp"
#include "run/run_options.hpp"

namespace ss {

// CASE.toml [--backend gpu|cpu] [--compare] [--refine K] [--out DIR] [--json FILE] [--png FILE | --no-png]
//           [--no-vtu] [--every N] [--distributed] [--single-vtu]
// Registers the options above on `command`; `name` ("heat", "flow") names the default files in the help.
void add_solve_options(CLI::App& command, RunOptions& options, const std::string& name, const std::string& png_what);

// The device options of `globals` (GL context, --gpu given, the --launch path when a run uses the GPU)
// into `options`.
void set_device_options(RunOptions& options, const GlobalOptions& globals);

}  // namespace ss
