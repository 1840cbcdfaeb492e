#include "distributed/pressure_piece_multigrid_setup.hpp"

#include <algorithm>
#include <array>
#include <tuple>

#include "cpu/cpu_backend.hpp"
#include "operators/eigen_estimate.hpp"
#include "parallel/halo.hpp"
#include "parallel/halo_pairing.hpp"
#include "parallel/mpi_env.hpp"
#include "util/error.hpp"

namespace ss {

using i32 = std::int32_t;
using i64 = std::int64_t;

namespace {

int rank_of(MPI_Comm comm) {
  int r = 0;
  mpi_check(MPI_Comm_rank(comm, &r), "MPI_Comm_rank");
  return r;
}

i64 sum_over_ranks(i64 x, MPI_Comm comm) {
  mpi_check(MPI_Allreduce(MPI_IN_PLACE, &x, 1, MPI_INT64_T, MPI_SUM, comm), "MPI_Allreduce");
  return x;
}

}  // namespace

std::vector<i32> CellLevel::owned_cells(int rank) const {
  std::vector<i32> cells;
  for (size_t i = 0; i < owner.size(); ++i)
    if (owner[i] == rank) cells.push_back(i32(i));
  return cells;
}

CellLevel finest_cell_level(const std::vector<i64>& global, const std::vector<char>& owned,
                            const std::vector<HaloLink>& links, SparseMatrix matrix, MPI_Comm comm) {
  const int me = rank_of(comm);
  const size_t n = global.size();
  SS_REQUIRE(owned.size() == n && size_t(matrix.rows) == n && size_t(matrix.cols) == n,
             "pressure multigrid: the piece has " << n << " cells, its matrix " << matrix.rows << " rows");
  CellLevel level;
  level.global = global;
  level.links = links;
  level.owner.assign(n, -1);
  for (size_t i = 0; i < n; ++i)
    if (owned[i]) level.owner[i] = me;
  for (const HaloLink& link : links)
    for (i32 i : link.recv) level.owner[size_t(i)] = link.rank;
  // Ghost rows are incomplete (their cells' far neighbours are not on this rank): dropped.
  SparseMatrix& m = matrix;
  SparseMatrix kept;
  kept.rows = m.rows, kept.cols = m.cols;
  kept.offsets.assign(n + 1, 0);
  for (size_t i = 0; i < n; ++i) {
    for (i32 k = m.offsets[i]; owned[i] && k < m.offsets[i + 1]; ++k) {
      SS_REQUIRE(level.owner[size_t(m.columns[size_t(k)])] >= 0,
                 "pressure multigrid: cell " << global[size_t(m.columns[size_t(k)])] << " next to owned cell " << global[i]
                                             << " has no owner on rank " << me);
      kept.columns.push_back(m.columns[size_t(k)]), kept.values.push_back(m.values[size_t(k)]);
    }
    kept.offsets[i + 1] = i32(kept.values.size());
  }
  level.matrix = std::move(kept);
  level.whole = sum_over_ranks(i64(std::count(owned.begin(), owned.end(), char(1))), comm);
  return level;
}

CellLevel coarsen_cells(const CellLevel& fine, std::vector<i32>& parent, MPI_Comm comm) {
  const int me = rank_of(comm);
  const size_t n = fine.global.size();
  const SparseMatrix& a = fine.matrix;
  // The coarse cells: parents of the owned fine cells (owned), then those of the ghosts the owned rows reach.
  std::vector<char> reached(n, 0);
  for (size_t i = 0; i < n; ++i)
    for (i32 k = a.offsets[i]; k < a.offsets[i + 1]; ++k) reached[size_t(a.columns[size_t(k)])] = 1;
  std::vector<i64> owned_parents;
  std::vector<std::pair<i32, i64>> ghost_parents;  // (owner, global)
  for (size_t i = 0; i < n; ++i) {
    if (fine.owner[i] == me) owned_parents.push_back(fine.global[i] / 8);
    else if (reached[i]) ghost_parents.push_back({fine.owner[i], fine.global[i] / 8});
  }
  std::sort(owned_parents.begin(), owned_parents.end());
  owned_parents.erase(std::unique(owned_parents.begin(), owned_parents.end()), owned_parents.end());
  std::sort(ghost_parents.begin(), ghost_parents.end());
  ghost_parents.erase(std::unique(ghost_parents.begin(), ghost_parents.end()), ghost_parents.end());

  CellLevel coarse;
  for (i64 g : owned_parents) coarse.global.push_back(g), coarse.owner.push_back(me);
  for (const auto& [owner, g] : ghost_parents) {
    SS_REQUIRE(owner != me && !std::binary_search(owned_parents.begin(), owned_parents.end(), g),
               "pressure multigrid: coarse cell " << g << " has children owned by two ranks");
    coarse.global.push_back(g), coarse.owner.push_back(owner);
  }
  const i32 nc = i32(coarse.global.size());
  std::vector<std::pair<i64, i32>> by_global(static_cast<size_t>(nc));  // (global, local), for the lookups
  for (i32 c = 0; c < nc; ++c) by_global[size_t(c)] = {coarse.global[size_t(c)], c};
  std::sort(by_global.begin(), by_global.end());
  parent.assign(n, -1);
  for (size_t i = 0; i < n; ++i) {
    if (fine.owner[i] != me && !reached[i]) continue;
    const auto it = std::lower_bound(by_global.begin(), by_global.end(), std::make_pair(fine.global[i] / 8, i32(-1)));
    SS_REQUIRE(it != by_global.end() && it->first == fine.global[i] / 8, "pressure multigrid: cell " << fine.global[i] << " lost its parent");
    parent[i] = it->second;
  }

  // A_C = Σ A_cn over C's children c and N's children n: each coarse row's contributions sorted by
  // (coarse column, fine row, fine column) global ids, then summed in that order.
  struct Term {
    i64 column, fine_row, fine_column;
    double value;
  };
  std::vector<std::vector<Term>> rows(owned_parents.size());
  for (size_t i = 0; i < n; ++i) {
    if (fine.owner[i] != me) continue;
    std::vector<Term>& row = rows[size_t(parent[i])];
    for (i32 k = a.offsets[i]; k < a.offsets[i + 1]; ++k) {
      const i32 j = a.columns[size_t(k)];
      row.push_back({coarse.global[size_t(parent[size_t(j)])], fine.global[i], fine.global[size_t(j)], a.values[size_t(k)]});
    }
  }
  SparseMatrix& m = coarse.matrix;
  m.rows = m.cols = nc;
  m.offsets.assign(size_t(nc) + 1, 0);
  for (size_t r = 0; r < rows.size(); ++r) {
    std::vector<Term>& row = rows[r];
    std::sort(row.begin(), row.end(), [](const Term& x, const Term& y) {
      return std::tie(x.column, x.fine_row, x.fine_column) < std::tie(y.column, y.fine_row, y.fine_column);
    });
    std::vector<std::pair<i32, double>> entries;  // (local column, sum), ascending local column
    for (size_t k = 0; k < row.size();) {
      double sum = 0;
      size_t e = k;
      for (; e < row.size() && row[e].column == row[k].column; ++e) sum += row[e].value;
      const auto it = std::lower_bound(by_global.begin(), by_global.end(), std::make_pair(row[k].column, i32(-1)));
      entries.push_back({it->second, sum});
      k = e;
    }
    std::sort(entries.begin(), entries.end());
    for (const auto& [c, v] : entries) m.columns.push_back(c), m.values.push_back(v);
    m.offsets[r + 1] = i32(m.values.size());
  }
  for (size_t r = rows.size(); r < size_t(nc); ++r) m.offsets[r + 1] = m.offsets[r];

  std::vector<EntityKey> keys(static_cast<size_t>(nc));
  std::vector<char> wanted(static_cast<size_t>(nc), 0);
  for (i32 c = 0; c < nc; ++c) {
    keys[size_t(c)] = {coarse.global[size_t(c)], -1, -1};
    wanted[size_t(c)] = coarse.owner[size_t(c)] != me;
  }
  coarse.links = pair_halo_links(keys, coarse.owner, wanted, comm);
  coarse.whole = sum_over_ranks(i64(owned_parents.size()), comm);
  return coarse;
}

std::vector<double> cell_inverse_diagonal(const CellLevel& level, int rank) {
  const SparseMatrix& m = level.matrix;
  std::vector<double> inverse(level.global.size(), 0.0);
  for (size_t i = 0; i < inverse.size(); ++i) {
    if (level.owner[i] != rank) continue;
    double d = 0;
    for (i32 k = m.offsets[i]; k < m.offsets[i + 1]; ++k)
      if (size_t(m.columns[size_t(k)]) == i) d = m.values[size_t(k)];
    SS_REQUIRE(d > 0, "pressure multigrid: diagonal entry of cell " << level.global[i] << " is " << d
                                                                      << " (the pressure operator must be positive)");
    inverse[i] = 1.0 / d;
  }
  return inverse;
}

double cell_lambda_max(const CellLevel& level, const std::vector<double>& inverse_diagonal, int steps, MPI_Comm comm) {
  const int me = rank_of(comm);
  const SparseMatrix& m = level.matrix;
  const std::vector<i32> owned = level.owned_cells(me);
  const auto apply = [&](const std::vector<double>& x, std::vector<double>& y) {
    y.assign(x.size(), 0.0);
#pragma omp parallel for schedule(static) if (owned.size() > 50000)
    for (size_t k = 0; k < owned.size(); ++k) {
      const size_t i = size_t(owned[k]);
      double sum = 0;
      for (i32 e = m.offsets[i]; e < m.offsets[i + 1]; ++e) sum += m.values[size_t(e)] * x[size_t(m.columns[size_t(e)])];
      y[i] = sum;
    }
  };
  CpuBackend host;
  HaloExchange<CpuBackend> halo(host, level.links, comm);
  LanczosSpace space;
  space.start.resize(level.global.size());
  for (size_t i = 0; i < level.global.size(); ++i) space.start[i] = lanczos_start_value(std::uint64_t(level.global[i]));
  space.update_ghosts = [&](std::vector<double>& v) { halo.update(v); };
  space.dot = [&](const std::vector<double>& x, const std::vector<double>& y) {
    double local = 0, sum = 0;
    for (i32 i : owned) local += x[size_t(i)] * y[size_t(i)];
    mpi_check(MPI_Allreduce(&local, &sum, 1, MPI_DOUBLE, MPI_SUM, comm), "MPI_Allreduce");
    return sum;
  };
  return estimate_eigen_range(apply, inverse_diagonal, steps, space).hi;
}

}  // namespace ss
