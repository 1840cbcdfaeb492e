// Locality renumbering: a consistent permutation (counts, volume, groups, tags, valid topology) that
// shrinks the node-graph bandwidth of a shuffled mesh.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <random>

#include "mesh/geometry.hpp"
#include "mesh/load_mesh.hpp"
#include "mesh/renumber.hpp"
#include "mesh/topology.hpp"
#include "mesh_test_util.hpp"

namespace ss {
namespace {

// The jittered box with nodes, tets and triangles in random order and made-up file tags.
TetMesh shuffled_box(int n, unsigned seed = 3) {
  TetMesh m = test::make_jittered_box(n, 0.2, seed);
  std::mt19937 rng(seed);
  const std::size_t nn = m.nodes.size();
  std::vector<NodeId> perm(nn);
  std::iota(perm.begin(), perm.end(), 0);
  std::shuffle(perm.begin(), perm.end(), rng);  // perm[old] = new
  std::vector<glm::dvec3> nodes(nn);
  for (std::size_t i = 0; i < nn; ++i) nodes[perm[i]] = m.nodes[i];
  m.nodes = nodes;
  for (Tet& t : m.tets)
    for (NodeId& v : t) v = perm[v];
  for (Triangle& t : m.boundary_triangles)
    for (NodeId& v : t) v = perm[v];
  std::vector<std::size_t> order(m.tets.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::shuffle(order.begin(), order.end(), rng);
  std::vector<Tet> tets;
  std::vector<std::int32_t> groups;
  for (std::size_t k : order) tets.push_back(m.tets[k]), groups.push_back(m.tet_groups[k]);
  m.tets = tets;
  m.tet_groups = groups;
  for (std::size_t c = 0; c < m.tets.size(); ++c) m.tet_groups[c] = 7 + static_cast<int>(c % 3);  // three regions
  for (std::size_t i = 0; i < nn; ++i) m.node_tags.push_back(1000 + 3 * static_cast<std::int64_t>(i));
  for (std::size_t c = 0; c < m.tets.size(); ++c) m.tet_tags.push_back(50000 + static_cast<std::int64_t>(c));
  for (std::size_t t = 0; t < m.boundary_triangles.size(); ++t) m.triangle_tags.push_back(90000 + static_cast<std::int64_t>(t));
  return m;
}

std::map<int, int> boundary_faces_per_group(const Topology& t) {
  std::map<int, int> out;
  for (int f : t.boundary_faces) ++out[t.face_groups[f]];
  return out;
}

double volume(const TetMesh& m) {
  double v = 0;
  for (const Tet& t : m.tets) v += signed_tet_volume(m, t);
  return v;
}

TEST(Renumber, IsAConsistentPermutation) {
  const TetMesh before = shuffled_box(6);
  TetMesh after = before;
  const RenumberReport r = renumber_for_locality(after);
  ASSERT_EQ(after.nodes.size(), before.nodes.size());
  ASSERT_EQ(after.tets.size(), before.tets.size());
  ASSERT_EQ(after.boundary_triangles.size(), before.boundary_triangles.size());
  EXPECT_EQ(r.components, 1);
  EXPECT_NEAR(volume(after), volume(before), 1e-12);
  // Tags travel with their entities: node tag -> coordinates, tet tag -> (node tags, group),
  // triangle tag -> node tags and group, all as before.
  std::map<std::int64_t, glm::dvec3> coord_of;
  for (std::size_t i = 0; i < before.nodes.size(); ++i) coord_of[before.node_tags[i]] = before.nodes[i];
  for (std::size_t i = 0; i < after.nodes.size(); ++i) ASSERT_EQ(after.nodes[i], coord_of.at(after.node_tags[i]));
  auto tet_key = [](const TetMesh& m, std::size_t c) {
    std::array<std::int64_t, 5> k{};
    for (int i = 0; i < 4; ++i) k[i] = m.node_tags[m.tets[c][i]];
    k[4] = m.tet_groups[c];
    return k;
  };
  std::map<std::int64_t, std::array<std::int64_t, 5>> tet_of;
  for (std::size_t c = 0; c < before.tets.size(); ++c) tet_of[before.tet_tags[c]] = tet_key(before, c);
  for (std::size_t c = 0; c < after.tets.size(); ++c) ASSERT_EQ(tet_key(after, c), tet_of.at(after.tet_tags[c]));
  std::map<std::int64_t, std::array<std::int64_t, 4>> tri_of;
  auto tri_key = [](const TetMesh& m, std::size_t t) {
    const Triangle& tri = m.boundary_triangles[t];
    return std::array<std::int64_t, 4>{m.node_tags[tri[0]], m.node_tags[tri[1]], m.node_tags[tri[2]], m.triangle_groups[t]};
  };
  for (std::size_t t = 0; t < before.boundary_triangles.size(); ++t) tri_of[before.triangle_tags[t]] = tri_key(before, t);
  for (std::size_t t = 0; t < after.boundary_triangles.size(); ++t)
    ASSERT_EQ(tri_key(after, t), tri_of.at(after.triangle_tags[t]));
  // Orientation is kept (no node swaps), topology is valid, groups keep their face counts.
  for (const Tet& t : after.tets) ASSERT_GT(signed_tet_volume(after, t), 0);
  const Topology t0 = build_topology(before), t1 = build_topology(after);
  EXPECT_EQ(t1.num_faces, t0.num_faces);
  EXPECT_EQ(t1.num_edges, t0.num_edges);
  EXPECT_EQ(t1.unassigned_faces, 0);
  EXPECT_EQ(boundary_faces_per_group(t1), boundary_faces_per_group(t0));
  // Tets are ordered by their smallest node.
  auto min_node = [&](const Tet& t) { return *std::min_element(t.begin(), t.end()); };
  for (std::size_t c = 1; c < after.tets.size(); ++c) ASSERT_LE(min_node(after.tets[c - 1]), min_node(after.tets[c]));
}

TEST(Renumber, ReverseCuthillMcKeeShrinksTheBandwidth) {
  TetMesh m = shuffled_box(10);
  const GraphBandwidth natural = node_graph_bandwidth(make_box_mesh(10, 10, 10));  // lexicographic lattice order
  const RenumberReport r = renumber_for_locality(m);
  EXPECT_EQ(r.before.bandwidth, node_graph_bandwidth(shuffled_box(10)).bandwidth);
  EXPECT_EQ(r.after.bandwidth, node_graph_bandwidth(m).bandwidth);
  EXPECT_EQ(r.after.profile, node_graph_bandwidth(m).profile);
  EXPECT_GT(r.before.bandwidth, 1000);  // shuffled: about the node count (1331)
  EXPECT_LE(r.after.bandwidth, 2 * natural.bandwidth) << "RCM is within 2x of the lattice order (" << natural.bandwidth << ")";
  EXPECT_LT(r.after.profile * 5, r.before.profile);
  // Deterministic: the same input gives the same numbering.
  TetMesh again = shuffled_box(10);
  renumber_for_locality(again);
  EXPECT_EQ(again.tets, m.tets);
  EXPECT_EQ(again.node_tags, m.node_tags);
}

TEST(Renumber, DisconnectedPiecesAreEachNumberedContiguously) {
  TetMesh a = make_box_mesh(2, 2, 2), b = make_box_mesh(3, 2, 2);
  const NodeId offset = static_cast<NodeId>(a.nodes.size());
  for (auto p : b.nodes) a.nodes.push_back(p + glm::dvec3(5, 0, 0));
  for (Tet t : b.tets) {
    for (NodeId& v : t) v += offset;
    a.tets.push_back(t);
    a.tet_groups.push_back(8);
  }
  const RenumberReport r = renumber_for_locality(a);
  EXPECT_EQ(r.components, 2);
  EXPECT_LT(r.after.bandwidth, static_cast<std::int64_t>(b.nodes.size()));
}

TEST(Renumber, LoadMeshWithAndWithoutRenumberingAgree) {
  const LoadedMesh on = prepare_mesh(shuffled_box(5), LoadOptions{1, true});
  const LoadedMesh off = prepare_mesh(shuffled_box(5), LoadOptions{1, false});
  EXPECT_TRUE(on.report.renumbered);
  EXPECT_FALSE(off.report.renumbered);
  EXPECT_EQ(on.topology.num_nodes, off.topology.num_nodes);
  EXPECT_EQ(on.topology.num_faces, off.topology.num_faces);
  EXPECT_NEAR(on.geometry.total_volume, off.geometry.total_volume, 1e-12);
  EXPECT_EQ(boundary_faces_per_group(on.topology), boundary_faces_per_group(off.topology));
  // The file's mesh is renumbered (the report's figures), then refined in its order: neighbours of
  // the refined mesh are closer than with the plain refinement (midpoints after the old nodes).
  EXPECT_LT(on.report.renumber.after.bandwidth * 4, on.report.renumber.before.bandwidth);
  const GraphBandwidth refined_on = node_graph_bandwidth(on.mesh), refined_off = node_graph_bandwidth(off.mesh);
  EXPECT_LT(refined_on.bandwidth * 2, refined_off.bandwidth);
  EXPECT_LT(refined_on.profile * 2, refined_off.profile);
  EXPECT_EQ(refined_on.bandwidth,
            node_graph_bandwidth(on.topology.node_offsets, on.topology.node_neighbors).bandwidth);
}

}  // namespace
}  // namespace ss
