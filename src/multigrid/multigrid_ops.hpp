#pragma once
// What the V-cycle runs on a backend: the sparse kernels (operators/sparse_kernels.hpp: transfers,
// aggregated operators, the Chebyshev smoother) and
//   set_values               x ← host values (the coarsest solve's answer back on the backend)
#include <cstdint>
#include <vector>

#include "cpu/cpu_backend.hpp"
#include "kernels/gpu_backend.hpp"
#include "multigrid/galerkin.hpp"
#include "operators/sparse_kernels.hpp"
#include "operators/heat_operator.hpp"

namespace ss {

void set_values(GpuBackend& gpu, Field& x, const std::vector<double>& values);
void set_values(CpuBackend& cpu, std::vector<double>& x, const std::vector<double>& values);

// The types the V-cycle uses on each backend.
template <class Backend> struct MultigridTypes;
template <> struct MultigridTypes<GpuBackend> {
  using HeatOperator = GpuHeatOperator;
  using Sparse = SparseMatrixOn<GpuBackend>::type;
};
template <> struct MultigridTypes<CpuBackend> {
  using HeatOperator = CpuHeatOperator;
  using Sparse = SparseMatrixOn<CpuBackend>::type;
};

}  // namespace ss
