// The loading pipeline: read + validate + orient + refine + topology + geometry.
#include <gtest/gtest.h>

#include "mesh/load_mesh.hpp"
#include "mesh_test_util.hpp"
#include "util/error.hpp"

namespace ss {
namespace {

TEST(LoadMesh, ReadsValidatesAndMeasuresAFile) {
  const LoadedMesh m = load_mesh(SS_SOURCE_DIR "/tests/data/encodings/cube_v41_bin.msh");
  EXPECT_EQ(m.topology.num_cells, static_cast<int>(m.mesh.tets.size()));
  EXPECT_NEAR(m.geometry.total_volume, 1.0, 1e-12);
  EXPECT_EQ(m.topology.num_nodes - m.topology.num_edges + m.topology.num_faces - m.topology.num_cells, 1);
  EXPECT_EQ(m.topology.unassigned_faces, 0);
  const LoadedMesh fine = load_mesh(SS_SOURCE_DIR "/tests/data/encodings/cube_v41_bin.msh", 1);
  EXPECT_EQ(fine.topology.num_cells, 8 * m.topology.num_cells);
  EXPECT_EQ(fine.report.file_tets, m.topology.num_cells);
  EXPECT_EQ(fine.report.refine_levels, 1);
  EXPECT_NEAR(fine.geometry.total_volume, 1.0, 1e-12);
}

TEST(LoadMesh, ReorientsAndNamesTheUnassignedGroup) {
  TetMesh mesh = make_box_mesh(2, 2, 2);
  for (size_t c = 0; c < mesh.tets.size(); c += 2) std::swap(mesh.tets[c][1], mesh.tets[c][2]);
  mesh.boundary_triangles.resize(mesh.boundary_triangles.size() - 8);  // drop zmax
  mesh.triangle_groups.resize(mesh.boundary_triangles.size());
  const LoadedMesh m = prepare_mesh(mesh, 1);
  EXPECT_EQ(m.report.reoriented_tets, 24);
  EXPECT_EQ(m.topology.unassigned_group, 7);  // surface ids 1..6 taken; volume id 7 is another name space
  EXPECT_EQ(m.topology.unassigned_faces, 32);  // 8 file triangles x 4 after refinement
  EXPECT_EQ(m.mesh.surface_group_names.at(7), "unassigned");
  EXPECT_EQ(m.mesh.volume_group_names.at(7), "volume");
  for (double v : m.geometry.cell_volumes) ASSERT_GT(v, 0);
}

TEST(LoadMesh, ErrorsNameTheFilesEntitiesBeforeRefinement) {
  TetMesh mesh = make_box_mesh(1, 1, 1);
  mesh.source = "cube.msh";
  mesh.tets.push_back(mesh.tets[0]);  // the same tet twice: every face shared by... two copies
  mesh.tets.push_back(mesh.tets[0]);
  mesh.tet_groups.resize(mesh.tets.size(), 7);
  try {
    prepare_mesh(mesh, 2);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("cube.msh: face (nodes"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("shared by more than two tets (tets #0, #6, #7, 0-based)"), std::string::npos) << e.what();
  }
  EXPECT_THROW(prepare_mesh(make_box_mesh(1, 1, 1), -1), Error);
}

}  // namespace
}  // namespace ss
