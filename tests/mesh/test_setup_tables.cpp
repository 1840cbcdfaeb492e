// The set-up at scale: the lean tables (TopologyTables::boundary / edges) are the full
// tables restricted to what they keep, and the parallel set-up gives bit-identical results for 1
// and 2 OpenMP threads.
#include <gtest/gtest.h>
#include <omp.h>

#include <cstring>
#include <string>
#include <vector>

#include "mesh/load_mesh.hpp"
#include "mesh/read_mesh.hpp"
#include "mesh_test_util.hpp"
#include "operators/heat_operator.hpp"
#include "util/ordered_sum.hpp"

namespace ss {
namespace {

using i32 = std::int32_t;
using test::with_threads;

// Bitwise equality of two arrays of trivially copyable values (doubles compared by their bits).
template <class T>
::testing::AssertionResult same_bits(const std::vector<T>& a, const std::vector<T>& b, const char* what) {
  if (a.size() != b.size())
    return ::testing::AssertionFailure() << what << ": " << a.size() << " vs " << b.size() << " entries";
  if (!a.empty() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) != 0) {
    size_t i = 0;
    while (std::memcmp(&a[i], &b[i], sizeof(T)) == 0) ++i;
    return ::testing::AssertionFailure() << what << ": first difference at entry " << i;
  }
  return ::testing::AssertionSuccess();
}

TetMesh read_project_mesh(const std::string& file) { return read_mesh(std::string(SS_SOURCE_DIR) + "/meshes/" + file); }

struct MeshCase {
  const char* file;
  int refine;
};
const MeshCase kMeshes[] = {{"cube.msh", 0}, {"cube.msh", 1}, {"crank.msh", 0}, {"crank.msh", 2},
                            {"cavity.msh", 0}, {"duct.msh", 1}};

class LeanTables : public ::testing::TestWithParam<MeshCase> {};

TEST_P(LeanTables, BoundaryTablesAreTheFullTablesRestricted) {
  const LoadedMesh full = prepare_mesh(read_project_mesh(GetParam().file), GetParam().refine);
  const Topology& t = full.topology;
  const Topology lean = build_topology(full.mesh, TopologyTables::boundary);
  const Topology edges = build_topology(full.mesh, TopologyTables::edges);

  // The node graph is the same in every set.
  for (const Topology* other : {&lean, &edges}) {
    EXPECT_TRUE(same_bits(other->edge_nodes, t.edge_nodes, "edge_nodes"));
    EXPECT_TRUE(same_bits(other->cell_edges, t.cell_edges, "cell_edges"));
    EXPECT_TRUE(same_bits(other->node_offsets, t.node_offsets, "node_offsets"));
    EXPECT_TRUE(same_bits(other->node_neighbors, t.node_neighbors, "node_neighbors"));
    EXPECT_TRUE(same_bits(other->node_edges, t.node_edges, "node_edges"));
  }
  EXPECT_EQ(edges.num_faces, 0);
  EXPECT_TRUE(edges.face_nodes.empty() && edges.boundary_faces.empty());

  // Face rows: the full table's faces with a group (the boundary, and interior faces the file
  // lists), in the same order, with the same nodes, cells and groups.
  EXPECT_EQ(lean.mesh_faces, t.num_faces);
  EXPECT_EQ(t.mesh_faces, t.num_faces);
  EXPECT_EQ(lean.mesh_boundary_faces, std::int64_t(t.boundary_faces.size()));
  std::vector<i32> kept;
  for (i32 f = 0; f < t.num_faces; ++f)
    if (t.face_groups[size_t(f)] != 0) kept.push_back(f);
  ASSERT_EQ(lean.num_faces, i32(kept.size()));
  ASSERT_EQ(lean.boundary_faces.size(), t.boundary_faces.size());
  for (i32 r = 0, b = 0; r < lean.num_faces; ++r) {
    const i32 f = kept[size_t(r)];
    ASSERT_EQ(lean.face_nodes[size_t(r)], t.face_nodes[size_t(f)]) << "row " << r;
    ASSERT_EQ(lean.face_cells[size_t(r)], t.face_cells[size_t(f)]) << "row " << r;
    ASSERT_EQ(lean.face_groups[size_t(r)], t.face_groups[size_t(f)]) << "row " << r;
    if (lean.face_cells[size_t(r)][1] < 0) {
      ASSERT_EQ(lean.boundary_faces[size_t(b)], r);
      ASSERT_EQ(t.boundary_faces[size_t(b)], f);
      ++b;
    }
    ASSERT_EQ(lean.find_face(t.face_nodes[size_t(f)][2], t.face_nodes[size_t(f)][0], t.face_nodes[size_t(f)][1]), r);
  }
  EXPECT_EQ(lean.unassigned_group, t.unassigned_group);
  EXPECT_EQ(lean.unassigned_faces, t.unassigned_faces);
  EXPECT_TRUE(lean.cell_faces.empty() && lean.face_edges.empty() && lean.edge_faces.empty());

  // Geometry on the lean tables: the same values, face arrays on the kept rows.
  const Geometry& g = full.geometry;
  const Geometry h = compute_geometry(full.mesh, lean);
  EXPECT_TRUE(same_bits(h.cell_volumes, g.cell_volumes, "cell_volumes"));
  EXPECT_TRUE(same_bits(h.cell_centroids, g.cell_centroids, "cell_centroids"));
  EXPECT_TRUE(same_bits(h.dual_volumes, g.dual_volumes, "dual_volumes"));
  EXPECT_TRUE(same_bits(h.boundary_dual_areas, g.boundary_dual_areas, "boundary_dual_areas"));
  EXPECT_EQ(h.total_volume, g.total_volume);
  EXPECT_EQ(h.bbox_min, g.bbox_min);
  EXPECT_EQ(h.bbox_max, g.bbox_max);
  EXPECT_EQ(h.quality.min_dihedral_deg, g.quality.min_dihedral_deg);
  EXPECT_EQ(h.quality.max_aspect_ratio, g.quality.max_aspect_ratio);
  EXPECT_EQ(h.quality.worst_aspect_tet, g.quality.worst_aspect_tet);
  EXPECT_EQ(h.quality.min_edge_length, g.quality.min_edge_length);
  EXPECT_EQ(h.quality.max_edge_length, g.quality.max_edge_length);
  for (i32 r = 0; r < lean.num_faces; ++r) {
    const size_t f = size_t(kept[size_t(r)]);
    ASSERT_EQ(h.face_areas[size_t(r)], g.face_areas[f]);
    ASSERT_EQ(h.face_normals[size_t(r)], g.face_normals[f]);
    ASSERT_EQ(h.face_centroids[size_t(r)], g.face_centroids[f]);
  }
  EXPECT_TRUE(h.edge_lengths.empty() && h.dual_face_areas.empty());

  // The heat operator assembled on the lean tables equals the one on the full tables.
  LoadedMesh lean_mesh{full.mesh, lean, h, full.report};
  const std::vector<double> k(size_t(t.num_cells), 2.5);
  const HeatOperatorData a = assemble_heat_operator(full, k), b = assemble_heat_operator(lean_mesh, k);
  EXPECT_TRUE(same_bits(a.coefficients, b.coefficients, "coefficients"));
  EXPECT_TRUE(same_bits(a.diagonal, b.diagonal, "diagonal"));
  EXPECT_TRUE(same_bits(a.grad_lambda[0], b.grad_lambda[0], "grad_lambda"));
}

std::string mesh_name(const ::testing::TestParamInfo<MeshCase>& info) {
  std::string name = info.param.file;
  return name.substr(0, name.find('.')) + "_refine" + std::to_string(info.param.refine);
}

INSTANTIATE_TEST_SUITE_P(ProjectMeshes, LeanTables, ::testing::ValuesIn(kMeshes), mesh_name);

struct SetupResult {
  LoadedMesh mesh;
  HeatOperatorData heat;
  HeatDirichletData dirichlet;
};

// Read, validate, refine, renumber, topology, geometry, heat assembly and elimination.
SetupResult run_setup(const char* file, int refine, TopologyTables tables) {
  LoadOptions options;
  options.refine = refine;
  options.tables = tables;
  SetupResult r{load_mesh(std::string(SS_SOURCE_DIR) + "/meshes/" + file, options), {}, {}};
  std::vector<double> k(r.mesh.mesh.tets.size());
  for (size_t c = 0; c < k.size(); ++c) k[c] = 1.0 + 0.5 * r.mesh.geometry.cell_centroids[c].x * r.mesh.geometry.cell_centroids[c].x;
  r.heat = assemble_heat_operator(r.mesh, k);
  r.dirichlet = eliminate_dirichlet(r.heat, boundary_group_nodes(r.mesh, {1}));
  return r;
}

void expect_same_setup(const SetupResult& x, const SetupResult& y) {
  const TetMesh &m = x.mesh.mesh, &n = y.mesh.mesh;
  EXPECT_TRUE(same_bits(m.nodes, n.nodes, "nodes"));
  EXPECT_TRUE(same_bits(m.tets, n.tets, "tets"));
  EXPECT_TRUE(same_bits(m.tet_groups, n.tet_groups, "tet_groups"));
  EXPECT_TRUE(same_bits(m.boundary_triangles, n.boundary_triangles, "boundary_triangles"));
  const Topology &s = x.mesh.topology, &t = y.mesh.topology;
  EXPECT_TRUE(same_bits(s.edge_nodes, t.edge_nodes, "edge_nodes"));
  EXPECT_TRUE(same_bits(s.cell_edges, t.cell_edges, "cell_edges"));
  EXPECT_TRUE(same_bits(s.node_offsets, t.node_offsets, "node_offsets"));
  EXPECT_TRUE(same_bits(s.node_neighbors, t.node_neighbors, "node_neighbors"));
  EXPECT_TRUE(same_bits(s.node_edges, t.node_edges, "node_edges"));
  EXPECT_TRUE(same_bits(s.face_nodes, t.face_nodes, "face_nodes"));
  EXPECT_TRUE(same_bits(s.face_cells, t.face_cells, "face_cells"));
  EXPECT_TRUE(same_bits(s.face_groups, t.face_groups, "face_groups"));
  EXPECT_TRUE(same_bits(s.face_edges, t.face_edges, "face_edges"));
  EXPECT_TRUE(same_bits(s.face_edge_signs, t.face_edge_signs, "face_edge_signs"));
  EXPECT_TRUE(same_bits(s.cell_faces, t.cell_faces, "cell_faces"));
  EXPECT_TRUE(same_bits(s.cell_face_signs, t.cell_face_signs, "cell_face_signs"));
  EXPECT_TRUE(same_bits(s.edge_face_offsets, t.edge_face_offsets, "edge_face_offsets"));
  EXPECT_TRUE(same_bits(s.edge_faces, t.edge_faces, "edge_faces"));
  EXPECT_TRUE(same_bits(s.boundary_faces, t.boundary_faces, "boundary_faces"));
  EXPECT_EQ(s.mesh_faces, t.mesh_faces);
  const Geometry &g = x.mesh.geometry, &h = y.mesh.geometry;
  EXPECT_TRUE(same_bits(g.cell_volumes, h.cell_volumes, "cell_volumes"));
  EXPECT_TRUE(same_bits(g.cell_centroids, h.cell_centroids, "cell_centroids"));
  EXPECT_TRUE(same_bits(g.face_areas, h.face_areas, "face_areas"));
  EXPECT_TRUE(same_bits(g.face_normals, h.face_normals, "face_normals"));
  EXPECT_TRUE(same_bits(g.edge_lengths, h.edge_lengths, "edge_lengths"));
  EXPECT_TRUE(same_bits(g.dual_volumes, h.dual_volumes, "dual_volumes"));
  EXPECT_TRUE(same_bits(g.dual_face_areas, h.dual_face_areas, "dual_face_areas"));
  EXPECT_TRUE(same_bits(g.boundary_dual_areas, h.boundary_dual_areas, "boundary_dual_areas"));
  EXPECT_TRUE(same_bits(std::vector<double>{g.total_volume, g.quality.min_dihedral_deg, g.quality.max_aspect_ratio},
                        std::vector<double>{h.total_volume, h.quality.min_dihedral_deg, h.quality.max_aspect_ratio},
                        "volume and quality"));
  EXPECT_EQ(g.quality.worst_aspect_tet, h.quality.worst_aspect_tet);
  EXPECT_TRUE(same_bits(x.heat.edge_coefficients, y.heat.edge_coefficients, "edge_coefficients"));
  EXPECT_TRUE(same_bits(x.heat.coefficients, y.heat.coefficients, "coefficients"));
  EXPECT_TRUE(same_bits(x.heat.diagonal, y.heat.diagonal, "diagonal"));
  EXPECT_TRUE(same_bits(x.heat.mass, y.heat.mass, "mass"));
  for (int d = 0; d < 3; ++d) EXPECT_TRUE(same_bits(x.heat.grad_lambda[d], y.heat.grad_lambda[d], "grad_lambda"));
  EXPECT_TRUE(same_bits(x.dirichlet.offsets, y.dirichlet.offsets, "dirichlet offsets"));
  EXPECT_TRUE(same_bits(x.dirichlet.neighbors, y.dirichlet.neighbors, "dirichlet neighbors"));
  EXPECT_TRUE(same_bits(x.dirichlet.coefficients, y.dirichlet.coefficients, "dirichlet coefficients"));
  EXPECT_TRUE(same_bits(x.dirichlet.shift, y.dirichlet.shift, "dirichlet shift"));
}

// Crankshaft refined 3 times: 653k tets and 123k nodes, enough for every parallel loop to split
// (the counting sorts go parallel above 65,536 elements, the per-node loops above 20,000 nodes).
TEST(ParallelSetup, OneAndTwoThreadsGiveBitIdenticalTables) {
  for (TopologyTables tables : {TopologyTables::all, TopologyTables::boundary}) {
    const SetupResult one = with_threads(1, [&] { return run_setup("crank.msh", 3, tables); });
    const SetupResult two = with_threads(2, [&] { return run_setup("crank.msh", 3, tables); });
    ASSERT_GT(one.mesh.mesh.tets.size(), 2u * 65536u);
    expect_same_setup(one, two);
  }
}

TEST(ParallelSetup, OrderedSumDoesNotDependOnThreads) {
  for (size_t n : {size_t(0), size_t(1), size_t(2), size_t(16383), size_t(16384), size_t(16385), size_t(100003)}) {
    std::vector<double> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = 1.0 / double(i + 1) * ((i % 3) ? 1.0 : -1e3);
    const double one = with_threads(1, [&] { return ordered_sum(v); });
    const double two = with_threads(2, [&] { return ordered_sum(v); });
    EXPECT_EQ(std::memcmp(&one, &two, sizeof one), 0) << n;
    // Against a plain double sum: equal up to rounding.
    double plain = 0;
    for (double x : v) plain += x;
    EXPECT_NEAR(one, plain, 1e-9 * (1.0 + std::abs(plain))) << n;
  }
}

}  // namespace
}  // namespace ss
