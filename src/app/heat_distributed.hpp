#pragma once
// `mpirun -np N streamsolve heat CASE.toml`: the heat solve over N ranks (src/parallel/), one GPU or
// the CPU reference per rank. Output is gathered at rank 0: one VTU (plus PVD for transient runs),
// the PNG and the JSON summary, the same files as a serial run, with the owning rank of each tet
// and node as extra arrays.
#include <optional>
#include <string>
#include <vector>

#include "gl/context.hpp"
#include "kernels/gpu_backend.hpp"

namespace ss {

struct DistributedHeatOptions {
  std::string case_file;
  std::string backend = "gpu";
  std::optional<int> refine;
  std::string out, json, png;
  bool no_png = false;
  bool no_vtu = false;
  bool single_vtu = false;  // the final field gathered into one VTU at rank 0 (else a piece per rank + .pvtu)
  std::optional<int> every;  // overrides the case file's output.every
  std::string format = "R32F";
  GlContextOptions gl;  // gl.gpu is replaced by the rank's device unless gpu_given
  bool gpu_given = false;
  GpuOptions gpu;       // --launch fragment|compute
};

// The final files of a heat run under their default names, summary first (TimeSeries::remove_previous_run).
inline const std::vector<std::string> kHeatFinalFiles = {"heat.json", "heat.png", "heat.vtu", "heat_final.vtu",
                                                         "heat.pvtu", "heat_final.pvtu"};

void run_heat_distributed(const DistributedHeatOptions& options);

}  // namespace ss
