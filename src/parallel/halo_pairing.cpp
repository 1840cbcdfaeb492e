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
  // The requests by key (far fewer than the owned entities), each answered by one pass over the
  // entities this rank owns.
  const size_t asked_total = wanted_of_me.size() / 3;
  std::vector<std::pair<EntityKey, size_t>> request(asked_total);
  for (size_t k = 0; k < asked_total; ++k)
    request[k] = {{wanted_of_me[3 * k], wanted_of_me[3 * k + 1], wanted_of_me[3 * k + 2]}, k};
  std::sort(request.begin(), request.end());
  std::vector<std::int32_t> answer(asked_total, -1);
  if (asked_total > 0)
    for (size_t i = 0; i < keys.size(); ++i) {
      if (owner[i] != rank) continue;
      auto it = std::lower_bound(request.begin(), request.end(), std::make_pair(keys[i], size_t(0)));
      for (; it != request.end() && it->first == keys[i]; ++it) answer[it->second] = std::int32_t(i);
    }
  const auto owned_index = [&](size_t k, int asker) {
    const std::int64_t* key = &wanted_of_me[3 * k];
    SS_REQUIRE(answer[k] >= 0, "partition: rank " << asker << " asks rank " << rank << " for entity (" << key[0] << ", "
                                                  << key[1] << ", " << key[2] << "), which it does not own");
    return answer[k];
  };
  std::vector<HaloLink> links;
  size_t next_ghost = 0;
  for (int r = 0; r < ranks; ++r) {
    if (asked[size_t(r)] == 0 && asked_of_me[size_t(r)] == 0) continue;
    SS_REQUIRE(r != rank, "partition: rank " << rank << " holds a ghost of its own");
    HaloLink l;
    l.rank = r;
    for (int k = 0; k < asked[size_t(r)] / 3; ++k) l.recv.push_back(ghosts[next_ghost++]);
    for (int k = 0; k < asked_of_me[size_t(r)]; k += 3) l.send.push_back(owned_index(size_t(recv_at[size_t(r)] + k) / 3, r));
    links.push_back(std::move(l));
  }
  return links;
}

}  // namespace ss
