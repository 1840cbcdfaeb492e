// The serial flow solver on the CPU reference, compiled once (physics/flow_instances.hpp).
#include "physics/flow_instances.hpp"

namespace ss {

template class FlowSolver<CpuBackend, CpuFlowOperators>;
template FlowRunResult march_flow(CpuBackend&, CpuFlowOperators&, const FlowProblem&, const LoadedMesh&,
                                  const FlowOperatorData&, const FlowState*, const FlowRunHooks&, const std::string&,
                                  NoFlowTemperature*);
template FlowRunResult march_flow(CpuBackend&, CpuFlowOperators&, const FlowProblem&, const LoadedMesh&,
                                  const FlowOperatorData&, const FlowState*, const FlowRunHooks&, const std::string&,
                                  FlowTemperature<CpuBackend>*);

}  // namespace ss
