// The partitions (src/parallel/) on the project meshes for 1-5 parts, without MPI: every entity has
// one owner, an owned entity's whole stencil is local, and the halo links pair up between ranks
// entry by entry (q's send list to r names the same global entities, in the same order, as r's
// receive list from q), as halo exchange needs.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include <glm/mat3x3.hpp>
#include <glm/matrix.hpp>

#include "mesh/load_mesh.hpp"
#include "parallel/partition.hpp"
#include "parallel/refined_node_piece.hpp"
#include "support/project_mesh.hpp"
#include "util/error.hpp"

namespace ss {
namespace {

using Links = std::vector<HaloLink>;

// The global ids behind a list of local indices.
std::vector<std::int64_t> globals(const std::vector<std::int32_t>& local, const std::vector<std::int64_t>& global_of) {
  std::vector<std::int64_t> g;
  for (std::int32_t i : local) g.push_back(global_of[size_t(i)]);
  return g;
}

// Links of all ranks for one entity kind pair up: q → r sends what r receives from q, in order; each
// ghost is received exactly once, from its owner; links ascend by rank and skip the rank itself.
void expect_links_pair_up(const std::vector<Links>& links, const std::vector<std::vector<std::int64_t>>& global_of,
                          const std::vector<std::int32_t>& owned, const std::vector<std::int32_t>& owner,
                          const std::string& what) {
  const int parts = int(links.size());
  std::vector<std::map<int, const HaloLink*>> by_rank(static_cast<size_t>(parts));
  for (int q = 0; q < parts; ++q) {
    int previous = -1;
    for (const HaloLink& l : links[size_t(q)]) {
      EXPECT_NE(l.rank, q) << what << ": rank " << q << " links to itself";
      EXPECT_GT(l.rank, previous) << what << ": rank " << q << "'s links are not in ascending rank";
      previous = l.rank;
      by_rank[size_t(q)][l.rank] = &l;
    }
  }
  for (int q = 0; q < parts; ++q) {
    std::vector<int> received(global_of[size_t(q)].size(), 0);
    for (const HaloLink& l : links[size_t(q)]) {
      for (std::int32_t i : l.recv) {
        ASSERT_GE(i, owned[size_t(q)]) << what << ": rank " << q << " receives its owned entity " << i;
        ++received[size_t(i)];
        EXPECT_EQ(owner[size_t(global_of[size_t(q)][size_t(i)])], l.rank) << what << ": received from a non-owner";
      }
      for (std::int32_t i : l.send) ASSERT_LT(i, owned[size_t(q)]) << what << ": rank " << q << " sends a ghost";
      const auto back = by_rank[size_t(l.rank)].find(q);
      ASSERT_NE(back, by_rank[size_t(l.rank)].end()) << what << ": rank " << l.rank << " has no link back to " << q;
      EXPECT_EQ(globals(l.send, global_of[size_t(q)]), globals(back->second->recv, global_of[size_t(l.rank)]))
          << what << ": " << q << " -> " << l.rank;
    }
    for (size_t i = size_t(owned[size_t(q)]); i < received.size(); ++i)
      EXPECT_EQ(received[i], 1) << what << ": ghost " << i << " of rank " << q << " received " << received[i] << " times";
  }
}

// "crank_refine1_parts3" for (mesh file, refinement levels, parts).
std::string case_name(const ::testing::TestParamInfo<std::tuple<std::string, int, int>>& info) {
  std::string name = std::get<0>(info.param);
  return name.substr(0, name.find('.')) + "_refine" + std::to_string(std::get<1>(info.param)) + "_parts" +
         std::to_string(std::get<2>(info.param));
}

// Partition, then refine (parallel/refined_node_piece.hpp): every rank refines its base piece itself.
// Interfaces refine identically on both sides: a fine node held by several ranks has the same global
// id, coordinates (bit for bit) and owner on each, and a fine tet held by several ranks has the same
// corners in the same order. The pieces together are the serial refinement (load_mesh with --refine):
// global node ids fill [0, N) and name each serial node exactly once, every node and tet is owned
// once, each owned node has its whole serial stencil (tets and file triangles) on its rank, and the
// node links pair up.
class RefinedPartition : public ::testing::TestWithParam<std::tuple<std::string, int, int>> {};

TEST_P(RefinedPartition, InterfacesRefineIdenticallyAndPiecesMakeTheSerialRefinement) {
  const auto& [file, levels, parts] = GetParam();
  const LoadedMesh& base = test::project_mesh(file, 0);
  const TetMesh& serial = test::project_mesh(file, levels).mesh;
  const BasePartition partition(base, partition_tets(base.mesh, parts), parts);
  const size_t nn = serial.nodes.size(), nt = serial.tets.size();
  ASSERT_EQ(nt, base.mesh.tets.size() << (3 * levels));
  // Serial nodes by their coordinates; tets and file triangles around each.
  std::map<std::array<double, 3>, std::int64_t> serial_node;
  for (size_t v = 0; v < nn; ++v) serial_node[{serial.nodes[v].x, serial.nodes[v].y, serial.nodes[v].z}] = std::int64_t(v);
  ASSERT_EQ(serial_node.size(), nn);
  std::vector<int> tets_around(nn, 0), triangles_around(nn, 0);
  for (const Tet& t : serial.tets)
    for (NodeId v : t) ++tets_around[size_t(v)];
  for (const Triangle& t : serial.boundary_triangles)
    for (NodeId v : t) ++triangles_around[size_t(v)];

  std::vector<std::int64_t> serial_of(nn, -1);  // per global id: the serial node at its coordinates
  std::vector<std::int32_t> owner(nn, -1);
  std::vector<int> node_owned_by(nn, 0), tet_owned_by(nt, 0);
  std::map<std::int64_t, std::array<std::int64_t, 4>> tet_corners;
  std::vector<Links> links(static_cast<size_t>(parts));
  std::vector<std::vector<std::int64_t>> node_global(static_cast<size_t>(parts));
  std::vector<std::int32_t> owned_nodes(static_cast<size_t>(parts));
  for (int q = 0; q < parts; ++q) {
    const BasePiece b = partition.piece(q);
    ASSERT_EQ(refined_node_count(b, levels), std::int64_t(nn));
    const RankPiece piece = refine_base_piece(b, levels, q);
    const MeshPartition& p = piece.part;
    const TetMesh& m = p.mesh;
    for (size_t i = 0; i < m.nodes.size(); ++i) {
      const std::int64_t g = p.node_global[i];
      ASSERT_TRUE(g >= 0 && g < std::int64_t(nn)) << "global id " << g << " of rank " << q;
      const auto at = serial_node.find({m.nodes[i].x, m.nodes[i].y, m.nodes[i].z});
      ASSERT_NE(at, serial_node.end()) << "rank " << q << "'s node " << g << " is no serial node";
      if (serial_of[size_t(g)] < 0) serial_of[size_t(g)] = at->second, owner[size_t(g)] = piece.node_owner[i];
      ASSERT_EQ(serial_of[size_t(g)], at->second) << "node " << g << " lies elsewhere on rank " << q;
      ASSERT_EQ(owner[size_t(g)], piece.node_owner[i]) << "node " << g << " has another owner on rank " << q;
      ASSERT_EQ(piece.node_owner[i] == q, std::int32_t(i) < p.owned_nodes) << "owned nodes first, rank " << q;
      if (std::int32_t(i) < p.owned_nodes) ++node_owned_by[size_t(g)];
    }
    const auto ghost_order = [&](std::int64_t a, std::int64_t b2) {
      return piece.node_owner[size_t(a)] != piece.node_owner[size_t(b2)] ? piece.node_owner[size_t(a)] < piece.node_owner[size_t(b2)]
                                                                         : p.node_global[size_t(a)] < p.node_global[size_t(b2)];
    };
    for (size_t i = size_t(p.owned_nodes) + 1; i < m.nodes.size(); ++i)
      ASSERT_TRUE(ghost_order(std::int64_t(i - 1), std::int64_t(i))) << "ghosts by owner and global id, rank " << q;
    ASSERT_EQ(std::int64_t(p.owned_tets), std::int64_t(b.owned_tets) << (3 * levels));
    std::vector<int> local_tets_around(m.nodes.size(), 0), local_triangles_around(m.nodes.size(), 0);
    for (size_t c = 0; c < m.tets.size(); ++c) {
      const std::int64_t g = p.tet_global[c];
      ASSERT_TRUE(g >= 0 && g < std::int64_t(nt));
      std::array<std::int64_t, 4> corners;
      for (int k = 0; k < 4; ++k) {
        corners[size_t(k)] = p.node_global[size_t(m.tets[c][size_t(k)])];
        ++local_tets_around[size_t(m.tets[c][size_t(k)])];
      }
      const auto [it, first] = tet_corners.emplace(g, corners);
      ASSERT_EQ(it->second, corners) << "fine tet " << g << " differs on rank " << q;
      if (std::int32_t(c) < p.owned_tets) ++tet_owned_by[size_t(g)];
    }
    for (const Triangle& t : m.boundary_triangles)
      for (NodeId v : t) ++local_triangles_around[size_t(v)];
    for (std::int32_t i = 0; i < p.owned_nodes; ++i) {
      const std::int64_t s = serial_of[size_t(p.node_global[size_t(i)])];
      ASSERT_EQ(local_tets_around[size_t(i)], tets_around[size_t(s)]) << "stencil of owned node " << p.node_global[size_t(i)];
      ASSERT_EQ(local_triangles_around[size_t(i)], triangles_around[size_t(s)]) << "triangles at owned node " << p.node_global[size_t(i)];
    }
    node_global[size_t(q)] = p.node_global;
    owned_nodes[size_t(q)] = p.owned_nodes;
  }
  std::vector<int> named(nn, 0);
  for (size_t g = 0; g < nn; ++g) {
    ASSERT_GE(serial_of[g], 0) << "global id " << g << " is on no rank";
    ASSERT_EQ(++named[size_t(serial_of[g])], 1) << "serial node " << serial_of[g] << " has two global ids";
    ASSERT_EQ(node_owned_by[g], 1) << "node " << g << " owned " << node_owned_by[g] << " times";
  }
  for (size_t c = 0; c < nt; ++c) ASSERT_EQ(tet_owned_by[c], 1) << "fine tet " << c << " owned " << tet_owned_by[c] << " times";
  for (int q = 0; q < parts; ++q) links[size_t(q)] = halo_links(q, node_global, owned_nodes, owner);
  expect_links_pair_up(links, node_global, owned_nodes, owner, "refined nodes");
}

INSTANTIATE_TEST_SUITE_P(ProjectMeshes, RefinedPartition,
                         ::testing::Combine(::testing::Values("cube.msh", "crank.msh"), ::testing::Values(0, 1, 2),
                                            ::testing::Values(1, 2, 3, 5)),
                         case_name);
// With a boundary surface ([[mesh.surface]]): the pieces project the hole's new nodes bit for bit as
// the serial refinement does (the edges on the hole known from the whole base mesh, not the piece).
INSTANTIATE_TEST_SUITE_P(SurfaceMesh, RefinedPartition,
                         ::testing::Combine(::testing::Values("cylinder_hole.msh"), ::testing::Values(1, 2),
                                            ::testing::Values(2, 3, 5)),
                         case_name);

// A periodic mesh (the unit box joined in x, y and z: a torus in every direction) split and refined
// on the pieces: every fine tet on every rank has the serial refinement's corners at the serial
// places (the pieces carry the base tets' corner shifts, and refinement the children's), so each
// rank's geometry is the serial run's across the seams too.
TEST(PeriodicPieces, EveryFineTetHasTheSerialCornerPositions) {
  const auto pair = [](const char* first, const char* second, glm::dvec3 offset) {
    PeriodicPair p;
    p.first = first, p.second = second, p.offset = offset, p.where = "test";
    return p;
  };
  LoadOptions load;
  load.periodic = {pair("xmin", "xmax", {1, 0, 0}), pair("ymin", "ymax", {0, 1, 0}), pair("zmin", "zmax", {0, 0, 1})};
  const std::string file = std::string(SS_SOURCE_DIR) + "/meshes/periodic_box.msh";
  const LoadedMesh base = load_mesh(file, load);
  const int levels = 2;
  load.refine = levels;
  const TetMesh serial = load_mesh(file, load).mesh;
  ASSERT_TRUE(is_periodic(base.mesh));
  for (int parts : {2, 3}) {
    const BasePartition partition(base, partition_tets(base.mesh, parts), parts);
    double largest = 0.0;
    size_t seam_tets = 0;
    for (int q = 0; q < parts; ++q) {
      const MeshPartition p = refine_base_piece(partition.piece(q), levels, q).part;
      ASSERT_EQ(p.mesh.period_offsets, serial.period_offsets);
      ASSERT_EQ(p.mesh.corner_shifts.size(), p.mesh.tets.size()) << "rank " << q << " of " << parts;
      for (size_t c = 0; c < p.mesh.tets.size(); ++c) {
        const size_t g = size_t(p.tet_global[c]);
        bool seam = false;
        for (int k = 0; k < 4; ++k) {
          const glm::dvec3 d = corner_position(p.mesh, c, k) - corner_position(serial, g, k);
          largest = std::max(largest, std::max({std::fabs(d.x), std::fabs(d.y), std::fabs(d.z)}));
          seam = seam || p.mesh.corner_shifts[c][size_t(k)] != PeriodShift{};
        }
        seam_tets += seam;
      }
    }
    EXPECT_LT(largest, 1e-14) << parts << " parts";
    EXPECT_GT(seam_tets, 0u);  // the seams are crossed
  }
}

// The multigrid over the ranks (distributed/distributed_heat_multigrid.hpp) takes every level of a
// rank's refinement at once: each level is the piece refine_base_piece makes for it, each fine
// node's parents are the coarse nodes it is the midpoint of (or the same point), present for every
// owned fine node, and a rank finds every fine node whose parent it owns with that parent (what the
// restriction's owned rows sum over).
class PieceHierarchyLevels : public ::testing::TestWithParam<std::tuple<std::string, int, int>> {};

TEST_P(PieceHierarchyLevels, AreTheLevelsPiecesWithTheirParents) {
  const auto& [file, levels, parts] = GetParam();
  const LoadedMesh& base = test::project_mesh(file, 0);
  const BasePartition partition(base, partition_tets(base.mesh, parts), parts);
  // Per level: (fine global id, coarse global parent) pairs seen on any rank, and the owner of each coarse node.
  std::vector<std::set<std::pair<std::int64_t, std::int64_t>>> child_of(static_cast<size_t>(levels));
  std::vector<std::map<std::int64_t, int>> coarse_owner(static_cast<size_t>(levels));
  std::vector<std::vector<std::set<std::pair<std::int64_t, std::int64_t>>>> found(
      static_cast<size_t>(parts), std::vector<std::set<std::pair<std::int64_t, std::int64_t>>>(static_cast<size_t>(levels)));
  for (int q = 0; q < parts; ++q) {
    const BasePiece b = partition.piece(q);
    const PieceHierarchy h = refine_base_hierarchy(b, levels, q);
    ASSERT_EQ(h.levels.size(), size_t(levels) + 1);
    ASSERT_EQ(h.maps.size(), size_t(levels));
    for (int l = 0; l <= levels; ++l) {
      const RankPiece alone = refine_base_piece(b, l, q);
      const MeshPartition& x = h.levels[size_t(l)].part;
      ASSERT_EQ(x.node_global, alone.part.node_global) << "level " << l << ", rank " << q;
      ASSERT_EQ(x.tet_global, alone.part.tet_global) << "level " << l << ", rank " << q;
      ASSERT_EQ(x.owned_nodes, alone.part.owned_nodes);
      ASSERT_EQ(x.owned_tets, alone.part.owned_tets);
      ASSERT_EQ(x.mesh.tets, alone.part.mesh.tets);
      ASSERT_EQ(x.mesh.nodes, alone.part.mesh.nodes);
    }
    for (int l = 0; l < levels; ++l) {
      const RankPiece& coarse = h.levels[size_t(l)];
      const RankPiece& fine = h.levels[size_t(l) + 1];
      const LevelMap& map = h.maps[size_t(l)];
      ASSERT_EQ(map.coarse_nodes, std::int32_t(coarse.part.mesh.nodes.size()));
      ASSERT_EQ(map.fine_nodes, std::int32_t(fine.part.mesh.nodes.size()));
      for (std::int32_t c = 0; c < coarse.part.owned_nodes; ++c) coarse_owner[size_t(l)][coarse.part.node_global[size_t(c)]] = q;
      for (std::int32_t f = 0; f < map.fine_nodes; ++f) {
        const auto [a, c] = map.parents[size_t(f)];
        const bool owned = f < fine.part.owned_nodes;
        if (owned) {
          ASSERT_TRUE(a >= 0 && c >= 0) << "owned fine node " << fine.part.node_global[size_t(f)] << " lacks a parent";
        }
        const glm::dvec3 x = fine.part.mesh.nodes[size_t(f)];
        if (a >= 0 && c >= 0) {  // the same point, or the midpoint of a coarse edge
          const glm::dvec3 mid = 0.5 * (coarse.part.mesh.nodes[size_t(a)] + coarse.part.mesh.nodes[size_t(c)]);
          ASSERT_EQ(x, a == c ? coarse.part.mesh.nodes[size_t(a)] : mid) << "fine node " << fine.part.node_global[size_t(f)];
        }
        for (std::int32_t p : {a, c}) {
          if (p < 0) continue;
          const std::pair<std::int64_t, std::int64_t> link{fine.part.node_global[size_t(f)], coarse.part.node_global[size_t(p)]};
          child_of[size_t(l)].insert(link);
          found[size_t(q)][size_t(l)].insert(link);
        }
      }
    }
  }
  for (int l = 0; l < levels; ++l)
    for (const auto& link : child_of[size_t(l)]) {
      const int q = coarse_owner[size_t(l)].at(link.second);
      ASSERT_TRUE(found[size_t(q)][size_t(l)].count(link))
          << "level " << l << ": rank " << q << " owns node " << link.second << " but lacks its child " << link.first;
    }
}

INSTANTIATE_TEST_SUITE_P(ProjectMeshes, PieceHierarchyLevels,
                         ::testing::Combine(::testing::Values("cube.msh", "crank.msh"), ::testing::Values(1, 2),
                                            ::testing::Values(1, 2, 3, 5)),
                         case_name);

// Partition, then refine for flow: METIS splits a coarse level, the refined tets inherit their
// ancestor's part. The refined mesh's tet 8^L·c + d lies inside tet c of the mesh L levels
// coarser (both through load_mesh: renumbered before refining), so the inherited parts are
// contiguous regions; and the coarse level has 64 tets per part unless no levels are left.
TEST(CoarsePartition, RefinedTetsLieInsideTheAncestorWhosePartTheyInherit) {
  const LoadedMesh& coarse = test::project_mesh("cube.msh", 1);
  const LoadedMesh& fine = test::project_mesh("cube.msh", 3);
  const std::vector<std::int32_t> coarse_part = partition_tets(coarse.mesh, 3);
  const std::vector<std::int32_t> part = inherit_partition(coarse_part, 2);
  ASSERT_EQ(part.size(), fine.mesh.tets.size());
  for (size_t t = 0; t < fine.mesh.tets.size(); ++t) {
    const size_t c = t / 64;
    ASSERT_EQ(part[t], coarse_part[c]) << "fine tet " << t;
    const Tet& a = coarse.mesh.tets[c];
    const glm::dvec3 p0 = coarse.mesh.nodes[size_t(a[0])];
    const glm::dmat3 frame(coarse.mesh.nodes[size_t(a[1])] - p0, coarse.mesh.nodes[size_t(a[2])] - p0,
                           coarse.mesh.nodes[size_t(a[3])] - p0);
    glm::dvec3 centroid(0.0);
    for (NodeId v : fine.mesh.tets[t]) centroid += 0.25 * fine.mesh.nodes[size_t(v)];
    const glm::dvec3 w = glm::inverse(frame) * (centroid - p0);  // barycentric weights 1..3
    EXPECT_GT(std::min({w.x, w.y, w.z, 1.0 - w.x - w.y - w.z}), 0.0) << "fine tet " << t << " is outside tet " << c;
  }
  EXPECT_EQ(coarse_partition_levels(6, 4, 3), 2);     // 6 -> 48 -> 384 >= 4 x 64
  EXPECT_EQ(coarse_partition_levels(6, 4, 1), 1);     // no levels left
  EXPECT_EQ(coarse_partition_levels(4994, 4, 3), 0);  // the cavity: split as read
  EXPECT_EQ(inherit_partition({2, 0}, 0), (std::vector<std::int32_t>{2, 0}));
}

// The largest part has at most 1 % more tets than the mean (METIS's default 3 % gave 2.8 % on two
// parts of the cavity), so no rank paces the others by its share.
TEST(PartitionBalance, TheLargestPartIsWithinOnePercentOfTheMean) {
  for (const char* file : {"cavity.msh", "crank.msh", "dfg_cylinder.msh"}) {
    const TetMesh& mesh = test::project_mesh(file).mesh;
    for (int parts = 2; parts <= 4; ++parts) {
      const std::vector<std::int32_t> part = partition_tets(mesh, parts);
      std::vector<std::int64_t> count(size_t(parts), 0);
      for (std::int32_t p : part) ++count[size_t(p)];
      const double largest = double(*std::max_element(count.begin(), count.end()));
      EXPECT_LE(largest * parts / double(mesh.tets.size()), 1.01 + 1e-9) << file << ", " << parts << " parts";
    }
  }
}

TEST(PartitionErrors, MoreRanksThanTetsIsAClearError) {
  const TetMesh& mesh = test::project_mesh("cube.msh").mesh;
  try {
    partition_tets(mesh, int(mesh.tets.size()) + 1);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("cannot be split over"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace ss
