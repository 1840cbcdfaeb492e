#pragma once
// The GPU twin of run_flow_on_cpu (flow_test_util.hpp): a flow problem run on a GpuBackend (float
// kernels, the backend's packing and launch path) to its end.
#include "operators/flow_operators.hpp"
#include "operators/gpu_mesh_operators.hpp"
#include "physics/flow_test_util.hpp"

namespace ss::test {

// Runs p on `gpu` to its end and returns the last state; `each(info)` sees every step's report. A
// failed step is a test failure and ends the run there.
template <class Each>
FlowState run_flow_on_gpu(GpuBackend& gpu, const LoadedMesh& m, const FlowProblem& p, Each&& each) {
  GpuMeshOperators mesh_ops(gpu, m);
  const FlowOperatorData data =
      flow_operator_data(build_mesh_operator_tables(m.topology, m.geometry), p);
  GpuFlowOperators ops(gpu, mesh_ops, data);
  FlowSolver<GpuBackend, GpuFlowOperators> solver(gpu, ops, p, m, data);
  solver.start();
  FlowStepInfo info;
  while (!solver.finished()) {
    if (!solver.step(info)) {
      ADD_FAILURE() << solver.failure();
      break;
    }
    each(info);
  }
  return solver.state();
}
inline FlowState run_flow_on_gpu(GpuBackend& gpu, const LoadedMesh& m, const FlowProblem& p) {
  return run_flow_on_gpu(gpu, m, p, [](const FlowStepInfo&) {});
}

}  // namespace ss::test
