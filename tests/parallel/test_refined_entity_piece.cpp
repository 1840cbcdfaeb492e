// Partition, then refine, for every entity kind (parallel/refined_entity_piece.hpp), under
// `mpiexec -n N` (N = 1..4; every rank runs every case): each rank refines its own base piece, and
// the pieces together are the serial refinement's entity partition (entity_partition.hpp's rules):
//   - every node, cell, face and edge of the serial refinement (load_mesh --refine) is owned by
//     exactly one rank, the one entity_owners names for the inherited tet partition;
//   - global ids of every kind fill [0, count) (refined_entity_counts) and name the same serial
//     entity on every rank that holds it; nodes and cells ascend;
//   - every face is oriented as the serial mesh's (from the same cell), every edge from its lower
//     global node to its higher;
//   - every tet around each node of an owned entity is local;
//   - a halo update (the piece's links) gives every ghost its owner's value, cut faces none; the
//     cut faces are exactly the local boundary faces inside the serial mesh, and the other boundary
//     faces carry the serial face's group.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include <mpi.h>

#include "cpu/cpu_backend.hpp"
#include "parallel/entity_partition.hpp"
#include "parallel/halo.hpp"
#include "parallel/partition.hpp"
#include "parallel/refined_entity_piece.hpp"
#include "support/project_mesh.hpp"

namespace ss {
namespace {

int comm_rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}
int comm_size() {
  int n = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  return n;
}

// Sums over ranks, element by element.
template <class T>
std::vector<T> sum_over_ranks(std::vector<T> v, MPI_Datatype type) {
  MPI_Allreduce(MPI_IN_PLACE, v.data(), int(v.size()), type, MPI_SUM, MPI_COMM_WORLD);
  return v;
}

class RefinedEntityPiece : public ::testing::TestWithParam<std::tuple<std::string, int>> {};

TEST_P(RefinedEntityPiece, PiecesMakeTheSerialRefinementsEntityPartition) {
  const auto& [file, levels] = GetParam();
  const int rank = comm_rank(), ranks = comm_size();
  const LoadedMesh& base = test::project_mesh(file, 0);
  const LoadedMesh& serial = test::project_mesh(file, levels);
  const Topology& st = serial.topology;
  std::vector<std::int32_t> part = partition_tets(base.mesh, ranks);
  MPI_Bcast(part.data(), int(part.size()), MPI_INT32_T, 0, MPI_COMM_WORLD);  // one partition, whatever METIS does per process
  const BasePiece b = BasePartition(base, part, ranks).piece(rank);
  const EntityPiece p = refine_entity_piece(b, levels, MPI_COMM_WORLD);
  const FineCounts counts = refined_entity_counts(b, levels);
  const EntityOwners owner = entity_owners(serial, inherit_partition(part, levels));

  // The serial entity behind every local one: nodes by their coordinates, the rest by their nodes.
  ASSERT_EQ(counts.nodes, std::int64_t(serial.mesh.nodes.size()));
  ASSERT_EQ(counts.cells, std::int64_t(serial.mesh.tets.size()));
  ASSERT_EQ(counts.faces, std::int64_t(st.num_faces));
  ASSERT_EQ(counts.edges, std::int64_t(st.num_edges));
  std::map<std::array<double, 3>, std::int32_t> serial_node;
  for (size_t v = 0; v < serial.mesh.nodes.size(); ++v)
    serial_node[{serial.mesh.nodes[v].x, serial.mesh.nodes[v].y, serial.mesh.nodes[v].z}] = std::int32_t(v);
  const Topology lt = build_topology(p.mesh);
  std::vector<std::int32_t> node_serial(p.mesh.nodes.size());
  for (size_t v = 0; v < node_serial.size(); ++v) {
    const auto it = serial_node.find({p.mesh.nodes[v].x, p.mesh.nodes[v].y, p.mesh.nodes[v].z});
    ASSERT_NE(it, serial_node.end()) << "rank " << rank << "'s node " << v << " is no serial node";
    node_serial[v] = it->second;
  }
  std::vector<std::int32_t> serial_of[4];  // nodes, cells, faces, edges
  serial_of[0] = node_serial;
  for (size_t c = 0; c < p.mesh.tets.size(); ++c) {
    const std::int64_t g = p.cells.global[c];
    ASSERT_TRUE(g >= 0 && g < counts.cells);
    std::array<std::int32_t, 4> mine, theirs = serial.mesh.tets[size_t(g)];
    for (int k = 0; k < 4; ++k) mine[size_t(k)] = node_serial[size_t(p.mesh.tets[c][size_t(k)])];
    ASSERT_EQ(mine, theirs) << "fine tet " << g << " on rank " << rank;
    serial_of[1].push_back(std::int32_t(g));
  }
  for (std::int32_t f = 0; f < lt.num_faces; ++f) {
    const auto& n = lt.face_nodes[size_t(f)];
    serial_of[2].push_back(st.find_face(node_serial[size_t(n[0])], node_serial[size_t(n[1])], node_serial[size_t(n[2])]));
    ASSERT_GE(serial_of[2].back(), 0) << "rank " << rank << "'s face " << f;
  }
  for (std::int32_t e = 0; e < lt.num_edges; ++e) {
    const auto& n = lt.edge_nodes[size_t(e)];
    serial_of[3].push_back(st.find_edge(node_serial[size_t(n[0])], node_serial[size_t(n[1])]));
    ASSERT_GE(serial_of[3].back(), 0) << "rank " << rank << "'s edge " << e;
    EXPECT_LT(p.nodes.global[size_t(n[0])], p.nodes.global[size_t(n[1])]);
  }
  EXPECT_TRUE(std::is_sorted(p.nodes.global.begin(), p.nodes.global.end()));
  EXPECT_TRUE(std::is_sorted(p.cells.global.begin(), p.cells.global.end()));

  // Cut faces: the local boundary faces inside the serial mesh; the others carry its group.
  ASSERT_EQ(p.cut.size(), lt.boundary_faces.size());
  std::vector<char> cut(size_t(lt.num_faces), 0);
  for (size_t k = 0; k < lt.boundary_faces.size(); ++k) {
    const std::int32_t f = lt.boundary_faces[k], s = serial_of[2][size_t(f)];
    cut[size_t(f)] = p.cut[k];
    EXPECT_EQ(p.cut[k] != 0, st.face_cells[size_t(s)][1] >= 0) << "boundary face " << f << " of rank " << rank;
    if (!p.cut[k]) {
      EXPECT_EQ(lt.face_groups[size_t(f)], st.face_groups[size_t(s)]) << "group of face " << f;
    }
  }
  for (std::int32_t f = 0; f < lt.num_faces; ++f) {
    if (!cut[size_t(f)]) {
      EXPECT_EQ(p.cells.global[size_t(lt.face_cells[size_t(f)][0])], st.face_cells[size_t(serial_of[2][size_t(f)])][0])
          << "face " << f << " of rank " << rank << " is oriented against the serial face";
    }
  }

  // Owners, dense global ids and the same id on every rank.
  const EntityHalo* kinds[4] = {&p.nodes, &p.cells, &p.faces, &p.edges};
  const std::vector<std::int32_t>* owners[4] = {&owner.node, nullptr, &owner.face, &owner.edge};
  const std::vector<std::int32_t> cell_owner = inherit_partition(part, levels);
  owners[1] = &cell_owner;
  const char* names[4] = {"node", "cell", "face", "edge"};
  const std::int64_t count[4] = {counts.nodes, counts.cells, counts.faces, counts.edges};
  for (int k = 0; k < 4; ++k) {
    const EntityHalo& h = *kinds[k];
    ASSERT_EQ(h.global.size(), serial_of[k].size());
    std::vector<int> owned_by(size_t(count[k]), 0);
    std::vector<std::int64_t> id_of_serial(size_t(count[k]), 0);
    for (size_t i = 0; i < h.global.size(); ++i) {
      const std::int32_t s = serial_of[k][i];
      ASSERT_EQ(h.owned[i] != 0, (*owners[k])[size_t(s)] == rank) << names[k] << " " << s << " on rank " << rank;
      if (h.owned[i]) ++owned_by[size_t(s)], id_of_serial[size_t(s)] = h.global[i] + 1;
    }
    owned_by = sum_over_ranks(owned_by, MPI_INT);
    id_of_serial = sum_over_ranks(id_of_serial, MPI_INT64_T);
    std::vector<int> named(size_t(count[k]), 0);
    for (size_t s = 0; s < size_t(count[k]); ++s) {
      ASSERT_EQ(owned_by[s], 1) << "serial " << names[k] << " " << s << " owned " << owned_by[s] << " times";
      const std::int64_t g = id_of_serial[s] - 1;
      ASSERT_TRUE(g >= 0 && g < count[k]) << names[k] << " id " << g;
      ASSERT_EQ(++named[size_t(g)], 1) << names[k] << " id " << g << " names two serial entities";
    }
    // Every local entity (but cut faces: -1) has its owner's id, and a halo update brings it.
    CpuBackend host;
    HaloExchange<CpuBackend> halo(host, h.links, MPI_COMM_WORLD);
    std::vector<double> values(h.global.size());
    for (size_t i = 0; i < values.size(); ++i) values[i] = h.owned[i] ? double(h.global[i]) : -2.0;
    halo.update(values);
    for (size_t i = 0; i < h.global.size(); ++i) {
      const bool is_cut = k == 2 && cut[i];
      const std::int64_t want = is_cut ? -1 : id_of_serial[size_t(serial_of[k][i])] - 1;
      EXPECT_EQ(h.global[i], want) << names[k] << " " << i << " of rank " << rank;
      EXPECT_EQ(values[i], is_cut ? -2.0 : double(want)) << names[k] << " " << i << " of rank " << rank << " after the halo update";
    }
    // Three vectors in one round trip (a batched update): each gets its own owners' values.
    std::vector<double> a(values.size()), b(values.size()), c(values.size());
    for (size_t i = 0; i < values.size(); ++i) {
      const double id = double(h.global[i]);
      a[i] = h.owned[i] ? id : -2.0, b[i] = h.owned[i] ? 3.0 * id + 1.0 : -2.0, c[i] = h.owned[i] ? -id : -2.0;
    }
    halo.update({&a, &b, &c});
    for (size_t i = 0; i < values.size(); ++i) {
      const double id = values[i];  // the single update's result
      ASSERT_EQ(a[i], id) << names[k] << " " << i << " of rank " << rank << " after the batched update";
      ASSERT_EQ(b[i], id == -2.0 ? -2.0 : 3.0 * id + 1.0) << names[k] << " " << i << " of rank " << rank;
      ASSERT_EQ(c[i], id == -2.0 ? -2.0 : -id) << names[k] << " " << i << " of rank " << rank;
    }
    EXPECT_EQ(halo.exchanges(), 2);
    for (const HaloLink& l : h.links)
      for (std::int32_t i : l.recv) EXPECT_FALSE(h.owned[size_t(i)]) << names[k] << ": an owned entity receives";
  }

  // Every serial tet around each node of an owned entity is local.
  std::vector<int> serial_around(serial.mesh.nodes.size(), 0), local_around(p.mesh.nodes.size(), 0);
  for (const Tet& t : serial.mesh.tets)
    for (NodeId v : t) ++serial_around[size_t(v)];
  for (const Tet& t : p.mesh.tets)
    for (NodeId v : t) ++local_around[size_t(v)];
  const auto expect_star = [&](const std::int32_t* nodes, int n, const char* what) {
    for (int j = 0; j < n; ++j)
      ASSERT_EQ(local_around[size_t(nodes[j])], serial_around[size_t(node_serial[size_t(nodes[j])])])
          << "tets around a node of an owned " << what << " on rank " << rank;
  };
  for (std::int32_t f = 0; f < lt.num_faces; ++f)
    if (p.faces.owned[size_t(f)]) expect_star(lt.face_nodes[size_t(f)].data(), 3, "face");
  for (std::int32_t e = 0; e < lt.num_edges; ++e)
    if (p.edges.owned[size_t(e)]) expect_star(lt.edge_nodes[size_t(e)].data(), 2, "edge");
  for (size_t c = 0; c < p.mesh.tets.size(); ++c)
    if (p.cells.owned[c]) expect_star(p.mesh.tets[c].data(), 4, "cell");
}

std::string case_name(const ::testing::TestParamInfo<std::tuple<std::string, int>>& info) {
  const std::string& file = std::get<0>(info.param);
  return file.substr(0, file.find('.')) + "_refine" + std::to_string(std::get<1>(info.param));
}

INSTANTIATE_TEST_SUITE_P(ProjectMeshes, RefinedEntityPiece,
                         ::testing::Values(std::make_tuple("cube.msh", 0), std::make_tuple("cube.msh", 1),
                                           std::make_tuple("cube.msh", 2), std::make_tuple("cavity.msh", 0),
                                           std::make_tuple("cavity.msh", 1), std::make_tuple("cavity.msh", 2),
                                           std::make_tuple("duct.msh", 1), std::make_tuple("cylinder_hole.msh", 2)),
                         case_name);

}  // namespace
}  // namespace ss
