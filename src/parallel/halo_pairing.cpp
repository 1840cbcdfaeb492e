#include "parallel/halo_pairing.hpp"

#include <algorithm>
#include <numeric>
#include <utility>

#include "parallel/message.hpp"
#include "util/error.hpp"

namespace ss {

std::vector<HaloLink> pair_halo_links(const std::vector<EntityKey>& keys, const std::vector<std::int32_t>& owner,
                                      const std::vector<char>& wanted, MPI_Comm comm) {
  int rank = 0, ranks = 1;
  mpi_check(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
  mpi_check(MPI_Comm_size(comm, &ranks), "MPI_Comm_size");
  SS_REQUIRE(keys.size() == owner.size() && keys.size() == wanted.size(), "halo: keys, owners and wanted flags differ in size");
  // The requests: wanted ghosts by (owner, key).
  std::vector<std::int32_t> ghosts;
  for (size_t i = 0; i < keys.size(); ++i)
    if (wanted[i] && owner[i] != rank) ghosts.push_back(std::int32_t(i));
  std::sort(ghosts.begin(), ghosts.end(), [&](std::int32_t a, std::int32_t b) {
    return std::make_pair(owner[size_t(a)], keys[size_t(a)]) < std::make_pair(owner[size_t(b)], keys[size_t(b)]);
  });
  std::vector<int> asked(size_t(ranks), 0), asked_of_me(size_t(ranks), 0);
  std::vector<std::int64_t> requests;
  requests.reserve(3 * ghosts.size());
  for (std::int32_t i : ghosts) {
    SS_REQUIRE(owner[size_t(i)] >= 0 && owner[size_t(i)] < ranks, "halo: entity " << i << " of rank " << rank
                                                                                 << " has owner " << owner[size_t(i)]);
    asked[size_t(owner[size_t(i)])] += 3;
    requests.insert(requests.end(), keys[size_t(i)].begin(), keys[size_t(i)].end());
  }
  mpi_check(MPI_Alltoall(asked.data(), 1, MPI_INT, asked_of_me.data(), 1, MPI_INT, comm), "MPI_Alltoall (halo links)");
  std::vector<int> send_at(size_t(ranks), 0), recv_at(size_t(ranks), 0);
  for (int r = 1; r < ranks; ++r) {
    send_at[size_t(r)] = send_at[size_t(r - 1)] + asked[size_t(r - 1)];
    recv_at[size_t(r)] = recv_at[size_t(r - 1)] + asked_of_me[size_t(r - 1)];
  }
  std::vector<std::int64_t> wanted_of_me(size_t(recv_at.back()) + size_t(asked_of_me.back()));
  mpi_check(MPI_Alltoallv(requests.data(), asked.data(), send_at.data(), MPI_INT64_T, wanted_of_me.data(),
                          asked_of_me.data(), recv_at.data(), MPI_INT64_T, comm),
            "MPI_Alltoallv (halo links)");
  // The entities this rank owns, by key.
  std::vector<std::pair<EntityKey, std::int32_t>> mine;
  for (size_t i = 0; i < keys.size(); ++i)
    if (owner[i] == rank) mine.push_back({keys[i], std::int32_t(i)});
  std::sort(mine.begin(), mine.end());
  const auto owned_index = [&](const EntityKey& key, int asker) {
    const auto it = std::lower_bound(mine.begin(), mine.end(), std::make_pair(key, std::int32_t(-1)));
    SS_REQUIRE(it != mine.end() && it->first == key, "partition: rank " << asker << " asks rank " << rank << " for entity ("
                                                                        << key[0] << ", " << key[1] << ", " << key[2]
                                                                        << "), which it does not own");
    return it->second;
  };
  std::vector<HaloLink> links;
  size_t next_ghost = 0;
  for (int r = 0; r < ranks; ++r) {
    if (asked[size_t(r)] == 0 && asked_of_me[size_t(r)] == 0) continue;
    SS_REQUIRE(r != rank, "partition: rank " << rank << " holds a ghost of its own");
    HaloLink l;
    l.rank = r;
    for (int k = 0; k < asked[size_t(r)] / 3; ++k) l.recv.push_back(ghosts[next_ghost++]);
    for (int k = 0; k < asked_of_me[size_t(r)]; k += 3) {
      const std::int64_t* key = &wanted_of_me[size_t(recv_at[size_t(r)] + k)];
      l.send.push_back(owned_index({key[0], key[1], key[2]}, r));
    }
    links.push_back(std::move(l));
  }
  return links;
}

}  // namespace ss
