#include "parallel/partition.hpp"

#include <algorithm>
#include <limits>
#include <numeric>

#include <metis.h>

#include "parallel/global_to_local.hpp"
#include "util/error.hpp"

namespace ss {

std::vector<std::int32_t> partition_tets(const TetMesh& mesh, int parts) {
  SS_REQUIRE(parts >= 1, "partition: need at least one part, got " << parts);
  const std::int64_t ne = std::int64_t(mesh.tets.size());
  std::vector<std::int32_t> part(size_t(ne), 0);
  if (parts == 1) return part;
  SS_REQUIRE(ne >= parts, "partition: " << ne << " tets cannot be split over " << parts << " ranks");
  SS_REQUIRE(4 * ne < std::numeric_limits<idx_t>::max(), "partition: mesh too large for 32-bit METIS indices");
  idx_t n_elements = idx_t(ne), n_nodes = idx_t(mesh.nodes.size()), ncommon = 3, nparts = parts, objval = 0;
  std::vector<idx_t> eptr(size_t(ne) + 1), eind(size_t(ne) * 4);
  for (std::int64_t c = 0; c < ne; ++c) {
    eptr[size_t(c)] = idx_t(4 * c);
    for (int m = 0; m < 4; ++m) eind[size_t(4 * c + m)] = mesh.tets[size_t(c)][size_t(m)];
  }
  eptr[size_t(ne)] = idx_t(4 * ne);
  idx_t options[METIS_NOPTIONS];
  METIS_SetDefaultOptions(options);
  options[METIS_OPTION_PTYPE] = METIS_PTYPE_KWAY;
  options[METIS_OPTION_OBJTYPE] = METIS_OBJTYPE_CUT;
  options[METIS_OPTION_NUMBERING] = 0;
  options[METIS_OPTION_SEED] = 1;  // reproducible partitions
  std::vector<idx_t> epart(static_cast<size_t>(ne)), npart(mesh.nodes.size());
  const int status = METIS_PartMeshDual(&n_elements, &n_nodes, eptr.data(), eind.data(), nullptr, nullptr, &ncommon,
                                        &nparts, nullptr, options, &objval, epart.data(), npart.data());
  SS_REQUIRE(status == METIS_OK, "METIS_PartMeshDual failed (status " << status << ") for " << ne << " tets, "
                                                                     << parts << " parts");
  std::vector<std::int64_t> count(size_t(parts), 0);
  for (std::int64_t c = 0; c < ne; ++c) {
    part[size_t(c)] = std::int32_t(epart[size_t(c)]);
    ++count[size_t(part[size_t(c)])];
  }
  for (int q = 0; q < parts; ++q)
    SS_REQUIRE(count[size_t(q)] > 0, "METIS left part " << q << " of " << parts << " empty (" << ne
                                                       << " tets): use fewer ranks or a finer mesh (--refine)");
  return part;
}


std::vector<HaloLink> halo_links(int q, const std::vector<std::vector<std::int64_t>>& local,
                                 const std::vector<std::vector<char>>& receives, const std::vector<std::int32_t>& owner) {
  const std::vector<std::int64_t>& mine = local[size_t(q)];
  const GlobalToLocal local_of(mine, q);
  std::vector<HaloLink> links(local.size());
  for (size_t r = 0; r < local.size(); ++r) links[r].rank = int(r);
  // Receive: q's receiving ghosts, each from its owner, in q's order.
  for (size_t i = 0; i < mine.size(); ++i) {
    if (!receives[size_t(q)][i]) continue;
    const std::int32_t r = owner[size_t(mine[i])];
    SS_REQUIRE(r != q, "partition: rank " << q << " receives its own entity " << mine[i]);
    links[size_t(r)].recv.push_back(std::int32_t(i));
  }
  // Send: for each other rank r, what r receives that q owns, in r's order.
  for (size_t r = 0; r < local.size(); ++r) {
    if (int(r) == q) continue;
    const std::vector<std::int64_t>& theirs = local[r];
    for (size_t i = 0; i < theirs.size(); ++i)
      if (receives[r][i] && owner[size_t(theirs[i])] == q) links[r].send.push_back(local_of(theirs[i]));
  }
  links.erase(std::remove_if(links.begin(), links.end(), [](const HaloLink& l) { return l.send.empty() && l.recv.empty(); }),
              links.end());
  return links;
}

std::vector<HaloLink> halo_links(int q, const std::vector<std::vector<std::int64_t>>& local,
                                 const std::vector<std::int32_t>& owned, const std::vector<std::int32_t>& owner) {
  std::vector<std::vector<char>> receives(local.size());
  for (size_t r = 0; r < local.size(); ++r) {
    receives[r].assign(local[r].size(), 1);
    std::fill(receives[r].begin(), receives[r].begin() + owned[r], 0);
  }
  return halo_links(q, local, receives, owner);
}

PartitionPlan::PartitionPlan(const TetMesh& mesh, std::vector<std::int32_t> tet_part, int parts)
    : mesh_(mesh), tet_part_(std::move(tet_part)), parts_(parts) {
  const size_t nn = mesh.nodes.size(), ne = mesh.tets.size();
  SS_REQUIRE(tet_part_.size() == ne, "partition: " << tet_part_.size() << " part ids for " << ne << " tets");
  // Owner: the lowest part among the tets around a node.
  owner_.assign(nn, std::numeric_limits<std::int32_t>::max());
  node_tet_offsets_.assign(nn + 1, 0);
  for (size_t c = 0; c < ne; ++c)
    for (NodeId v : mesh.tets[c]) {
      owner_[size_t(v)] = std::min(owner_[size_t(v)], tet_part_[c]);
      ++node_tet_offsets_[size_t(v) + 1];
    }
  for (size_t v = 0; v < nn; ++v) {
    SS_REQUIRE(owner_[v] != std::numeric_limits<std::int32_t>::max(), "partition: node " << v << " is in no tet");
    node_tet_offsets_[v + 1] += node_tet_offsets_[v];
  }
  node_tets_.resize(size_t(node_tet_offsets_[nn]));
  std::vector<std::int32_t> fill(node_tet_offsets_.begin(), node_tet_offsets_.end() - 1);
  for (size_t c = 0; c < ne; ++c)
    for (NodeId v : mesh.tets[c]) node_tets_[size_t(fill[size_t(v)]++)] = std::int32_t(c);

  // Local nodes of each rank: owned ascending, then ghosts by (owner, global id).
  node_global_.resize(size_t(parts));
  owned_nodes_.resize(size_t(parts));
  std::vector<char> mark(nn, 0);
  for (int q = 0; q < parts; ++q) {
    std::int32_t owned_tets = 0;
    const std::vector<std::int64_t> tets = local_tets(q, owned_tets);
    std::vector<std::int64_t> owned, ghosts;
    for (std::int64_t c : tets)
      for (NodeId v : mesh.tets[size_t(c)])
        if (!mark[size_t(v)]) {
          mark[size_t(v)] = 1;
          (owner_[size_t(v)] == q ? owned : ghosts).push_back(v);
        }
    for (std::int64_t v : owned) mark[size_t(v)] = 0;
    for (std::int64_t v : ghosts) mark[size_t(v)] = 0;
    std::sort(owned.begin(), owned.end());
    std::sort(ghosts.begin(), ghosts.end(), [&](std::int64_t a, std::int64_t b) {
      return owner_[size_t(a)] != owner_[size_t(b)] ? owner_[size_t(a)] < owner_[size_t(b)] : a < b;
    });
    owned_nodes_[size_t(q)] = std::int32_t(owned.size());
    owned.insert(owned.end(), ghosts.begin(), ghosts.end());
    node_global_[size_t(q)] = std::move(owned);
  }
}

// Rank q's tets: its METIS tets ascending, then every other tet touching a node q owns, ascending.
std::vector<std::int64_t> PartitionPlan::local_tets(int q, std::int32_t& owned) const {
  std::vector<std::int64_t> own, ghost;
  for (size_t c = 0; c < tet_part_.size(); ++c)
    if (tet_part_[c] == q) own.push_back(std::int64_t(c));
  for (size_t v = 0; v < owner_.size(); ++v) {
    if (owner_[v] != q) continue;
    for (std::int32_t k = node_tet_offsets_[v]; k < node_tet_offsets_[v + 1]; ++k) {
      const std::int32_t c = node_tets_[size_t(k)];
      if (tet_part_[size_t(c)] != q) ghost.push_back(c);
    }
  }
  std::sort(ghost.begin(), ghost.end());
  ghost.erase(std::unique(ghost.begin(), ghost.end()), ghost.end());
  owned = std::int32_t(own.size());
  own.insert(own.end(), ghost.begin(), ghost.end());
  return own;
}

std::vector<HaloLink> PartitionPlan::cell_links(int q) const {
  std::vector<std::vector<std::int64_t>> local(static_cast<size_t>(parts_));
  std::vector<std::int32_t> owned(size_t(parts_), 0);
  for (int r = 0; r < parts_; ++r) local[size_t(r)] = local_tets(r, owned[size_t(r)]);
  return halo_links(q, local, owned, tet_part_);
}

RankPiece PartitionPlan::build(int q) const {
  RankPiece piece;
  MeshPartition& p = piece.part;
  std::int32_t owned_tets = 0;
  p.tet_global = local_tets(q, owned_tets);
  p.owned_tets = owned_tets;
  p.node_global = node_global_[size_t(q)];
  p.owned_nodes = owned_nodes_[size_t(q)];
  const size_t n_local = p.node_global.size();

  const GlobalToLocal local_of(p.node_global, q);

  TetMesh& m = p.mesh;
  m.source = mesh_.source + " (rank " + std::to_string(q) + " of " + std::to_string(parts_) + ")";
  m.nodes.resize(n_local);
  for (size_t i = 0; i < n_local; ++i) m.nodes[i] = mesh_.nodes[size_t(p.node_global[i])];
  m.tets.resize(p.tet_global.size());
  m.tet_groups.resize(p.tet_global.size());
  for (size_t c = 0; c < p.tet_global.size(); ++c) {
    const size_t g = size_t(p.tet_global[c]);
    for (int k = 0; k < 4; ++k) m.tets[c][size_t(k)] = local_of(mesh_.tets[g][size_t(k)]);
    m.tet_groups[c] = mesh_.tet_groups.empty() ? 0 : mesh_.tet_groups[g];
  }
  m.volume_group_names = mesh_.volume_group_names;
  m.surface_group_names = mesh_.surface_group_names;

  piece.node_owner.resize(n_local);
  for (size_t i = 0; i < n_local; ++i) piece.node_owner[i] = owner_[size_t(p.node_global[i])];

  piece.links = halo_links(q, node_global_, owned_nodes_, owner_);
  return piece;
}

}  // namespace ss
