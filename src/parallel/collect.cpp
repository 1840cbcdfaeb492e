#include "parallel/collect.hpp"

#include <mpi.h>

#include "parallel/message.hpp"
#include "parallel/mpi_env.hpp"
#include "util/error.hpp"

namespace ss {

std::vector<double> gather_to_root(const std::vector<double>& owned, const std::vector<std::vector<std::int64_t>>* ids,
                                   size_t global_size, int width) {
  const int rank = mpi::rank(), ranks = mpi::size();
  const int count = int(owned.size());
  std::vector<int> counts(static_cast<size_t>(ranks)), displs(static_cast<size_t>(ranks));
  mpi_check(MPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, MPI_COMM_WORLD), "MPI_Gather");
  std::vector<double> all;
  if (rank == 0) {
    std::int64_t total = 0;
    for (int q = 0; q < ranks; ++q) {
      displs[size_t(q)] = int(total);
      total += counts[size_t(q)];
    }
    all.resize(size_t(total));
  }
  mpi_check(MPI_Gatherv(owned.data(), count, MPI_DOUBLE, all.data(), counts.data(), displs.data(), MPI_DOUBLE, 0,
                        MPI_COMM_WORLD),
            "MPI_Gatherv");
  if (rank != 0) return {};
  std::vector<double> global(global_size * size_t(width), 0.0);
  for (int q = 0; q < ranks; ++q) {
    const std::vector<std::int64_t>& id = (*ids)[size_t(q)];
    SS_REQUIRE(std::int64_t(id.size()) * width == counts[size_t(q)], "gather: rank " << q << " sent " << counts[size_t(q)]
                                                                                  << " values for " << id.size() << " entries");
    for (size_t k = 0; k < id.size(); ++k)
      for (int c = 0; c < width; ++c)
        global[size_t(id[k]) * size_t(width) + size_t(c)] = all[size_t(displs[size_t(q)]) + k * size_t(width) + size_t(c)];
  }
  return global;
}

std::vector<double> gather_by_id(const std::vector<std::int64_t>& ids, const std::vector<double>& values,
                                 size_t global_size, int width) {
  SS_REQUIRE(values.size() == ids.size() * size_t(width), "gather: " << values.size() << " values for " << ids.size() << " ids");
  const int rank = mpi::rank(), ranks = mpi::size();
  const int count = int(ids.size());
  std::vector<int> counts(static_cast<size_t>(ranks)), displs(static_cast<size_t>(ranks));
  mpi_check(MPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, MPI_COMM_WORLD), "MPI_Gather");
  std::vector<std::vector<std::int64_t>> by_rank;
  std::vector<std::int64_t> all;
  if (rank == 0) {
    std::int64_t total = 0;
    for (int q = 0; q < ranks; ++q) displs[size_t(q)] = int(total), total += counts[size_t(q)];
    all.resize(size_t(total));
  }
  mpi_check(MPI_Gatherv(ids.data(), count, MPI_INT64_T, all.data(), counts.data(), displs.data(), MPI_INT64_T, 0,
                        MPI_COMM_WORLD),
            "MPI_Gatherv");
  if (rank == 0)
    for (int q = 0; q < ranks; ++q)
      by_rank.emplace_back(all.begin() + displs[size_t(q)], all.begin() + displs[size_t(q)] + counts[size_t(q)]);
  return gather_to_root(values, rank == 0 ? &by_rank : nullptr, global_size, width);
}

std::vector<double> gather_in_order(const std::vector<std::int64_t>& ids, const std::vector<double>& values,
                                    const std::vector<std::int64_t>* order, int width) {
  const std::vector<double> by_id = gather_by_id(ids, values, order ? order->size() : 0, width);
  if (!order) return {};
  std::vector<double> out(by_id.size());
  for (size_t i = 0; i < order->size(); ++i)
    for (int c = 0; c < width; ++c) out[i * size_t(width) + size_t(c)] = by_id[size_t((*order)[i]) * size_t(width) + size_t(c)];
  return out;
}

std::vector<double> scatter_from_root(const std::vector<double>& global, const std::vector<std::vector<std::int64_t>>* ids) {
  constexpr int tag = 12;
  const int rank = mpi::rank(), ranks = mpi::size();
  const auto values_of = [&](int q) {
    std::vector<double> v;
    for (std::int64_t g : (*ids)[size_t(q)]) v.push_back(global[size_t(g)]);
    return v;
  };
  if (rank != 0) {
    std::vector<double> v;
    Unpacker(recv_bytes(0, tag, MPI_COMM_WORLD)).get(v);
    return v;
  }
  for (int q = 1; q < ranks; ++q) {
    Packer p;
    p.put(values_of(q));
    send_bytes(p.bytes(), q, tag, MPI_COMM_WORLD);
  }
  return values_of(0);
}

std::vector<double> scatter_by_id(const std::vector<double>& global, const std::vector<std::int64_t>& ids) {
  constexpr int tag = 13;
  const int rank = mpi::rank(), ranks = mpi::size();
  const auto values_of = [&](const std::vector<std::int64_t>& wanted) {
    std::vector<double> v(wanted.size(), 0.0);
    for (size_t k = 0; k < wanted.size(); ++k) {
      if (wanted[k] < 0) continue;
      SS_REQUIRE(size_t(wanted[k]) < global.size(), "scatter: id " << wanted[k] << " of " << global.size());
      v[k] = global[size_t(wanted[k])];
    }
    return v;
  };
  if (rank != 0) {
    Packer request;
    request.put(ids);
    send_bytes(request.bytes(), 0, tag, MPI_COMM_WORLD);
    std::vector<double> v;
    Unpacker(recv_bytes(0, tag, MPI_COMM_WORLD)).get(v);
    return v;
  }
  for (int q = 1; q < ranks; ++q) {
    std::vector<std::int64_t> wanted;
    Unpacker(recv_bytes(q, tag, MPI_COMM_WORLD)).get(wanted);
    Packer p;
    p.put(values_of(wanted));
    send_bytes(p.bytes(), q, tag, MPI_COMM_WORLD);
  }
  return values_of(ids);
}

std::string broadcast_string(const std::string& text) {
  std::int64_t size = std::int64_t(text.size());
  mpi_check(MPI_Bcast(&size, 1, MPI_INT64_T, 0, MPI_COMM_WORLD), "MPI_Bcast");
  std::string result = text;
  result.resize(size_t(size));
  if (size > 0) mpi_check(MPI_Bcast(result.data(), int(size), MPI_CHAR, 0, MPI_COMM_WORLD), "MPI_Bcast");
  return result;
}

}  // namespace ss
