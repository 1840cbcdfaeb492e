// Topology tables: faces, edges, connectivity, boundary groups, and the errors for bad meshes.
#include <algorithm>
#include <limits>
#include <set>

#include <gtest/gtest.h>

#include "mesh/box_mesh.hpp"
#include "mesh/topology.hpp"
#include "mesh_test_util.hpp"
#include "util/error.hpp"

namespace ss {
namespace {

std::array<int, 3> sorted(std::array<int, 3> a) {
  std::sort(a.begin(), a.end());
  return a;
}

// The unassigned boundary group takes max + 1, or the smallest free positive number when a file
// uses 2^31 - 1 (max + 1 overflowed: found by fuzz_gmsh22_binary).
TEST(Topology, FreshGroupIdNeverOverflows) {
  TetMesh m;
  m.triangle_groups = {1, 3};
  m.surface_group_names[2] = "named";
  EXPECT_EQ(fresh_group_id(m), 4);
  m.triangle_groups.push_back(std::numeric_limits<std::int32_t>::max());
  EXPECT_EQ(fresh_group_id(m), 4);
  m.triangle_groups.push_back(4);
  EXPECT_EQ(fresh_group_id(m), 5);
}

TEST(Topology, BoxCountsAndEuler) {
  const int nx = 3, ny = 2, nz = 4;
  TetMesh mesh = make_box_mesh(nx, ny, nz);
  Topology t = build_topology(mesh);
  EXPECT_EQ(t.num_nodes, (nx + 1) * (ny + 1) * (nz + 1));
  EXPECT_EQ(t.num_cells, 6 * nx * ny * nz);
  EXPECT_EQ(static_cast<int>(t.boundary_faces.size()), 4 * (nx * ny + ny * nz + nx * nz));
  // Each face has 3 slots of cells: 4C = 2 F_interior + F_boundary.
  EXPECT_EQ(4 * t.num_cells, 2 * t.num_faces - static_cast<int>(t.boundary_faces.size()));
  // A box is a ball: V - E + F - C = 1.
  EXPECT_EQ(t.num_nodes - t.num_edges + t.num_faces - t.num_cells, 1);
  EXPECT_EQ(t.unassigned_group, 0);
}

TEST(Topology, FacesAndCellsAgree) {
  TetMesh mesh = make_box_mesh(3, 3, 2);
  Topology t = build_topology(mesh);
  std::set<std::array<int, 3>> seen;
  for (int f = 0; f < t.num_faces; ++f) {
    EXPECT_TRUE(seen.insert(sorted(t.face_nodes[f])).second) << "face " << f << " duplicated";
    const auto [c0, c1] = t.face_cells[f];
    ASSERT_GE(c0, 0);
    EXPECT_NE(c0, c1);
    const bool boundary = c1 < 0;
    EXPECT_EQ(boundary, std::binary_search(t.boundary_faces.begin(), t.boundary_faces.end(), f));
    for (int side = 0; side < (boundary ? 1 : 2); ++side) {
      const int c = t.face_cells[f][side];
      int found = 0;
      for (int k = 0; k < 4; ++k)
        if (t.cell_faces[c][k] == f) {
          ++found;
          EXPECT_EQ(t.cell_face_signs[c][k], side == 0 ? 1 : -1);
          // Face k is opposite local node k: it holds the other three.
          std::array<int, 3> nodes{};
          for (int j = 0, n = 0; j < 4; ++j)
            if (j != k) nodes[n++] = mesh.tets[c][j];
          EXPECT_EQ(sorted(nodes), sorted(t.face_nodes[f]));
        }
      EXPECT_EQ(found, 1);
    }
  }
  // Every interior face has two cells.
  int interior = 0;
  for (const auto& fc : t.face_cells) interior += fc[1] >= 0;
  EXPECT_EQ(interior, t.num_faces - static_cast<int>(t.boundary_faces.size()));
}

TEST(Topology, EdgesFaceEdgesAndNodeTables) {
  TetMesh mesh = test::make_jittered_box(3, 0.2);
  Topology t = build_topology(mesh);
  for (int e = 0; e < t.num_edges; ++e) {
    EXPECT_LT(t.edge_nodes[e][0], t.edge_nodes[e][1]);
    EXPECT_EQ(t.find_edge(t.edge_nodes[e][1], t.edge_nodes[e][0]), e);
    if (e > 0) {
      EXPECT_LT(t.edge_nodes[e - 1], t.edge_nodes[e]);
    }
  }
  for (int c = 0; c < t.num_cells; ++c)
    for (int k = 0; k < 6; ++k) {
      const auto& en = t.edge_nodes[t.cell_edges[c][k]];
      int a = mesh.tets[c][kTetEdgeNodes[k][0]], b = mesh.tets[c][kTetEdgeNodes[k][1]];
      EXPECT_EQ(en[0], std::min(a, b));
      EXPECT_EQ(en[1], std::max(a, b));
    }
  // face -> edges with signs, and edge -> faces as its exact inverse.
  std::vector<std::vector<int>> inverse(t.num_edges);
  for (int f = 0; f < t.num_faces; ++f) {
    EXPECT_EQ(t.find_face(t.face_nodes[f][2], t.face_nodes[f][0], t.face_nodes[f][1]), f);
    for (int k = 0; k < 3; ++k) {
      int a = t.face_nodes[f][k], b = t.face_nodes[f][(k + 1) % 3];
      const auto& en = t.edge_nodes[t.face_edges[f][k]];
      const std::array<int, 2> along = t.face_edge_signs[f][k] > 0 ? en : std::array<int, 2>{en[1], en[0]};
      EXPECT_EQ(along[0], a);
      EXPECT_EQ(along[1], b);
      inverse[t.face_edges[f][k]].push_back(f);
    }
  }
  ASSERT_EQ(static_cast<int>(t.edge_face_offsets.size()), t.num_edges + 1);
  for (int e = 0; e < t.num_edges; ++e) {
    std::vector<int> csr(t.edge_faces.begin() + t.edge_face_offsets[e], t.edge_faces.begin() + t.edge_face_offsets[e + 1]);
    EXPECT_EQ(csr, inverse[e]) << "edge " << e;
  }
  // node -> neighbours: sorted, symmetric, with the joining edge.
  int total = 0;
  for (int n = 0; n < t.num_nodes; ++n)
    for (int k = t.node_offsets[n]; k < t.node_offsets[n + 1]; ++k, ++total) {
      int m = t.node_neighbors[k];
      if (k > t.node_offsets[n]) {
        EXPECT_LT(t.node_neighbors[k - 1], m);
      }
      EXPECT_EQ(t.node_edges[k], t.find_edge(n, m));
      EXPECT_TRUE(std::binary_search(t.node_neighbors.begin() + t.node_offsets[m],
                                     t.node_neighbors.begin() + t.node_offsets[m + 1], n));
    }
  EXPECT_EQ(total, 2 * t.num_edges);
  EXPECT_EQ(t.find_edge(0, t.num_nodes - 1), -1);  // opposite box corners are not joined
  EXPECT_EQ(t.find_face(0, 1, t.num_nodes - 1), -1);
}

TEST(Topology, BoundaryGroupsFromFileTriangles) {
  const int n = 3;
  TetMesh mesh = make_box_mesh(n, n, n);
  Topology t = build_topology(mesh);
  std::map<int, int> per_group;
  for (int f : t.boundary_faces) ++per_group[t.face_groups[f]];
  for (int g = 1; g <= 6; ++g) EXPECT_EQ(per_group[g], 2 * n * n) << surface_group_label(mesh, g);
  EXPECT_EQ(per_group.size(), 6u);
  for (int f = 0; f < t.num_faces; ++f)
    if (t.face_cells[f][1] >= 0) {
      EXPECT_EQ(t.face_groups[f], 0);
    }
}

TEST(Topology, UnlistedBoundaryFacesGoToUnassigned) {
  TetMesh mesh = make_box_mesh(2, 2, 2);
  // Drop the zmax triangles (group 6) and mark one xmin triangle as "no group".
  std::vector<Triangle> tris;
  std::vector<std::int32_t> groups;
  for (size_t i = 0; i < mesh.boundary_triangles.size(); ++i)
    if (mesh.triangle_groups[i] != 6) tris.push_back(mesh.boundary_triangles[i]), groups.push_back(mesh.triangle_groups[i]);
  groups[0] = 0;
  ASSERT_EQ(mesh.triangle_groups[0], 1);
  mesh.boundary_triangles = tris;
  mesh.triangle_groups = groups;
  Topology t = build_topology(mesh);
  EXPECT_EQ(t.unassigned_group, 7);  // fresh: surface groups 1..6 are taken (7 is a volume group)
  EXPECT_EQ(t.unassigned_faces, 8 + 1);
  int counted = 0;
  for (int f : t.boundary_faces) counted += t.face_groups[f] == 7;
  EXPECT_EQ(counted, 9);
}

TEST(Topology, FaceSharedByThreeTetsIsAnError) {
  // The lean tables check faces the same way (TopologyTables::boundary).
  for (TopologyTables tables : {TopologyTables::all, TopologyTables::boundary}) {
    TetMesh mesh;
    mesh.source = "three.msh";
    mesh.nodes = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {0, 0, -1}, {1, 1, 1}};
    mesh.tets = {{0, 1, 2, 3}, {0, 2, 1, 4}, {1, 2, 0, 5}};  // all three hold face {0, 1, 2}
    mesh.tet_groups = {0, 0, 0};
    try {
      build_topology(mesh, tables);
      FAIL() << "no error";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("three.msh: face (nodes #0 #1 #2 (0-based)) is shared by more than two tets (tets #0, #1, #2, 0-based)"),
                std::string::npos)
          << e.what();
    }
    mesh.node_tags = {11, 12, 13, 14, 15, 16};
    mesh.tet_tags = {101, 102, 103};
    try {
      build_topology(mesh, tables);
      FAIL() << "no error";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("three.msh: face (nodes 11 12 13) is shared by more than two tets (tets 101, 102, 103)"),
                std::string::npos)
          << e.what();
    }
  }
}

TEST(Topology, OverlappingTetsAreAnError) {
  // The lean tables check faces the same way (TopologyTables::boundary).
  for (TopologyTables tables : {TopologyTables::all, TopologyTables::boundary}) {
    TetMesh mesh;
    mesh.source = "overlap.msh";
    mesh.nodes = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {0.2, 0.2, 1}};
    mesh.tets = {{0, 1, 2, 3}, {0, 1, 2, 4}};  // both above face {0, 1, 2}
    mesh.tet_groups = {0, 0};
    try {
      build_topology(mesh, tables);
      FAIL() << "no error";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("tet #0 (0-based) and tet #1 (0-based) lie on the same side"), std::string::npos) << e.what();
    }
  }
}

TEST(Topology, TriangleThatIsNoFaceIsAnError) {
  // The lean tables check faces the same way (TopologyTables::boundary).
  for (TopologyTables tables : {TopologyTables::all, TopologyTables::boundary}) {
    TetMesh mesh = test::make_regular_tet();
    mesh.boundary_triangles = {{0, 1, 2}, {0, 1, 7}};
    mesh.nodes.resize(8);
    mesh.triangle_groups = {1, 2};
    mesh.surface_group_names[2] = "inlet";
    mesh.volume_group_names[2] = "solid";  // a volume group of the same id does not name triangles
    mesh.node_tags = {5, 6, 7, 8, 0, 0, 0, 9};
    mesh.triangle_tags = {40, 41};
    try {
      build_topology(mesh, tables);
      FAIL() << "no error";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("regular.msh: triangle 41 (nodes 5 6 9, inlet) is not a face of any tet"),
                std::string::npos)
          << e.what();
    }
  }
}

}  // namespace
}  // namespace ss
