#pragma once
// Halo links without a global table: each rank asks the owners of its ghosts for them by key, so
// pieces that were built apart (every rank refining its own base piece) pair up entry by entry.
#include <array>
#include <cstdint>
#include <vector>

#include <mpi.h>

#include "parallel/partition.hpp"

namespace ss {

// A name every rank gives an entity the same way: a node its global id, a cell its global id, a face
// or an edge the global ids of its nodes, ascending; unused slots -1.
using EntityKey = std::array<std::int64_t, 3>;

// The links of one entity kind on this rank (partition.hpp's HaloLink): the ghosts marked in
// `wanted` are grouped by owner and sent to it in ascending key order (MPI_Alltoall of the counts,
// MPI_Alltoallv of the keys); the owner finds each among the entities it owns (owner == its rank)
// and sends their values in that order. Throws ss::Error when a key is not owned where it is asked.
std::vector<HaloLink> pair_halo_links(const std::vector<EntityKey>& keys, const std::vector<std::int32_t>& owner,
                                      const std::vector<char>& wanted, MPI_Comm comm);

}  // namespace ss
