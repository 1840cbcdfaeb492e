#include "app/solve_command.hpp"

namespace ss {

void add_solve_options(CLI::App& command, RunOptions& o, const std::string& name, const std::string& png_what) {
  command.add_option("case", o.case_file, "the case file (TOML)")->required();
  command.add_option("--backend", o.backend, "gpu (fragment shaders) or cpu (double-precision reference)")
      ->check(CLI::IsMember({"gpu", "cpu"}));
  command.add_flag("--compare", o.compare, "also solve on the other backend and report the difference");
  command.add_option("--refine", o.refine, "uniform refinement levels (overrides the case file)")->check(CLI::Range(0, 6));
  command.add_option("--out", o.out, "output directory (overrides the case file)");
  command.add_option("--json", o.json, "summary JSON (default: <out>/" + name + ".json)");
  command.add_option("--png", o.png, "picture of " + png_what + " (default: <out>/" + name + ".png)");
  command.add_flag("--no-png", o.no_png, "do not render the PNG (needs no GL context with --backend cpu)");
  command.add_flag("--no-vtu", o.no_vtu, "do not write VTU fields (final or snapshots): the JSON and PNG still are");
  command.add_option("--every", o.every, "write a snapshot every N time steps (overrides [output] every; transient runs)")
      ->check(CLI::PositiveNumber);
  command.add_flag("--distributed", o.distributed,
                   "run through the MPI path (partition, halo exchange) even on one rank; implied under mpirun -np N > 1");
  command.add_flag("--single-vtu", o.single_vtu,
                   "MPI runs: gather the fields into one VTU at rank 0 instead of one piece per rank + a .pvtu");
}

void set_device_options(RunOptions& o, const GlobalOptions& globals) {
  o.gl = globals.gl;
  o.gpu_given = globals.gpu_option && globals.gpu_option->count() > 0;
  // --launch names one path for a run on the GPU (a list is an error); a CPU run never reads it.
  // auto is resolved by the run once it has the device (RunOptions::launch_auto).
  if (o.backend == "gpu" || o.compare) o.gpu = globals.gpu_options(&o.launch_auto);
}

}  // namespace ss
