// The serial flow solver on the GPU backend, compiled once (physics/flow_instances.hpp).
#include "physics/flow_instances.hpp"

namespace ss {

template class FlowSolver<GpuBackend, GpuFlowOperators>;
template FlowRunResult march_flow(GpuBackend&, GpuFlowOperators&, const FlowProblem&, const LoadedMesh&,
                                  const FlowOperatorData&, const FlowState*, const FlowRunHooks&, const std::string&,
                                  NoFlowTemperature*);
template FlowRunResult march_flow(GpuBackend&, GpuFlowOperators&, const FlowProblem&, const LoadedMesh&,
                                  const FlowOperatorData&, const FlowState*, const FlowRunHooks&, const std::string&,
                                  FlowTemperature<GpuBackend>*);

}  // namespace ss
