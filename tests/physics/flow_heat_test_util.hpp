#pragma once
// Helpers for the tests of heat carried by the flow: a flow case (text, anchored in meshes/) run
// with its temperature on a mesh built in code, on the CPU reference or a GpuBackend.
#include <string>

#include "operators/cpu_mesh_operators.hpp"
#include "operators/flow_operators.hpp"
#include "operators/gpu_mesh_operators.hpp"
#include "cases/flow_case.hpp"
#include "problems/flow_case_problem.hpp"
#include "problems/flow_heat_problem.hpp"
#include "physics/flow_instances.hpp"

namespace ss::test {

// Anchored in meshes/ so `file = "cube.msh"` resolves (the runs use the mesh they are given).
inline FlowCase heat_flow_case(const std::string& text) {
  return parse_flow_case("[mesh]\nfile = \"cube.msh\"\n" + text, std::string(SS_SOURCE_DIR) + "/meshes/test.toml");
}

inline FlowRunResult run_heat_flow_on_cpu(const FlowCase& c, const LoadedMesh& m) {
  const FlowProblem p = build_flow_problem(c, m);
  const FlowHeatProblem h = build_flow_heat_problem(c, m);
  CpuBackend cpu;
  CpuMeshOperators mesh_ops(m);
  const FlowOperatorData data =
      flow_operator_data(build_mesh_operator_tables(m.topology, m.geometry), p);
  CpuFlowOperators ops(mesh_ops, data);
  FlowTemperature<CpuBackend> temperature(cpu, m, h);
  return march_flow(cpu, ops, p, m, data, nullptr, FlowRunHooks{}, "cpu", &temperature);
}

inline FlowRunResult run_heat_flow_on_gpu(GpuBackend& gpu, const FlowCase& c, const LoadedMesh& m) {
  const FlowProblem p = build_flow_problem(c, m);
  const FlowHeatProblem h = build_flow_heat_problem(c, m);
  GpuMeshOperators mesh_ops(gpu, m);
  const FlowOperatorData data =
      flow_operator_data(build_mesh_operator_tables(m.topology, m.geometry), p);
  GpuFlowOperators ops(gpu, mesh_ops, data);
  FlowTemperature<GpuBackend> temperature(gpu, m, h);
  return march_flow(gpu, ops, p, m, data, nullptr, FlowRunHooks{}, "gpu", &temperature);
}

}  // namespace ss::test
