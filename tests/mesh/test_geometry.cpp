// Geometry: volumes, normals, median-dual quantities, quality, orientation repair and the errors.
#include <cmath>

#include <glm/geometric.hpp>
#include <gtest/gtest.h>

#include "mesh/geometry.hpp"
#include "mesh/topology.hpp"
#include "mesh_test_util.hpp"
#include "util/error.hpp"

namespace ss {
namespace {

// Sums of O(n) terms of size ~h^2 in double: 1e-12 is ~1e4 ulps of the unit box, far below any
// real error (a wrong sign or a missing term is O(h^2) ~ 1e-2 here).
constexpr double kTol = 1e-12;

struct Built {
  TetMesh mesh;
  Topology topo;
  Geometry geo;
};

Built build(TetMesh mesh) {
  validate_and_orient_tets(mesh);
  Topology topo = build_topology(mesh);
  Geometry geo = compute_geometry(mesh, topo);
  return {std::move(mesh), std::move(topo), std::move(geo)};
}

TEST(Geometry, VolumesAndDualVolumesSumToBoxVolume) {
  Built b = build(make_box_mesh(3, 4, 5, glm::dvec3(2.0, 1.0, 0.5)));
  EXPECT_NEAR(b.geo.total_volume, 1.0, kTol);
  double cells = 0, dual = 0;
  for (double v : b.geo.cell_volumes) {
    EXPECT_GT(v, 0);
    cells += v;
  }
  for (double v : b.geo.dual_volumes) {
    EXPECT_GT(v, 0);
    dual += v;
  }
  EXPECT_NEAR(cells, 1.0, kTol);
  EXPECT_NEAR(dual, cells, kTol);
  EXPECT_EQ(b.geo.bbox_min, glm::dvec3(0.0));
  EXPECT_EQ(b.geo.bbox_max, glm::dvec3(2.0, 1.0, 0.5));
}

TEST(Geometry, ClosedCellsAndOutwardNormals) {
  Built b = build(test::make_jittered_box(4, 0.25));
  const auto& t = b.topo;
  for (int c = 0; c < t.num_cells; ++c) {
    glm::dvec3 sum(0.0);
    for (int k = 0; k < 4; ++k) {
      const int f = t.cell_faces[c][k];
      const glm::dvec3 out = double(t.cell_face_signs[c][k]) * b.geo.face_areas[f] * b.geo.face_normals[f];
      sum += out;
      EXPECT_GT(glm::dot(out, b.geo.face_centroids[f] - b.geo.cell_centroids[c]), 0) << "cell " << c << " face " << f;
    }
    EXPECT_LT(glm::length(sum), kTol) << "cell " << c;
  }
  // Boundary normals point out of the unit box.
  for (int f : t.boundary_faces) EXPECT_GT(glm::dot(b.geo.face_normals[f], b.geo.face_centroids[f] - glm::dvec3(0.5)), 0);
}

TEST(Geometry, DualCellsAreClosed) {
  Built b = build(test::make_jittered_box(4, 0.3));
  const auto& t = b.topo;
  std::vector<glm::dvec3> sum = b.geo.boundary_dual_areas;
  double biggest = 0;
  for (int c = 0; c < t.num_cells; ++c)
    for (int k = 0; k < 6; ++k) {
      const auto& e = t.edge_nodes[t.cell_edges[c][k]];
      const glm::dvec3 s = b.geo.dual_face_areas[c * 6 + k];
      // Oriented low -> high: outward for the low node's dual cell, inward for the high node's.
      EXPECT_GT(glm::dot(s, b.geo.edge_vectors[t.cell_edges[c][k]]), 0);
      sum[e[0]] += s;
      sum[e[1]] -= s;
      biggest = std::max(biggest, glm::length(s));
    }
  ASSERT_GT(biggest, 1e-3);
  for (int n = 0; n < t.num_nodes; ++n) EXPECT_LT(glm::length(sum[n]), kTol) << "node " << n;
  // Interior nodes have no boundary part; the boundary parts add up to the closed box surface (0).
  glm::dvec3 total(0.0);
  for (const auto& a : b.geo.boundary_dual_areas) total += a;
  EXPECT_LT(glm::length(total), kTol);
}

TEST(Geometry, DualFaceIsTheTwoMedianTriangles) {
  // Check the closed form S = (pc - m) x (pd - m) / 12 against the two triangles
  // (m, face centroid, cell centroid) of the thesis' construction, on one irregular tet.
  TetMesh mesh;
  mesh.source = "one.msh";
  mesh.nodes = {{0.1, 0, 0}, {1.3, 0.2, 0}, {0.2, 0.9, 0.1}, {0.4, 0.3, 1.1}};
  mesh.tets = {{0, 1, 2, 3}};
  Built b = build(mesh);
  const auto& p = b.mesh.nodes;
  const glm::dvec3 g = (p[0] + p[1] + p[2] + p[3]) / 4.0;
  for (int k = 0; k < 6; ++k) {
    const auto& e = b.topo.edge_nodes[b.topo.cell_edges[0][k]];
    const int a = e[0], c = e[1];
    int others[2], n = 0;
    for (int i = 0; i < 4; ++i)
      if (i != a && i != c) others[n++] = i;
    const glm::dvec3 m = 0.5 * (p[a] + p[c]);
    const glm::dvec3 f0 = (p[a] + p[c] + p[others[0]]) / 3.0, f1 = (p[a] + p[c] + p[others[1]]) / 3.0;
    glm::dvec3 s = 0.5 * glm::cross(f0 - m, g - m) + 0.5 * glm::cross(g - m, f1 - m);
    if (glm::dot(s, p[c] - p[a]) < 0) s = -s;
    EXPECT_LT(glm::length(s - b.geo.dual_face_areas[k]), 1e-15) << "edge " << k;
  }
}

TEST(Geometry, QualityOfRegularAndKuhnTets) {
  Built r = build(test::make_regular_tet());
  EXPECT_NEAR(r.geo.quality.max_aspect_ratio, 1.0, 1e-12);
  const double regular = std::acos(1.0 / 3.0) * 180.0 / M_PI;  // 70.53 degrees
  EXPECT_NEAR(r.geo.quality.min_dihedral_deg, regular, 1e-9);
  EXPECT_NEAR(r.geo.quality.max_dihedral_deg, regular, 1e-9);
  EXPECT_NEAR(r.geo.total_volume, 1.0 / (6.0 * std::sqrt(2.0)), 1e-15);
  // Kuhn tets of a cube: dihedral angles 45, 60 and 90 degrees.
  Built k = build(make_box_mesh(2, 2, 2));
  EXPECT_NEAR(k.geo.quality.min_dihedral_deg, 45.0, 1e-9);
  EXPECT_NEAR(k.geo.quality.max_dihedral_deg, 90.0, 1e-9);
  EXPECT_GT(k.geo.quality.max_aspect_ratio, 1.5);
  EXPECT_NEAR(k.geo.quality.min_edge_length, 0.5, 1e-15);
  EXPECT_NEAR(k.geo.quality.max_edge_length, 0.5 * std::sqrt(3.0), 1e-15);
}

TEST(Geometry, NegativeTetsAreReoriented) {
  TetMesh mesh = test::make_jittered_box(3, 0.2);
  for (size_t c = 0; c < mesh.tets.size(); c += 3) std::swap(mesh.tets[c][0], mesh.tets[c][1]);
  const std::int64_t flipped = (mesh.tets.size() + 2) / 3;
  EXPECT_EQ(validate_and_orient_tets(mesh), flipped);
  for (const Tet& t : mesh.tets) EXPECT_GT(signed_tet_volume(mesh, t), 0);
  EXPECT_EQ(validate_and_orient_tets(mesh), 0);
  Topology topo = build_topology(mesh);  // consistent again
  EXPECT_NEAR(compute_geometry(mesh, topo).total_volume, 1.0, kTol);
}

std::string error_of(TetMesh mesh) {
  try {
    validate_and_orient_tets(mesh);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

TEST(Geometry, RepeatedNodeIsAnError) {
  TetMesh mesh = make_box_mesh(1, 1, 1);
  mesh.source = "cube.msh";
  mesh.tets[4] = {3, 5, 5, 7};
  EXPECT_EQ(error_of(mesh), "cube.msh: tet #4 (0-based; nodes #3 #5 #5 #7) has a repeated node");
  // With the file's tags, the message names them.
  for (std::size_t i = 0; i < mesh.nodes.size(); ++i) mesh.node_tags.push_back(10 + 10 * static_cast<int>(i));
  for (std::size_t c = 0; c < mesh.tets.size(); ++c) mesh.tet_tags.push_back(1001 + static_cast<int>(c));
  EXPECT_EQ(error_of(mesh), "cube.msh: tet 1005 (nodes 40 60 60 80) has a repeated node");
}

TEST(Geometry, ZeroVolumeIsAnError) {
  TetMesh mesh = make_box_mesh(1, 1, 1);
  mesh.source = "flat.msh";
  mesh.nodes.push_back({0.5, 0.5, 0.0});
  mesh.tets[2] = {0, 1, 3, 8};  // four nodes in the plane z = 0
  EXPECT_NE(error_of(mesh).find("flat.msh: tet #2 (0-based; nodes #0 #1 #3 #8) has zero volume"), std::string::npos) << error_of(mesh);
  // A genuinely thin but valid tet (V ~ 1e-9 L^3) is accepted.
  mesh.nodes[8].z = 1e-8;
  EXPECT_EQ(error_of(mesh), "no error");
}

TEST(Geometry, NodeOutOfRangeIsAnError) {
  TetMesh mesh = make_box_mesh(1, 1, 1);
  mesh.source = "range.msh";
  mesh.tets[0][3] = 99;
  EXPECT_NE(error_of(mesh).find("range.msh: tet #0 (0-based; nodes #0 #1 #3 #99) refers to node #99 (0-based) but there are 8 nodes"),
            std::string::npos)
      << error_of(mesh);
}

}  // namespace
}  // namespace ss
