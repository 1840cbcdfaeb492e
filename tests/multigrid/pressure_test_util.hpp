#pragma once
// Shared by the pressure multigrid tests: the flow operator data of the cavity (walls only: P
// singular, null space the constants) and of the duct (pressure outlet: P SPD).
#include <random>
#include <string>
#include <vector>

#include "operators/flow_operators.hpp"
#include "physics/flow_test_util.hpp"

namespace ss::test {

struct PressureCase {
  const LoadedMesh* mesh = nullptr;
  MeshOperatorTables tables;
  FlowOperatorData data;
};

// "cavity.msh": every face a wall; "duct.msh": inlet velocity, outlet pressure, walls.
inline PressureCase pressure_case(const std::string& file, int refine) {
  PressureCase c;
  c.mesh = &project_mesh(file, refine);
  FlowProblem p;
  if (file == "duct.msh")
    assign_by_group(p, *c.mesh, {{"inlet", wall()}, {"outlet", pressure_outlet(0.0)}, {"walls", wall()}});
  else
    assign_by_group(p, *c.mesh, {{"lid", wall()}, {"walls", wall()}});
  c.tables = build_mesh_operator_tables(c.mesh->topology, c.mesh->geometry);
  c.data = build_flow_operator_data(c.tables, p.boundary_kinds());
  return c;
}

// Uniform values in [−1, 1]; mean-free when asked (a right-hand side of the singular system).
inline std::vector<double> random_cells(std::int32_t n, std::uint64_t seed, bool mean_free) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<double> v(static_cast<size_t>(n));
  double mean = 0;
  for (double& x : v) mean += (x = u(rng));
  mean /= double(n);
  if (mean_free)
    for (double& x : v) x -= mean;
  return v;
}

}  // namespace ss::test
