#pragma once
// Helpers for flow tests: problems built in code (group name -> condition) and solver runs on
// either backend.
#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cpu/cpu_backend.hpp"
#include "mesh/load_mesh.hpp"
#include "operators/cpu_mesh_operators.hpp"
#include "problems/flow_problem.hpp"
#include "physics/flow_instances.hpp"
#include "support/project_mesh.hpp"
#include "util/error.hpp"

namespace ss::test {

// Ethier & Steinman's (1994) unsteady solution of the Navier–Stokes equations, a = π/4, d = π/2:
//   u = −a [e^{ax} sin(ay + dz) + e^{az} cos(ax + dy)] e^{−ν d² t}, v and w by cycling (x, y, z).
inline glm::dvec3 ethier_steinman(const glm::dvec3& x, double t, double nu) {
  const double pi = 3.14159265358979323846, a = pi / 4, d = pi / 2, decay = -a * std::exp(-nu * d * d * t);
  const auto component = [&](double p, double q, double r) {
    return decay * (std::exp(a * p) * std::sin(a * q + d * r) + std::exp(a * r) * std::cos(a * p + d * q));
  };
  return {component(x.x, x.y, x.z), component(x.y, x.z, x.x), component(x.z, x.x, x.y)};
}

// Assigns conditions[name] to every boundary face of the surface group called `name`.
inline void assign_by_group(FlowProblem& p, const LoadedMesh& m, const std::map<std::string, FlowCondition>& by_name) {
  std::map<std::int32_t, std::int32_t> index_of_group;
  for (const auto& [name, condition] : by_name) {
    std::int32_t id = -1;
    for (const auto& [gid, gname] : m.mesh.surface_group_names)
      if (gname == name) id = gid;
    SS_REQUIRE(id >= 0, "test mesh has no group " << name);
    index_of_group[id] = std::int32_t(p.conditions.size());
    p.conditions.push_back(condition);
    if (p.conditions.back().label.empty()) p.conditions.back().label = name;
  }
  for (std::int32_t f : m.topology.boundary_faces) {
    auto it = index_of_group.find(m.topology.face_groups[size_t(f)]);
    SS_REQUIRE(it != index_of_group.end(), "test problem leaves a boundary face without a condition");
    p.boundary_condition.push_back(it->second);
  }
}

inline FlowCondition wall(VelocityFunction u = nullptr) {
  FlowCondition c;
  c.kind = FlowBoundaryKind::velocity;
  c.velocity = std::move(u);
  return c;
}
inline FlowCondition pressure_outlet(double p) {
  FlowCondition c;
  c.kind = FlowBoundaryKind::pressure;
  c.pressure = [p](const glm::dvec3&, double) { return p; };
  return c;
}

// The CPU reference's flow solver for `p` on `m` with the operators it uses (not started); `p` and
// `m` must outlive it.
struct CpuFlowRun {
  CpuMeshOperators mesh_ops;
  FlowOperatorData data;
  CpuFlowOperators ops;
  CpuBackend cpu;
  FlowSolver<CpuBackend, CpuFlowOperators> solver;
  CpuFlowRun(const LoadedMesh& m, const FlowProblem& p)
      : mesh_ops(m),
        data(flow_operator_data(build_mesh_operator_tables(m.topology, m.geometry), p)),
        ops(mesh_ops, data),
        solver(cpu, ops, p, m, data) {}
};

// max |after − before| / max |before|: how far a restart's projection moved a flux.
inline double largest_change(const std::vector<double>& before, const std::vector<double>& after) {
  double largest = 0, moved = 0;
  for (size_t f = 0; f < before.size(); ++f)
    largest = std::max(largest, std::fabs(before[f])), moved = std::max(moved, std::fabs(after[f] - before[f]));
  return moved / largest;
}

// Runs p on the CPU reference (double) to its end and returns the last state; `each(info)` sees the
// start's diagnostics (step 0) and every step's report. A failed step is a test failure and ends
// the run there.
template <class Each>
FlowState run_flow_on_cpu(const LoadedMesh& m, const FlowProblem& p, Each&& each) {
  CpuFlowRun run(m, p);
  FlowSolver<CpuBackend, CpuFlowOperators>& solver = run.solver;
  solver.start();
  each(solver.diagnostics());
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
inline FlowState run_flow_on_cpu(const LoadedMesh& m, const FlowProblem& p) {
  return run_flow_on_cpu(m, p, [](const FlowStepInfo&) {});
}

// The cell velocities of flux `a` against those of flux `b`: max_c |u_c(a) − u_c(b)| and max_c |u_c(b)|.
struct CellVelocityDifference {
  double max_diff = 0, max_speed = 0;
  double relative() const { return max_diff / max_speed; }
};
inline CellVelocityDifference cell_velocity_difference(const LoadedMesh& m, const std::vector<double>& a,
                                                       const std::vector<double>& b) {
  CpuMeshOperators ops(m);
  std::vector<double> ax, ay, az, bx, by, bz;
  ops.interpolate(a, ax, ay, az);
  ops.interpolate(b, bx, by, bz);
  CellVelocityDifference d;
  for (size_t c = 0; c < ax.size(); ++c) {
    d.max_speed = std::max(d.max_speed, std::hypot(bx[c], by[c], bz[c]));
    d.max_diff = std::max(d.max_diff, std::hypot(ax[c] - bx[c], ay[c] - by[c], az[c] - bz[c]));
  }
  return d;
}

}  // namespace ss::test
