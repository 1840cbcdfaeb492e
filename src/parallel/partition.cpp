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
  // At most 1 % more tets than the mean on a part (METIS's default allows 3 %): the ranks step in
  // lock step at every halo round trip and reduction, so the largest part sets the pace. Tighter
  // still (0.1 %) cuts several times more faces on 8 parts of the cavity.
  options[METIS_OPTION_UFACTOR] = 10;
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

int coarse_partition_levels(std::int64_t base_tets, int parts, int levels) {
  int coarse = 0;
  for (std::int64_t tets = base_tets; coarse < levels && tets < kCoarseTetsPerPart * parts; tets *= 8) ++coarse;
  return coarse;
}

std::vector<std::int32_t> inherit_partition(const std::vector<std::int32_t>& coarse_part, int levels) {
  SS_REQUIRE(levels >= 0 && levels <= 12, "partition: refinement level must be in 0..12, got " << levels);
  const size_t children = size_t(1) << (3 * levels);
  std::vector<std::int32_t> part(coarse_part.size() * children);
#pragma omp parallel for schedule(static)
  for (std::int64_t c = 0; c < std::int64_t(coarse_part.size()); ++c)
    std::fill_n(part.begin() + std::ptrdiff_t(size_t(c) * children), children, coarse_part[size_t(c)]);
  return part;
}

}  // namespace ss
