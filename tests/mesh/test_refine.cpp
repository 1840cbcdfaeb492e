#include <algorithm>
// Uniform refinement: counts, volume, groups, children volumes, valid topology.
#include <map>
#include <string>

#include <glm/geometric.hpp>
#include <gtest/gtest.h>

#include "mesh/geometry.hpp"
#include "mesh/refine.hpp"
#include "mesh/topology.hpp"
#include "mesh_test_util.hpp"
#include "mesh/load_mesh.hpp"
#include "mesh/mesh_hierarchy.hpp"
#include "mesh/read_mesh.hpp"
#include "util/error.hpp"

namespace ss {
namespace {

std::map<int, int> boundary_faces_per_group(const Topology& t) {
  std::map<int, int> out;
  for (int f : t.boundary_faces) ++out[t.face_groups[f]];
  return out;
}

TEST(Refine, CountsVolumeAndGroups) {
  TetMesh mesh = test::make_jittered_box(3, 0.25);
  mesh.tet_groups[5] = 9;  // one tet in another volume group
  const Topology t0 = build_topology(mesh);
  const double v0 = compute_geometry(mesh, t0).total_volume;
  for (int levels = 1; levels <= 2; ++levels) {
    TetMesh fine = refine_uniform(mesh, levels);
    const int factor = levels == 1 ? 8 : 64, tri_factor = levels == 1 ? 4 : 16;
    EXPECT_EQ(fine.tets.size(), mesh.tets.size() * factor);
    EXPECT_EQ(fine.boundary_triangles.size(), mesh.boundary_triangles.size() * tri_factor);
    EXPECT_EQ(validate_and_orient_tets(fine), 0) << "children keep the parent's orientation";
    const Topology t = build_topology(fine);
    EXPECT_EQ(t.num_nodes - t.num_edges + t.num_faces - t.num_cells, 1);
    EXPECT_EQ(t.unassigned_faces, 0);
    EXPECT_EQ(t.boundary_faces.size(), t0.boundary_faces.size() * tri_factor);
    auto coarse_groups = boundary_faces_per_group(t0), fine_groups = boundary_faces_per_group(t);
    ASSERT_EQ(coarse_groups.size(), fine_groups.size());
    for (auto [g, n] : coarse_groups) EXPECT_EQ(fine_groups[g], n * tri_factor) << "group " << g;
    EXPECT_NEAR(compute_geometry(fine, t).total_volume, v0, 1e-12);
    int in_group9 = 0;
    for (int g : fine.tet_groups) in_group9 += g == 9;
    EXPECT_EQ(in_group9, factor);
    EXPECT_EQ(fine.surface_group_names, mesh.surface_group_names);
    EXPECT_EQ(fine.volume_group_names, mesh.volume_group_names);
    EXPECT_TRUE(fine.node_tags.empty() && fine.tet_tags.empty() && fine.triangle_tags.empty());
  }
  // One level: the new nodes are the edge midpoints, after the old nodes.
  TetMesh fine = refine_uniform(mesh, 1);
  ASSERT_EQ(fine.nodes.size(), mesh.nodes.size() + t0.num_edges);
  for (int e = 0; e < t0.num_edges; ++e)
    EXPECT_EQ(fine.nodes[mesh.nodes.size() + e],
              0.5 * (mesh.nodes[t0.edge_nodes[e][0]] + mesh.nodes[t0.edge_nodes[e][1]]));
}

// RefineNumbering::interleaved is the coarse-first refinement with its nodes permuted by
// refined_node_ids: node v, then the midpoints of the edges whose low node is v.
TEST(Refine, InterleavedNumberingPermutesTheCoarseFirstOne) {
  const std::vector<TetMesh> meshes = {test::make_jittered_box(3, 0.25),
                                       read_mesh(std::string(SS_SOURCE_DIR) + "/meshes/crank.msh")};
  for (const TetMesh& mesh : meshes) {
    TetMesh oriented = mesh;
    validate_and_orient_tets(oriented);
    const Topology topo = build_topology(oriented, TopologyTables::edges);
    const TetMesh plain = refine_once(oriented, topo, RefineNumbering::coarse_first);
    const TetMesh mixed = refine_once(oriented, topo, RefineNumbering::interleaved);
    const std::vector<std::int32_t> id = refined_node_ids(topo, RefineNumbering::interleaved);
    ASSERT_EQ(id.size(), plain.nodes.size());
    std::vector<int> seen(id.size(), 0);
    for (std::int32_t i : id) ++seen[size_t(i)];
    EXPECT_EQ(std::count(seen.begin(), seen.end(), 1), std::ptrdiff_t(id.size())) << "a permutation";
    for (std::int32_t v = 0; v < topo.num_nodes; ++v) {  // node v just before its edges' midpoints
      for (std::int32_t e = topo.edge_offsets_by_low_node[size_t(v)]; e < topo.edge_offsets_by_low_node[size_t(v) + 1]; ++e)
        ASSERT_EQ(id[size_t(topo.num_nodes + e)], id[size_t(v)] + 1 + (e - topo.edge_offsets_by_low_node[size_t(v)]));
      if (v + 1 < topo.num_nodes) {
        const std::int32_t edges_of_v = topo.edge_offsets_by_low_node[size_t(v) + 1] - topo.edge_offsets_by_low_node[size_t(v)];
        ASSERT_EQ(id[size_t(v) + 1], id[size_t(v)] + 1 + edges_of_v);
      }
    }
    for (size_t i = 0; i < id.size(); ++i) ASSERT_EQ(mixed.nodes[size_t(id[i])], plain.nodes[i]) << "node " << i;
    ASSERT_EQ(mixed.tets.size(), plain.tets.size());
    for (size_t c = 0; c < plain.tets.size(); ++c)
      for (int k = 0; k < 4; ++k) ASSERT_EQ(mixed.tets[c][size_t(k)], id[size_t(plain.tets[c][size_t(k)])]) << "tet " << c;
    EXPECT_EQ(mixed.tet_groups, plain.tet_groups);
    ASSERT_EQ(mixed.boundary_triangles.size(), plain.boundary_triangles.size());
    for (size_t t = 0; t < plain.boundary_triangles.size(); ++t)
      for (int k = 0; k < 3; ++k)
        ASSERT_EQ(mixed.boundary_triangles[t][size_t(k)], id[size_t(plain.boundary_triangles[t][size_t(k)])]);
    EXPECT_EQ(mixed.triangle_groups, plain.triangle_groups);
  }
}

TEST(Refine, EveryChildHasAnEighthOfItsParent) {
  TetMesh mesh;
  mesh.source = "one.msh";
  mesh.nodes = {{0.1, 0, 0}, {1.3, 0.2, 0}, {0.2, 0.9, 0.1}, {0.4, 0.3, 1.1}};
  mesh.tets = {{0, 1, 2, 3}};
  mesh.tet_groups = {1};
  mesh.boundary_triangles = {{0, 2, 1}};
  mesh.triangle_groups = {4};
  const double v = signed_tet_volume(mesh, mesh.tets[0]);
  TetMesh fine = refine_uniform(mesh, 1);
  ASSERT_EQ(fine.tets.size(), 8u);
  for (const Tet& t : fine.tets) EXPECT_NEAR(signed_tet_volume(fine, t), v / 8, 1e-15);
  // The boundary triangle's children keep its orientation and group.
  const auto& p = fine.nodes;
  const auto& a = mesh.boundary_triangles[0];
  const glm::dvec3 n = glm::cross(mesh.nodes[a[1]] - mesh.nodes[a[0]], mesh.nodes[a[2]] - mesh.nodes[a[0]]);
  for (size_t i = 0; i < 4; ++i) {
    const auto& c = fine.boundary_triangles[i];
    EXPECT_NEAR(glm::length(glm::cross(p[c[1]] - p[c[0]], p[c[2]] - p[c[0]]) - n / 4.0), 0, 1e-15);
    EXPECT_EQ(fine.triangle_groups[i], 4);
  }
}

TEST(Refine, InnerOctahedronUsesShortestDiagonal) {
  // Skewed tet: the octahedron diagonals m01-m23, m02-m13, m03-m12 are (p0 + p1 - p2 - p3) / 2 etc.,
  // here of squared lengths 8.94, 13.74 and 21.74 (/4). All four inner children must hold the
  // shortest one and no child may hold the other two.
  TetMesh mesh;
  mesh.nodes = {{0, 0, 0}, {4, 0, 0}, {1, 1, 0}, {0.5, 0.3, 1}};
  mesh.tets = {{0, 1, 2, 3}};
  mesh.tet_groups = {0};
  const auto& p = mesh.nodes;
  const double d[3] = {glm::length(p[0] + p[1] - p[2] - p[3]) / 2, glm::length(p[0] + p[2] - p[1] - p[3]) / 2,
                       glm::length(p[0] + p[3] - p[1] - p[2]) / 2};
  ASSERT_LT(d[0], d[1]);
  ASSERT_LT(d[1], d[2]);
  TetMesh fine = refine_uniform(mesh, 1);
  ASSERT_EQ(fine.tets.size(), 8u);
  for (int c = 0; c < 8; ++c) {
    int found[3] = {0, 0, 0};
    for (const auto& e : kTetEdgeNodes) {
      const double len = glm::length(fine.nodes[fine.tets[c][e[0]]] - fine.nodes[fine.tets[c][e[1]]]);
      for (int k = 0; k < 3; ++k) found[k] += std::abs(len - d[k]) < 1e-12;
    }
    EXPECT_EQ(found[0], c >= 4 ? 1 : 0) << "child " << c;
    EXPECT_EQ(found[1] + found[2], 0) << "child " << c;
  }
  EXPECT_EQ(refine_uniform(mesh, 0).tets, mesh.tets);
}

}  // namespace
}  // namespace ss

namespace ss {
namespace {

// crank.msh has 1275 tets: refine 6 gives 334M (within the tables' (2^31 - 1) / 6), refine 7 gives
// 2.67G: a clear error before any work (not an overflow or a host that runs out of memory).
TEST(Refine, TooManyTetsIsAnErrorBeforeAnyWork) {
  const std::string path = std::string(SS_SOURCE_DIR) + "/meshes/crank.msh";
  for (bool hierarchy : {false, true}) {
    try {
      LoadOptions options;
      options.refine = 7;
      if (hierarchy) load_mesh_hierarchy(path, options);
      else load_mesh(path, options);
      FAIL() << "no error";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("crank.msh: refining 7 times would give 1275 x 8^7 tets; the mesh tables handle at most 357913941"),
                std::string::npos)
          << e.what();
    }
  }
  TetMesh mesh = read_mesh(path);
  EXPECT_NO_THROW(require_refinable(mesh, 6));
}

}  // namespace
}  // namespace ss
