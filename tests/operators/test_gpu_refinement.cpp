// The finest level's refinement and cell geometry on the GPU (operators/gpu_refinement.hpp) against
// the CPU twin, refine_once + compute_geometry (*IsEquivalentToRef):
//  - connectivity identical, cell by cell and corner by corner;
//  - coordinates, volumes and centroids <= 1e-6 relative (coordinates and centroids to the mesh's
//    largest coordinate, volumes to each cell's own volume). Measured: coordinates and volumes are
//    the CPU's doubles rounded to float exactly (llvmpipe and H200), centroids exactly on llvmpipe
//    and within 7.8e-8 on the H200 (its GLSL fp64 sums are not IEEE there).
// On every project mesh (refine 0 -> 1, as load_mesh numbers it: interleaved), a refined mesh of
// 217k fine cells, a structured box (exact ties between the octahedron's diagonals), and awkward
// sizes: one tet, two tets, a prime number of tets; the coarse_first numbering; both packings and
// both launch paths.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "support/gl_fixture.hpp"
#include "gpu_paths.hpp"
#include "mesh/box_mesh.hpp"
#include "mesh/load_mesh.hpp"
#include "operators/gpu_refinement.hpp"
#include "support/project_mesh.hpp"
#include "util/error.hpp"

namespace ss::test {
namespace {

constexpr double kTolerance = 1e-6;

void expect_equivalent(const RefinementDifferences& d, const std::string& what) {
  ASSERT_TRUE(d.sizes_match) << what;
  EXPECT_EQ(d.wrong_corners, 0) << what << ": first differing fine cell " << d.first_wrong_cell;
  EXPECT_LE(d.coordinates, kTolerance) << what;
  EXPECT_LE(d.volumes, kTolerance) << what;
  EXPECT_LE(d.centroids, kTolerance) << what;
  std::printf("[ gpu refinement ] %s: coordinates %.2e, volumes %.2e, centroids %.2e, %lld values not float(cpu)\n",
              what.c_str(), d.coordinates, d.volumes, d.centroids, static_cast<long long>(d.inexact()));
}

class GpuRefinement : public GlTest, public ::testing::WithParamInterface<GpuPath> {
protected:
  GpuBackend gpu() { return make_gpu(GetParam().packing, GetParam().launch); }
  // Coarse mesh as load_mesh leaves it (oriented, RCM), refined once on both sides.
  void expect_refines_like_cpu(const TetMesh& coarse, RefineNumbering numbering, const std::string& what) {
    const Topology topo = build_topology(coarse, TopologyTables::edges);
    const TetMesh ref = refine_once(coarse, topo, numbering);
    GpuBackend backend = gpu();
    expect_equivalent(compare_with_reference(backend, gpu_refine_once(backend, coarse, topo, numbering), ref), what);
  }
};

TEST_P(GpuRefinement, ProjectMeshesIsEquivalentToRef) {
  for (const char* file : {"cube.msh", "duct.msh", "cavity.msh", "crank.msh", "dfg_cylinder.msh"}) {
    const LoadedMesh& coarse = project_mesh(file, 0);
    const LoadedMesh& fine = project_mesh(file, 1);  // load_mesh's own refinement (interleaved)
    GpuBackend backend = gpu();
    expect_equivalent(compare_with_reference(backend, gpu_refine_once(backend, coarse.mesh, coarse.topology), fine.mesh), file);
  }
}

TEST_P(GpuRefinement, RefinedMeshIsEquivalentToRef) {
  // duct refined once (27,160 tets) -> 217,280 fine cells, as load_mesh makes refine 2.
  const LoadedMesh& coarse = project_mesh("duct.msh", 1);
  const LoadedMesh& fine = project_mesh("duct.msh", 2);
  GpuBackend backend = gpu();
  expect_equivalent(compare_with_reference(backend, gpu_refine_once(backend, coarse.mesh, coarse.topology), fine.mesh),
                    "duct refine 1 -> 2");
}

TEST_P(GpuRefinement, CoarseFirstNumberingIsEquivalentToRef) {
  expect_refines_like_cpu(project_mesh("crank.msh", 0).mesh, RefineNumbering::coarse_first, "crank, coarse_first");
}

TEST_P(GpuRefinement, StructuredBoxWithTiedDiagonalsIsEquivalentToRef) {
  // Kuhn cubes: two or three of an octahedron's diagonals have exactly equal lengths.
  TetMesh box = make_box_mesh(3, 4, 5, glm::dvec3(1.0, 0.7, 1.3));
  validate_and_orient_tets(box);
  expect_refines_like_cpu(box, RefineNumbering::interleaved, "box 3x4x5");
  expect_refines_like_cpu(box, RefineNumbering::coarse_first, "box 3x4x5, coarse_first");
}

// Awkward sizes: 1 tet (10 fine nodes, 8 cells), 2 tets, 13 tets (a prime), random coordinates.
TEST_P(GpuRefinement, AwkwardSizesAreEquivalentToRef) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(-2.0, 3.0);
  for (int tets : {1, 2, 13}) {
    TetMesh mesh;
    mesh.source = "random fan of " + std::to_string(tets) + " tets";
    // A fan of tets around the edge (0, 1): tet k is (0, 1, k + 2, k + 3).
    for (int i = 0; i < tets + 3; ++i) mesh.nodes.push_back({u(rng), u(rng), u(rng)});
    for (int k = 0; k < tets; ++k) mesh.tets.push_back({0, 1, k + 2, k + 3});
    mesh.tet_groups.assign(mesh.tets.size(), 1);
    validate_and_orient_tets(mesh);
    expect_refines_like_cpu(mesh, RefineNumbering::interleaved, mesh.source);
    expect_refines_like_cpu(mesh, RefineNumbering::coarse_first, mesh.source + ", coarse_first");
  }
}

// Another mesh's topology is refused with one error naming the mesh, before any upload.
TEST_P(GpuRefinement, RefusesAnotherMeshsTopology) {
  const LoadedMesh& cube = project_mesh("cube.msh", 0);
  const LoadedMesh& duct = project_mesh("duct.msh", 0);
  GpuBackend backend = gpu();
  try {
    gpu_refine_once(backend, cube.mesh, duct.topology);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("cube.msh"), std::string::npos) << e.what();
  }
}

INSTANTIATE_TEST_SUITE_P(Paths, GpuRefinement, kGpuPaths, gpu_path_name);

}  // namespace
}  // namespace ss::test
