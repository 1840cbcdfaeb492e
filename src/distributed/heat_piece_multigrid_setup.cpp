#include "distributed/heat_piece_multigrid_setup.hpp"

#include <algorithm>

#include "cpu/cpu_backend.hpp"
#include "operators/eigen_estimate.hpp"
#include "parallel/halo.hpp"
#include "parallel/mpi_env.hpp"
#include "util/error.hpp"

namespace ss {

using i32 = std::int32_t;
using i64 = std::int64_t;

PieceSmoother piece_smoother(const HeatOperatorData& data, const std::vector<char>& fixed, const RankPiece& piece,
                             double a, double s, int lanczos_steps, MPI_Comm comm) {
  const i32 n = data.num_nodes, owned = piece.part.owned_nodes;
  SS_REQUIRE(i64(fixed.size()) == n && i64(piece.part.node_global.size()) == n,
             "multigrid: a level's piece has " << piece.part.node_global.size() << " nodes, its operator " << n);
  PieceSmoother out;
  out.inverse_diagonal.assign(size_t(n), 1.0);
  std::vector<double> lanczos_diagonal(size_t(n), 0.0);  // ghosts from their owners (estimate_eigen_range)
  for (i32 i = 0; i < owned; ++i) {
    if (fixed[size_t(i)]) {
      lanczos_diagonal[size_t(i)] = 1.0;
      continue;
    }
    const double d = a * data.mass[size_t(i)] + s * data.diagonal[size_t(i)];
    SS_REQUIRE(d > 0, "multigrid: diagonal entry of node " << piece.part.node_global[size_t(i)] << " is " << d
                                                           << " (the system must be SPD)");
    out.inverse_diagonal[size_t(i)] = lanczos_diagonal[size_t(i)] = 1.0 / d;
  }
  // y = (a·M + s·K̃) x on owned rows, x with its ghosts: free rows a m_i x_i + s (K_ii x_i + Σ_{j free} K_ij x_j).
  const auto apply = [&](const std::vector<double>& x, std::vector<double>& y) {
    y.assign(size_t(n), 0.0);
#pragma omp parallel for schedule(static) if (owned > 50000)
    for (i32 i = 0; i < owned; ++i) {
      if (fixed[size_t(i)]) {
        y[size_t(i)] = x[size_t(i)];
        continue;
      }
      double sum = (a * data.mass[size_t(i)] + s * data.diagonal[size_t(i)]) * x[size_t(i)];
      for (i32 k = data.offsets[size_t(i)]; k < data.offsets[size_t(i) + 1]; ++k) {
        const i32 j = data.neighbors[size_t(k)];
        if (!fixed[size_t(j)]) sum += s * data.coefficients[size_t(k)] * x[size_t(j)];
      }
      y[size_t(i)] = sum;
    }
  };
  CpuBackend host;
  HaloExchange<CpuBackend> halo(host, piece.links, comm);
  LanczosSpace space;
  space.start.resize(size_t(n));
  for (i32 i = 0; i < n; ++i) space.start[size_t(i)] = lanczos_start_value(std::uint64_t(piece.part.node_global[size_t(i)]));
  space.update_ghosts = [&](std::vector<double>& v) { halo.update(v); };
  space.dot = [&](const std::vector<double>& x, const std::vector<double>& y) {
    double local = 0, sum = 0;
    for (i32 i = 0; i < owned; ++i) local += x[size_t(i)] * y[size_t(i)];
    mpi_check(MPI_Allreduce(&local, &sum, 1, MPI_DOUBLE, MPI_SUM, comm), "MPI_Allreduce");
    return sum;
  };
  out.lambda_max = estimate_eigen_range(apply, lanczos_diagonal, lanczos_steps, space).hi;
  return out;
}

SparseMatrix piece_prolongation(const LevelMap& map, const std::vector<char>& coarse_fixed,
                                const std::vector<char>& fine_fixed) {
  SS_REQUIRE(i64(coarse_fixed.size()) == map.coarse_nodes && i64(fine_fixed.size()) == map.fine_nodes &&
                 i64(map.parents.size()) == map.fine_nodes,
             "multigrid: a level map does not match its pieces");
  SparseMatrix p;
  p.rows = map.fine_nodes;
  p.cols = map.coarse_nodes;
  p.offsets.assign(size_t(p.rows) + 1, 0);
  for (i32 f = 0; f < p.rows; ++f) {
    auto [x, y] = map.parents[size_t(f)];
    if (!fine_fixed[size_t(f)]) {
      const bool vertex = x == y && x >= 0;
      if (x > y) std::swap(x, y);
      for (i32 c : vertex ? std::vector<i32>{x} : std::vector<i32>{x, y})
        if (c >= 0 && !coarse_fixed[size_t(c)]) p.columns.push_back(c), p.values.push_back(vertex ? 1.0 : 0.5);
    }
    p.offsets[size_t(f) + 1] = i32(p.values.size());
  }
  return p;
}

WholeBaseSystem::WholeBaseSystem(const HeatOperatorData& d, const std::vector<char>& fixed, const RankPiece& piece,
                                 MPI_Comm comm) {
  const MeshPartition& part = piece.part;
  const i32 owned = part.owned_nodes;
  // This rank's owned rows: (global id, fixed, mass, K_ii, entry count) and the entries (global column, K_ij).
  struct Row {
    i64 global;
    double mass, diagonal;
    i32 entries;
    char fixed;
  };
  struct Entry {
    i64 column;
    double coefficient;
  };
  std::vector<Row> rows;
  std::vector<Entry> entries;
  std::vector<i64> ids;
  for (i32 i = 0; i < owned; ++i) {
    rows.push_back({part.node_global[size_t(i)], d.mass[size_t(i)], d.diagonal[size_t(i)],
                    d.offsets[size_t(i) + 1] - d.offsets[size_t(i)], fixed[size_t(i)]});
    ids.push_back(part.node_global[size_t(i)]);
    for (i32 k = d.offsets[size_t(i)]; k < d.offsets[size_t(i) + 1]; ++k)
      entries.push_back({part.node_global[size_t(d.neighbors[size_t(k)])], d.coefficients[size_t(k)]});
  }
  const std::vector<Row> all_rows = all_gather(rows, comm);
  const std::vector<Entry> all_entries = all_gather(entries, comm);
  gather_.emplace(ids, comm);
  size_ = i32(all_rows.size());
  std::vector<i64> start(all_rows.size() + 1, 0);  // each gathered row's first entry
  for (size_t k = 0; k < all_rows.size(); ++k) start[k + 1] = start[k] + all_rows[k].entries;
  std::vector<i32> at(size_t(size_), -1);  // global id -> gathered row (WholeGather checked the ids)
  for (size_t k = 0; k < all_rows.size(); ++k) at[size_t(all_rows[k].global)] = i32(k);
  offsets_.assign(size_t(size_) + 1, 0);
  diagonal_.resize(size_t(size_)), mass_.resize(size_t(size_)), fixed_.resize(size_t(size_));
  for (i32 g = 0; g < size_; ++g) {
    const Row& r = all_rows[size_t(at[size_t(g)])];
    diagonal_[size_t(g)] = r.diagonal, mass_[size_t(g)] = r.mass, fixed_[size_t(g)] = r.fixed;
    for (i64 k = start[size_t(at[size_t(g)])]; k < start[size_t(at[size_t(g)]) + 1]; ++k) {
      columns_.push_back(i32(all_entries[size_t(k)].column));
      coefficients_.push_back(all_entries[size_t(k)].coefficient);
    }
    offsets_[size_t(g) + 1] = i32(columns_.size());
  }
}

SparseMatrix WholeBaseSystem::matrix(double a, double s) const {
  SparseMatrix m;
  m.rows = m.cols = size_;
  m.offsets.assign(size_t(size_) + 1, 0);
  for (i32 i = 0; i < size_; ++i) {
    // Row i ascending: the off-diagonal entries (ascending in the piece's CSR) with the diagonal put in.
    std::vector<std::pair<i32, double>> row;
    if (fixed_[size_t(i)]) {
      row.push_back({i, 1.0});
    } else {
      row.push_back({i, a * mass_[size_t(i)] + s * diagonal_[size_t(i)]});
      for (i32 k = offsets_[size_t(i)]; k < offsets_[size_t(i) + 1]; ++k)
        if (!fixed_[size_t(columns_[size_t(k)])]) row.push_back({columns_[size_t(k)], s * coefficients_[size_t(k)]});
    }
    std::sort(row.begin(), row.end());
    for (const auto& [c, v] : row) m.columns.push_back(c), m.values.push_back(v);
    m.offsets[size_t(i) + 1] = i32(m.values.size());
  }
  return m;
}

}  // namespace ss
