// The serial flow solver's two instances — FlowSolver and march_flow (with and without a
// temperature) on the CPU reference and on the GPU backend — compiled once, in
// flow_instances_cpu.cpp and flow_instances_gpu.cpp. A file that includes this header links to
// them instead of compiling its own copy (explicit instantiation declarations: the same code, built
// once for the commands and the tests rather than in every file that runs a flow).
#pragma once

#include <string>

#include "cpu/cpu_backend.hpp"
#include "kernels/gpu_backend.hpp"
#include "operators/flow_operators.hpp"
#include "physics/flow_time_loop.hpp"

namespace ss {

extern template class FlowSolver<CpuBackend, CpuFlowOperators>;
extern template FlowRunResult march_flow(CpuBackend&, CpuFlowOperators&, const FlowProblem&, const LoadedMesh&,
                                         const FlowOperatorData&, const FlowState*, const FlowRunHooks&,
                                         const std::string&, NoFlowTemperature*);
extern template FlowRunResult march_flow(CpuBackend&, CpuFlowOperators&, const FlowProblem&, const LoadedMesh&,
                                         const FlowOperatorData&, const FlowState*, const FlowRunHooks&,
                                         const std::string&, FlowTemperature<CpuBackend>*);

extern template class FlowSolver<GpuBackend, GpuFlowOperators>;
extern template FlowRunResult march_flow(GpuBackend&, GpuFlowOperators&, const FlowProblem&, const LoadedMesh&,
                                         const FlowOperatorData&, const FlowState*, const FlowRunHooks&,
                                         const std::string&, NoFlowTemperature*);
extern template FlowRunResult march_flow(GpuBackend&, GpuFlowOperators&, const FlowProblem&, const LoadedMesh&,
                                         const FlowOperatorData&, const FlowState*, const FlowRunHooks&,
                                         const std::string&, FlowTemperature<GpuBackend>*);

}  // namespace ss
