#include "multigrid/refined_level_multigrid.hpp"

#include "util/error.hpp"

namespace ss {

FinestSmoother gpu_finest_smoother(GpuBackend& gpu, GpuRefinedHeatSystem& system, double a, double s,
                                   const MultigridOptions& options) {
  const std::int64_t n = system.num_nodes();
  FinestSmoother fine;
  fine.fixed.assign(size_t(n), 0.0);
  for (std::int32_t i : system.fixed_nodes()) fine.fixed[size_t(i)] = 1.0;
  fine.inverse_diagonal = gpu.download(system.system_diagonal(a, s));
  for (size_t i = 0; i < fine.inverse_diagonal.size(); ++i) {
    SS_REQUIRE(fine.inverse_diagonal[i] > 0, "multigrid: diagonal entry " << i << " of the finest level is "
                                                 << fine.inverse_diagonal[i] << " (the system must be SPD)");
    fine.inverse_diagonal[i] = 1.0 / fine.inverse_diagonal[i];
  }
  if (n > options.coarse_size) {
    const Field inverse_diagonal = gpu.upload(fine.inverse_diagonal);
    fine.lambda_max = estimate_lambda_max_on<GpuBackend>(
        gpu, [&](const Field& x, Field& y) { system.apply_system(a, s, x, y); }, inverse_diagonal, options.lanczos_steps);
  }
  return fine;
}

std::function<std::function<void(const Field&, Field&)>(double, double)>
refined_level_multigrid_factory(GpuBackend& gpu, GpuRefinedHeatSystem& system, const GeometricLevels& geometric,
                                const MultigridOptions& options, MultigridStats* stats) {
  return cached_multigrid_factory<GpuBackend>(
      gpu,
      [&gpu, &system, &geometric, options](double a, double s) {
        const FinestSmoother fine = gpu_finest_smoother(gpu, system, a, s, options);
        return std::make_unique<Multigrid<GpuBackend>>(
            gpu, [&system, a, s](const Field& x, Field& y) { system.apply_system(a, s, x, y); }, fine, geometric, a, s,
            options);
      },
      stats);
}

}  // namespace ss
