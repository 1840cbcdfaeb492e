#pragma once
// `mpirun -np N streamsolve heat CASE.toml`: the heat solve over N ranks (src/distributed/), one GPU
// or the CPU reference per rank. Rank 0 partitions the base mesh; each rank refines its own part. Output:
// a VTU piece per rank and one .pvtu (.pvd for transient runs), or with --single-vtu one VTU gathered
// at rank 0 (which then refines the whole mesh too), with the owning rank of each tet and node as
// extra arrays; the PNG (drawn on the base mesh) and the JSON summary at rank 0.
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
  bool single_vtu = false;  // the fields gathered into one VTU at rank 0 (else a piece per rank + .pvtu)
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
