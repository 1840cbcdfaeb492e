// Periodic boundaries (mesh/periodic.hpp): joined boxes are meshes of tori — counts, closed dual
// cells, corner positions, face jumps, refinement — and every mismatch is one error naming both groups.
#include <algorithm>
#include <string>
#include <vector>

#include <glm/geometric.hpp>
#include <gtest/gtest.h>

#include "mesh/box_mesh.hpp"
#include "mesh/geometry.hpp"
#include "mesh/load_mesh.hpp"
#include "mesh/periodic.hpp"
#include "mesh/refine.hpp"
#include "mesh/topology.hpp"
#include "util/error.hpp"

namespace ss {
namespace {

PeriodicPair pair_of(const std::string& first, const std::string& second, glm::dvec3 offset, bool given = true) {
  PeriodicPair p;
  p.first = first, p.second = second, p.offset = offset, p.offset_given = given, p.where = "case.toml:3";
  return p;
}

const std::vector<PeriodicPair> kAllThree = {pair_of("xmin", "xmax", {1, 0, 0}), pair_of("ymin", "ymax", {0, 1, 0}),
                                             pair_of("zmin", "zmax", {0, 0, 1})};

std::string error_of(TetMesh mesh, const std::vector<PeriodicPair>& pairs) {
  try {
    make_periodic(mesh, pairs);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(Periodic, JoinedInXTheBoxLosesOneFaceOfNodesAndTriangles) {
  TetMesh mesh = make_box_mesh(4, 3, 2);
  const size_t nodes = mesh.nodes.size(), triangles = mesh.boundary_triangles.size();
  make_periodic(mesh, {pair_of("xmin", "xmax", {1, 0, 0})});
  EXPECT_EQ(mesh.nodes.size(), nodes - 4 * 3);                          // the xmax face's (3+1)(2+1) nodes
  EXPECT_EQ(mesh.boundary_triangles.size(), triangles - 2 * 2 * 3 * 2);  // both x faces' triangles
  ASSERT_EQ(mesh.period_offsets.size(), 1u);
  const LoadedMesh m = prepare_mesh(std::move(mesh));
  EXPECT_NEAR(m.geometry.total_volume, 1.0, 1e-14);
  EXPECT_GT(m.geometry.quality.min_volume, 0.0);
  // Every dual cell is closed: the dual faces around a node and its boundary share sum to zero.
  std::vector<glm::dvec3> sum = m.geometry.boundary_dual_areas;
  for (std::int32_t c = 0; c < m.topology.num_cells; ++c)
    for (int k = 0; k < 6; ++k) {
      const auto& e = m.topology.edge_nodes[size_t(m.topology.cell_edges[size_t(c)][size_t(k)])];
      const glm::dvec3& s = m.geometry.dual_face_areas[size_t(c) * 6 + size_t(k)];
      sum[size_t(e[0])] += s, sum[size_t(e[1])] -= s;
    }
  for (const glm::dvec3& s : sum) ASSERT_LT(glm::length(s), 1e-14);
}

TEST(Periodic, SeamFacesJoinNeighbouringCellsThroughTheirJump) {
  const LoadedMesh m = prepare_mesh([] {
    TetMesh mesh = make_box_mesh(3, 3, 3);
    make_periodic(mesh, kAllThree);
    return mesh;
  }());
  EXPECT_TRUE(m.topology.boundary_faces.empty());
  // A 3-torus: V − E + F − C = 0, and the lattice's 27 nodes, 6 tets per hexahedron.
  EXPECT_EQ(m.topology.num_nodes, 27);
  EXPECT_EQ(std::int64_t(m.topology.num_nodes) - m.topology.num_edges + m.topology.num_faces - m.topology.num_cells, 0);
  int seams = 0;
  for (std::int32_t f = 0; f < m.topology.num_faces; ++f) {
    const auto [c0, c1] = m.topology.face_cells[size_t(f)];
    const glm::dvec3 jump = m.geometry.face_jumps[size_t(f)];
    if (glm::length(jump) > 0) ++seams;
    // Neighbours: the centroids lie within a cell of each other once the jump is taken off.
    const glm::dvec3 d = m.geometry.cell_centroids[size_t(c1)] - jump - m.geometry.cell_centroids[size_t(c0)];
    ASSERT_LT(glm::length(d), 0.5) << "face " << f;
    ASSERT_GT(glm::dot(d, m.geometry.face_normals[size_t(f)]), 0.0) << "face " << f;
  }
  EXPECT_EQ(seams, 3 * 3 * 3 * 2);  // two triangles per lattice square on each of the three seams
}

TEST(Periodic, TheOffsetDefaultsToTheDifferenceOfTheGroupsCentroids) {
  TetMesh mesh = make_box_mesh(3, 3, 2, {2.0, 1.0, 1.0});
  make_periodic(mesh, {pair_of("1", "xmax", {0, 0, 0}, false)});  // a group by its number
  ASSERT_EQ(mesh.period_offsets.size(), 1u);
  EXPECT_NEAR(glm::length(mesh.period_offsets[0] - glm::dvec3(2, 0, 0)), 0.0, 1e-14);
}

TEST(Periodic, RefiningAJoinedBoxEqualsJoiningTheRefinedBox) {
  TetMesh coarse = make_box_mesh(3, 3, 3);
  make_periodic(coarse, kAllThree);
  const LoadedMesh refined = prepare_mesh(coarse, 1);
  TetMesh fine = refine_uniform(make_box_mesh(3, 3, 3), 1);
  make_periodic(fine, kAllThree);
  const LoadedMesh joined = prepare_mesh(std::move(fine));
  EXPECT_EQ(refined.topology.num_nodes, joined.topology.num_nodes);
  EXPECT_EQ(refined.topology.num_edges, joined.topology.num_edges);
  EXPECT_EQ(refined.topology.num_faces, joined.topology.num_faces);
  EXPECT_TRUE(refined.topology.boundary_faces.empty());
  std::vector<double> a = refined.geometry.cell_volumes, b = joined.geometry.cell_volumes;
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) ASSERT_NEAR(a[i], b[i], 1e-15);
  EXPECT_NEAR(refined.geometry.total_volume, 1.0, 1e-13);
}

TEST(Periodic, UnfoldingPutsEveryCornerBackInPlace) {
  TetMesh mesh = make_box_mesh(3, 3, 3);
  make_periodic(mesh, kAllThree);
  const UnfoldedMesh u = unfold_periodic(mesh);
  EXPECT_EQ(u.mesh.nodes.size(), 64u);  // the lattice's points again
  ASSERT_EQ(u.point_node.size(), u.mesh.nodes.size());
  for (size_t t = 0; t < mesh.tets.size(); ++t)
    for (int k = 0; k < 4; ++k) {
      const NodeId p = u.mesh.tets[t][size_t(k)];
      ASSERT_EQ(u.point_node[size_t(p)], mesh.tets[t][size_t(k)]);
      ASSERT_LT(glm::length(u.mesh.nodes[size_t(p)] - corner_position(mesh, t, k)), 1e-15);
    }
}

TEST(Periodic, AMismatchIsOneErrorNamingBothGroups) {
  const TetMesh box = make_box_mesh(3, 2, 2);
  std::string e = error_of(box, {pair_of("xmin", "xmax", {1.1, 0, 0})});
  EXPECT_NE(e.find("case.toml:3"), std::string::npos) << e;
  EXPECT_NE(e.find("'xmin' - 'xmax' do not match"), std::string::npos) << e;
  EXPECT_NE(e.find("has no node of 'xmin'"), std::string::npos) << e;
  EXPECT_EQ(e.find('\n'), std::string::npos) << e;
  e = error_of(box, {pair_of("xmin", "ymax", {0, 1, 0})});  // different faces: different node counts
  EXPECT_NE(e.find("'xmin' - 'ymax' do not match: 'xmin' has 9 nodes, 'ymax' 12"), std::string::npos) << e;
  e = error_of(box, {pair_of("xmin", "inlet", {1, 0, 0})});
  EXPECT_NE(e.find("group 'inlet' is no boundary group"), std::string::npos) << e;
  EXPECT_NE(e.find("; it has xmin, xmax, ymin"), std::string::npos) << e;
  // Triangles cut along other diagonals: the nodes match, the triangles do not.
  TetMesh flipped = box;
  for (size_t i = 0; i < flipped.boundary_triangles.size(); ++i)
    if (flipped.triangle_groups[i] == 2) std::swap(flipped.boundary_triangles[i][0], flipped.boundary_triangles[i][1]);
  EXPECT_EQ(error_of(flipped, {pair_of("xmin", "xmax", {1, 0, 0})}), "");  // the same triangle, turned: fine
  TetMesh skewed = box;
  for (size_t i = 0; i < skewed.boundary_triangles.size(); ++i)
    if (skewed.triangle_groups[i] == 2) {
      skewed.boundary_triangles[i][0] = skewed.boundary_triangles[(i + 2) % skewed.boundary_triangles.size()][0];
      break;
    }
  e = error_of(skewed, {pair_of("xmin", "xmax", {1, 0, 0})});
  EXPECT_NE(e.find("'xmin' - 'xmax' do not match"), std::string::npos) << e;
  // One cell across: a tet would hold one node twice once the faces are joined; two: two edges would
  // join the same nodes.
  e = error_of(make_box_mesh(1, 3, 3), {pair_of("xmin", "xmax", {1, 0, 0})});
  EXPECT_NE(e.find("reaches across the whole period"), std::string::npos) << e;
  e = error_of(make_box_mesh(2, 3, 3), {pair_of("xmin", "xmax", {1, 0, 0})});
  EXPECT_NE(e.find("the same two nodes across different seams"), std::string::npos) << e;
  EXPECT_EQ(error_of(make_box_mesh(3, 3, 3), {pair_of("xmin", "xmax", {1, 0, 0})}), "");
}

}  // namespace
}  // namespace ss
