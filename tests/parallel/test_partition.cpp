// The partition plan (src/parallel/partition.hpp) on the project meshes for 1-5 parts, without MPI:
// every node and tet has one owner, an owned node's whole stencil is local, and the halo links of
// nodes and of cells pair up between ranks entry by entry (q's send list to r names the same global
// entities, in the same order, as r's receive list from q), as halo exchange needs.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "parallel/partition.hpp"
#include "project_mesh.hpp"
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

class Partition : public ::testing::TestWithParam<std::tuple<std::string, int, int>> {};

TEST_P(Partition, OwnersStencilsAndHaloLinksOfNodesAndCells) {
  const auto& [file, refine, parts] = GetParam();
  const TetMesh& mesh = test::project_mesh(file, refine).mesh;
  const std::vector<std::int32_t> tet_part = partition_tets(mesh, parts);
  const PartitionPlan plan(mesh, tet_part, parts);

  std::vector<Links> node_links(static_cast<size_t>(parts)), cell_links(static_cast<size_t>(parts));
  std::vector<std::vector<std::int64_t>> node_global(static_cast<size_t>(parts)), tet_global(static_cast<size_t>(parts));
  std::vector<std::int32_t> owned_nodes(static_cast<size_t>(parts)), owned_tets(static_cast<size_t>(parts));
  std::vector<int> node_owned_by(mesh.nodes.size(), 0), tet_owned_by(mesh.tets.size(), 0);
  for (int q = 0; q < parts; ++q) {
    const RankPiece piece = plan.build(q);
    node_links[size_t(q)] = piece.links;
    cell_links[size_t(q)] = plan.cell_links(q);
    node_global[size_t(q)] = piece.part.node_global;
    tet_global[size_t(q)] = piece.part.tet_global;
    owned_nodes[size_t(q)] = piece.part.owned_nodes;
    owned_tets[size_t(q)] = piece.part.owned_tets;
    for (std::int32_t i = 0; i < piece.part.owned_nodes; ++i) ++node_owned_by[size_t(piece.part.node_global[size_t(i)])];
    for (std::int32_t c = 0; c < piece.part.owned_tets; ++c) {
      const std::int64_t g = piece.part.tet_global[size_t(c)];
      ++tet_owned_by[size_t(g)];
      EXPECT_EQ(tet_part[size_t(g)], q) << "owned tet " << g << " of rank " << q << " is in part " << tet_part[size_t(g)];
    }
    // An owned node's whole stencil (every tet around it) is on the rank.
    const std::set<std::int64_t> local_tets(piece.part.tet_global.begin(), piece.part.tet_global.end());
    std::set<std::int64_t> owned_set(piece.part.node_global.begin(), piece.part.node_global.begin() + piece.part.owned_nodes);
    for (size_t c = 0; c < mesh.tets.size(); ++c)
      for (NodeId v : mesh.tets[c])
        if (owned_set.count(v)) {
          ASSERT_TRUE(local_tets.count(std::int64_t(c))) << "tet " << c << " around owned node " << v;
        }
    // The local mesh is the global one renumbered.
    for (size_t c = 0; c < piece.part.mesh.tets.size(); ++c)
      for (int k = 0; k < 4; ++k)
        ASSERT_EQ(piece.part.node_global[size_t(piece.part.mesh.tets[c][size_t(k)])],
                  std::int64_t(mesh.tets[size_t(piece.part.tet_global[c])][size_t(k)]));
  }
  EXPECT_TRUE(std::all_of(node_owned_by.begin(), node_owned_by.end(), [](int k) { return k == 1; })) << "a node not owned once";
  EXPECT_TRUE(std::all_of(tet_owned_by.begin(), tet_owned_by.end(), [](int k) { return k == 1; })) << "a tet not owned once";
  expect_links_pair_up(node_links, node_global, owned_nodes, plan.node_owner(), "nodes");
  expect_links_pair_up(cell_links, tet_global, owned_tets, tet_part, "cells");
  if (parts == 1) {
    EXPECT_TRUE(node_links[0].empty());
    EXPECT_TRUE(cell_links[0].empty());
  }
}

INSTANTIATE_TEST_SUITE_P(ProjectMeshes, Partition,
                         ::testing::Combine(::testing::Values("cube.msh", "crank.msh", "cavity.msh"), ::testing::Values(0, 1),
                                            ::testing::Values(1, 2, 3, 5)),
                         [](const auto& info) {
                           std::string name = std::get<0>(info.param);
                           name = name.substr(0, name.find('.'));
                           return name + "_refine" + std::to_string(std::get<1>(info.param)) + "_parts" +
                                  std::to_string(std::get<2>(info.param));
                         });

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
