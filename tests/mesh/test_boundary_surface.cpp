// Boundary surfaces (mesh/boundary_surface.hpp, [[mesh.surface]]): the closest-point projections,
// their checks, and refinement that puts a group's new boundary nodes on its surface.
#include <cmath>
#include <cstdio>
#include <functional>
#include <set>
#include <string>

#include <glm/geometric.hpp>
#include <gtest/gtest.h>

#include "mesh/boundary_surface.hpp"
#include "mesh/box_mesh.hpp"
#include "mesh/geometry.hpp"
#include "mesh/load_mesh.hpp"
#include "mesh/mesh_hierarchy.hpp"
#include "mesh/refine.hpp"
#include "mesh/topology.hpp"
#include "util/error.hpp"

namespace ss {
namespace {

const std::string kHole = std::string(SS_SOURCE_DIR) + "/tests/data/surface/cylinder_hole.msh";
const double kPi = std::acos(-1.0);
const double kHoleVolume = 0.4 * 0.4 * 0.1 - kPi * 0.1 * 0.1 * 0.1;  // block less the hole

BoundarySurface hole_cylinder() {
  return make_boundary_surface(SurfaceShape::cylinder, "cylinder", {0.2, 0.2, 0.0}, {0.0, 0.0, 1.0}, 0.1, "case.toml:7");
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(BoundarySurface, ProjectsOntoCylinderSphereAndPlane) {
  // Axis along (1, 1, 0) through (1, 0, 0), written unnormalised: (3, 2, 5) lies at distance
  // |(3,2,5) - (1,0,0) - 2 (1,1,0)| = |(0, 0, 5)| = 5 from the axis point (3, 2, 0).
  const BoundarySurface c = make_boundary_surface(SurfaceShape::cylinder, "c", {1, 0, 0}, {2, 2, 0}, 2.0, "here");
  const glm::dvec3 on_cylinder = project_onto(c, {3, 2, 5});
  EXPECT_NEAR(glm::length(on_cylinder - glm::dvec3(3, 2, 2)), 0.0, 1e-15);
  const BoundarySurface z = make_boundary_surface(SurfaceShape::cylinder, "z", {1, 2, 0}, {0, 0, 1}, 2.0, "here");
  EXPECT_EQ(project_onto(z, {1, 2, 7}), glm::dvec3(1, 2, 7)) << "a point on the axis stays";
  EXPECT_EQ(project_onto(z, {1, 2.5, 7}), glm::dvec3(1, 4, 7));

  const BoundarySurface s = make_boundary_surface(SurfaceShape::sphere, "s", {1, 2, 3}, {}, 0.5, "here");
  const glm::dvec3 on_sphere = project_onto(s, {1, 2 + 3.0, 3 + 4.0});  // (0, 3, 4) from the centre: 5 long
  EXPECT_NEAR(glm::length(on_sphere - glm::dvec3(1, 2 + 0.3, 3 + 0.4)), 0.0, 1e-15);

  const BoundarySurface p = make_boundary_surface(SurfaceShape::plane, "p", {0, 0, 1}, {0, 0, -3}, 0.0, "here");
  EXPECT_EQ(project_onto(p, {0.25, -7, 9}), glm::dvec3(0.25, -7, 1));

  // Closest points: projecting again moves nothing (to round-off), for points off either side.
  for (const BoundarySurface& surface : {c, s, p})
    for (const glm::dvec3 x : {glm::dvec3(0.3, 0.1, -0.2), glm::dvec3(4, -3, 2)}) {
      const glm::dvec3 once = project_onto(surface, x);
      EXPECT_NEAR(glm::length(project_onto(surface, once) - once), 0.0, 1e-14) << surface_shape_name(surface.shape);
    }
}

TEST(BoundarySurface, BadParametersAreOneLineErrorsNamingWhere) {
  const std::string radius = error_of([] {
    make_boundary_surface(SurfaceShape::sphere, "s", {0, 0, 0}, {}, -1.0, "case.toml:4");
  });
  EXPECT_EQ(radius, "case.toml:4: [[mesh.surface]] radius must be positive (got -1)");
  const std::string axis = error_of([] {
    make_boundary_surface(SurfaceShape::cylinder, "c", {0, 0, 0}, {0, 0, 0}, 1.0, "case.toml:9");
  });
  EXPECT_EQ(axis, "case.toml:9: [[mesh.surface]] axis must be a nonzero vector");
}

TEST(BoundarySurface, UnknownGroupNamesTheCaseAndTheGroup) {
  BoundarySurface s = hole_cylinder();
  s.group = "hole";
  LoadOptions load;
  load.refine = 1;
  load.surfaces = {s};
  const std::string e = error_of([&] { load_mesh(kHole, load); });
  EXPECT_EQ(e.find('\n'), std::string::npos) << e;
  EXPECT_NE(e.find("case.toml:7: [[mesh.surface]] group 'hole' is no boundary group of"), std::string::npos) << e;
  EXPECT_NE(e.find("cylinder (1), outer (2)"), std::string::npos) << e;
}

// Radial distance of x from the hole's axis, less the radius.
double off_hole(const glm::dvec3& x) { return std::hypot(x.x - 0.2, x.y - 0.2) - 0.1; }

// The nodes of the hole's triangles in `m`.
std::set<NodeId> hole_nodes(const TetMesh& m) {
  std::set<NodeId> on_hole;
  for (size_t t = 0; t < m.boundary_triangles.size(); ++t)
    if (m.surface_group_names.at(m.triangle_groups[t]) == "cylinder")
      for (NodeId v : m.boundary_triangles[t]) on_hole.insert(v);
  return on_hole;
}

TEST(BoundarySurface, OneRefinementMovesOnlyTheGroupsNewNodes) {
  LoadOptions straight, curved;
  straight.refine = curved.refine = 1;
  curved.surfaces = {hole_cylinder()};
  const LoadedMesh flat = load_mesh(kHole, straight), round = load_mesh(kHole, curved);
  ASSERT_EQ(round.mesh.nodes.size(), flat.mesh.nodes.size());
  EXPECT_EQ(round.mesh.tets, flat.mesh.tets) << "the cuts are those of the straight midpoints";
  const std::set<NodeId> on_hole = hole_nodes(round.mesh);
  size_t moved = 0;
  for (size_t v = 0; v < round.mesh.nodes.size(); ++v) {
    if (round.mesh.nodes[v] == flat.mesh.nodes[v]) continue;
    ++moved;
    EXPECT_TRUE(on_hole.count(NodeId(v))) << "node " << v << " moved but is on no hole triangle";
  }
  EXPECT_GT(moved, on_hole.size() / 2) << "the hole's midpoints (about 3/4 of its nodes) move";
}

TEST(BoundarySurface, RefinementPutsTheGroupsNodesOnTheCylinder) {
  const LoadedMesh file = load_mesh(kHole);
  const double e0 = std::abs(file.geometry.total_volume - kHoleVolume);
  double previous = e0;
  for (int levels = 1; levels <= 2; ++levels) {
    LoadOptions straight, curved;
    straight.refine = curved.refine = levels;
    curved.surfaces = {hole_cylinder()};
    const LoadedMesh flat = load_mesh(kHole, straight), round = load_mesh(kHole, curved);
    ASSERT_EQ(round.mesh.boundary_surfaces.size(), 1u);
    // Every node of a hole triangle lies on the cylinder to round-off; straight midpoints lie inside
    // it by up to the sagitta of the file's chords.
    double worst_round = 0, worst_flat = 0;
    for (NodeId v : hole_nodes(round.mesh)) worst_round = std::max(worst_round, std::abs(off_hole(round.mesh.nodes[size_t(v)])));
    for (NodeId v : hole_nodes(flat.mesh)) worst_flat = std::max(worst_flat, std::abs(off_hole(flat.mesh.nodes[size_t(v)])));
    EXPECT_LT(worst_round, 1e-15) << levels;
    EXPECT_GT(worst_flat, 1e-3) << levels;
    // The volume error: straight refinement keeps the file's polygon (its error stays); on the
    // cylinder it falls about 4x per level (the chords' sagitta).
    const double e_flat = std::abs(flat.geometry.total_volume - kHoleVolume);
    const double e_round = std::abs(round.geometry.total_volume - kHoleVolume);
    EXPECT_NEAR(e_flat / e0, 1.0, 1e-9) << levels;
    EXPECT_LT(e_round, previous / 3.5) << levels;
    EXPECT_GT(e_round, previous / 4.5) << levels;
    previous = e_round;
    std::printf("refine %d: volume error %.3e straight, %.3e on the cylinder (file %.3e)\n", levels, e_flat, e_round, e0);
  }
}

TEST(BoundarySurface, HierarchyAndNodeCoordinatesMatchRefineOnce) {
  LoadOptions load;
  load.refine = 2;
  load.surfaces = {hole_cylinder()};
  const LoadedMesh direct = load_mesh(kHole, load);
  const MeshHierarchy h = load_mesh_hierarchy(kHole, load);
  EXPECT_EQ(h.finest().mesh.nodes, direct.mesh.nodes);
  EXPECT_EQ(h.finest().mesh.tets, direct.mesh.tets);
  const LoadedMesh& coarse = h.levels[1];
  EXPECT_EQ(refined_node_coordinates(coarse.mesh, coarse.topology, RefineNumbering::interleaved), direct.mesh.nodes);
}

TEST(BoundarySurface, AnInvertingProjectionIsRefusedNamingTheGroup) {
  // A unit box whose x = 1 side is declared a sphere far inside the box: its midpoints are pulled
  // across the box, inverting their tets.
  TetMesh box = make_box_mesh(2, 2, 2, glm::dvec3(1.0));
  std::int32_t side = -1;
  for (const auto& [id, name] : box.surface_group_names)
    if (name == "xmax") side = id;
  ASSERT_GE(side, 0) << "the box mesh names its sides";
  LoadOptions load;
  load.refine = 1;
  load.surfaces = {make_boundary_surface(SurfaceShape::sphere, "xmax", {0.2, 0.5, 0.5}, {}, 0.1, "case.toml:3")};
  const std::string e = error_of([&] { prepare_mesh(box, load); });
  EXPECT_EQ(e.find('\n'), std::string::npos) << e;
  EXPECT_NE(e.find("onto the sphere of group 'xmax' (case.toml:3) gives an inverted or flat child tet"), std::string::npos) << e;
  EXPECT_NE(e.find("tet #"), std::string::npos) << e;
}

}  // namespace
}  // namespace ss
