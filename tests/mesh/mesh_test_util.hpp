#pragma once
// Small meshes built in code for the topology/geometry/refinement/VTU tests.
#include <random>

#include <omp.h>

#include "mesh/box_mesh.hpp"
#include "mesh/tet_mesh.hpp"

namespace ss::test {

// Box mesh with every node not on the boundary moved randomly by up to `amount` of a cell size,
// so the tests do not rely on the regular lattice.
inline TetMesh make_jittered_box(int n, double amount, unsigned seed = 7) {
  TetMesh mesh = make_box_mesh(n, n, n, glm::dvec3(1.0));
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-amount / n, amount / n);
  for (auto& p : mesh.nodes) {
    auto interior = [](double x) { return x > 1e-12 && x < 1 - 1e-12; };
    if (interior(p.x) && interior(p.y) && interior(p.z)) p += glm::dvec3(u(rng), u(rng), u(rng));
  }
  return mesh;
}

// One regular tet with edge length 1, positively oriented, no file triangles.
inline TetMesh make_regular_tet() {
  TetMesh mesh;
  mesh.source = "regular.msh";
  mesh.nodes = {{0, 0, 0}, {1, 0, 0}, {0.5, std::sqrt(3.0) / 2, 0}, {0.5, std::sqrt(3.0) / 6, std::sqrt(2.0 / 3.0)}};
  mesh.tets = {{0, 1, 2, 3}};
  mesh.tet_groups = {0};
  return mesh;
}

// Runs f with n OpenMP threads and returns what it returns.
template <class F>
auto with_threads(int n, F f) {
  const int before = omp_get_max_threads();
  omp_set_num_threads(n);
  auto result = f();
  omp_set_num_threads(before);
  return result;
}

}  // namespace ss::test
