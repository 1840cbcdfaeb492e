#pragma once
// Multigrid for the heat system on the finest level made on the GPU (operators/gpu_refined_heat.hpp),
// whose tables the host never holds: the finest level's smoother data come from the GPU — its
// system diagonal downloaded, λmax(D⁻¹A) by CG-Lanczos on the GPU in float (estimate_lambda_max_on) —
// and the levels below it (0 .. K − 1 on the host, the K − 1 → K map from level K − 1's topology) are
// those of setup_multigrid_below_finest.
#include "multigrid/multigrid.hpp"
#include "operators/gpu_refined_heat.hpp"

namespace ss {

// The finest level's smoother data of the system a·M + s·K̃ (throws ss::Error naming the node for
// a diagonal entry that is not positive).
FinestSmoother gpu_finest_smoother(GpuBackend& gpu, GpuRefinedHeatSystem& system, double a, double s,
                                   const MultigridOptions& options);

// The preconditioner factory for `system` (set it as system.preconditioner): Multigrid<GpuBackend>
// built on first use and again when (a, s) changes. `system` and `geometric` must outlive it.
std::function<std::function<void(const Field&, Field&)>(double, double)>
refined_level_multigrid_factory(GpuBackend& gpu, GpuRefinedHeatSystem& system, const GeometricLevels& geometric,
                                const MultigridOptions& options = {}, MultigridStats* stats = nullptr);

}  // namespace ss
