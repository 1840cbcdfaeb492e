#pragma once
// What every run (heat, flow; serial or over MPI ranks) takes besides its physics: the case, the
// backend, the output paths and the device. Plain values: the command line fills them (src/app), a
// test or another program sets them directly.
#include <optional>
#include <string>

#include "gl/context.hpp"
#include "kernels/gpu_backend.hpp"

namespace ss {

struct RunOptions {
  std::string case_file;       // the case file (TOML)
  std::string backend = "gpu";  // "gpu" (the GL kernels) or "cpu" (the double-precision reference)
  bool compare = false;         // also solve on the other backend and report the difference (serial runs)
  std::optional<int> refine;    // overrides the case file's [mesh] refine

  // Outputs. `out`: the output folder (empty: the case file's [output] directory); `json`, `png`:
  // the summary and the picture (empty: <out>/<problem>.json, .png).
  std::string out, json, png;
  bool no_png = false;
  bool no_vtu = false;       // no VTU fields (final or snapshots); the JSON, the PNG and checkpoints still
  std::optional<int> every;  // snapshot interval in time steps (overrides the case file's output.every)
  bool single_vtu = false;   // MPI runs: the fields gathered into one VTU at rank 0 (else a piece per rank + .pvtu)

  // The MPI path (partition, halo exchange) even on one rank; a run under mpirun on several ranks
  // takes it anyway.
  bool distributed = false;

  // The device. MPI ranks take the GPU of their local rank unless `gpu_given` (every rank: gl.gpu).
  GlContextOptions gl;
  bool gpu_given = false;
  GpuOptions gpu;  // how GPU kernels run (fragment or compute launches)
  // Choose gpu.launch per device once the GL context exists (--launch auto, the command line's
  // default; resolve_launch in kernels/launch_choice.hpp): gpu.launch is then not read. Off, as a
  // program that fills these options itself gets it, gpu.launch is taken as it is.
  bool launch_auto = false;

  // The result keeps the final fields and where they live (HeatRunResult::temperature and nodes,
  // FlowRunOutcome::fields and cell_centroids): for tests and programs that use the solution; off,
  // a big run keeps no copy after it returns.
  bool keep_fields = false;
};

// "cpu" for "gpu" and back: the backend `compare` runs second.
inline std::string other_backend(const std::string& backend) { return backend == "gpu" ? "cpu" : "gpu"; }

}  // namespace ss
