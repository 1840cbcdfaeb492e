#include "operators/block_jacobi.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <utility>

#include "util/error.hpp"

namespace ss {

namespace {

// max(|A_ij|, |A_ji|) for the entry e = (i, j): blocks then do not depend on which of the two rows
// is visited first (|A_ij| alone where row j has no column i).
double coupling_strength(const SparseMatrix& a, std::int32_t i, std::int32_t e) {
  const std::int32_t j = a.columns[size_t(e)];
  const auto first = a.columns.begin() + a.offsets[size_t(j)], last = a.columns.begin() + a.offsets[size_t(j) + 1];
  const auto it = std::lower_bound(first, last, i);
  const double mirror = it != last && *it == i ? std::fabs(a.values[size_t(it - a.columns.begin())]) : 0.0;
  return std::max(std::fabs(a.values[size_t(e)]), mirror);
}

}  // namespace

std::vector<std::int32_t> strong_coupling_blocks(const SparseMatrix& a, int size) {
  SS_REQUIRE(a.rows == a.cols, "block Jacobi: the matrix is " << a.rows << " × " << a.cols << ", not square");
  SS_REQUIRE(size >= 1, "block Jacobi: block size " << size << " (at least 1)");
  const std::int32_t n = a.rows;
  std::vector<std::int32_t> block(size_t(n), -1);
  std::vector<std::pair<double, std::int32_t>> neighbours;
  std::deque<std::int32_t> queue;
  std::int32_t blocks = 0;
  for (std::int32_t start = 0; start < n; ++start) {
    if (block[size_t(start)] >= 0) continue;
    block[size_t(start)] = blocks;
    int count = 1;
    queue.assign(1, start);
    while (!queue.empty() && count < size) {
      const std::int32_t i = queue.front();
      queue.pop_front();
      neighbours.clear();
      for (std::int32_t e = a.offsets[size_t(i)]; e < a.offsets[size_t(i) + 1]; ++e) {
        const std::int32_t j = a.columns[size_t(e)];
        if (block[size_t(j)] < 0) neighbours.push_back({coupling_strength(a, i, e), j});
      }
      // strongest first; ties by the lower row
      std::sort(neighbours.begin(), neighbours.end(),
                [](const auto& x, const auto& y) { return x.first != y.first ? x.first > y.first : x.second < y.second; });
      for (const auto& [strength, j] : neighbours) {
        if (count == size || strength == 0.0) break;  // full, or no coupling left
        block[size_t(j)] = blocks;
        ++count;
        queue.push_back(j);
      }
    }
    ++blocks;
  }
  return block;
}

namespace {

// The inverse of the dense n × n matrix `m` (row-major) in place: Gauss–Jordan with partial pivoting.
// False when a pivot is zero (singular to working precision against the column's largest entry).
bool invert_in_place(std::vector<double>& m, int n) {
  std::vector<double> inv(size_t(n) * size_t(n), 0.0);
  for (int i = 0; i < n; ++i) inv[size_t(i * n + i)] = 1.0;
  double largest = 0;
  for (double v : m) largest = std::max(largest, std::fabs(v));
  for (int col = 0; col < n; ++col) {
    int pivot = col;
    for (int r = col + 1; r < n; ++r)
      if (std::fabs(m[size_t(r * n + col)]) > std::fabs(m[size_t(pivot * n + col)])) pivot = r;
    const double p = m[size_t(pivot * n + col)];
    if (!(std::fabs(p) > 1e-14 * largest)) return false;
    if (pivot != col)
      for (int k = 0; k < n; ++k) {
        std::swap(m[size_t(pivot * n + k)], m[size_t(col * n + k)]);
        std::swap(inv[size_t(pivot * n + k)], inv[size_t(col * n + k)]);
      }
    for (int k = 0; k < n; ++k) m[size_t(col * n + k)] /= p, inv[size_t(col * n + k)] /= p;
    for (int r = 0; r < n; ++r) {
      const double factor = m[size_t(r * n + col)];
      if (r == col || factor == 0.0) continue;
      for (int k = 0; k < n; ++k) {
        m[size_t(r * n + k)] -= factor * m[size_t(col * n + k)];
        inv[size_t(r * n + k)] -= factor * inv[size_t(col * n + k)];
      }
    }
  }
  m = std::move(inv);
  return true;
}

}  // namespace

SparseMatrix block_jacobi_inverse(const SparseMatrix& a, const std::vector<std::int32_t>& block_of_row) {
  const std::int32_t n = a.rows;
  SS_REQUIRE(a.rows == a.cols && std::int32_t(block_of_row.size()) == n,
             "block Jacobi: " << block_of_row.size() << " block numbers for a " << a.rows << " × " << a.cols << " matrix");
  // The rows of each block, ascending (a CSR of blocks).
  std::int32_t blocks = 0;
  for (std::int32_t b : block_of_row) {
    SS_REQUIRE(b >= 0, "block Jacobi: a row without a block");
    blocks = std::max(blocks, b + 1);
  }
  std::vector<std::int32_t> first(size_t(blocks) + 1, 0), rows(static_cast<size_t>(n)), place(static_cast<size_t>(n));
  for (std::int32_t b : block_of_row) ++first[size_t(b) + 1];
  for (std::int32_t b = 0; b < blocks; ++b) first[size_t(b) + 1] += first[size_t(b)];
  {
    std::vector<std::int32_t> next(first.begin(), first.end() - 1);
    for (std::int32_t i = 0; i < n; ++i) {
      const std::int32_t b = block_of_row[size_t(i)];
      place[size_t(i)] = next[size_t(b)] - first[size_t(b)];
      rows[size_t(next[size_t(b)]++)] = i;
    }
  }
  // Row i of the inverse holds the columns of i's block, ascending: its offsets follow from the sizes.
  SparseMatrix inv;
  inv.rows = inv.cols = n;
  inv.offsets.assign(size_t(n) + 1, 0);
  for (std::int32_t i = 0; i < n; ++i) {
    const std::int32_t b = block_of_row[size_t(i)];
    inv.offsets[size_t(i) + 1] = inv.offsets[size_t(i)] + (first[size_t(b) + 1] - first[size_t(b)]);
  }
  inv.columns.resize(size_t(inv.offsets.back()));
  inv.values.resize(size_t(inv.offsets.back()));
  std::int32_t singular = -1;
#pragma omp parallel for schedule(dynamic, 256) if (n > 50000)
  for (std::int32_t b = 0; b < blocks; ++b) {
    const std::int32_t begin = first[size_t(b)], size = first[size_t(b) + 1] - begin;
    std::vector<double> dense(size_t(size) * size_t(size), 0.0);
    for (std::int32_t r = 0; r < size; ++r) {
      const std::int32_t i = rows[size_t(begin + r)];
      for (std::int32_t e = a.offsets[size_t(i)]; e < a.offsets[size_t(i) + 1]; ++e) {
        const std::int32_t j = a.columns[size_t(e)];
        if (block_of_row[size_t(j)] == b) dense[size_t(r * size + place[size_t(j)])] = a.values[size_t(e)];
      }
    }
    if (!invert_in_place(dense, size)) {
#pragma omp critical
      singular = std::max(singular, rows[size_t(begin)]);
      continue;
    }
    for (std::int32_t r = 0; r < size; ++r) {
      const size_t out = size_t(inv.offsets[size_t(rows[size_t(begin + r)])]);
      for (std::int32_t k = 0; k < size; ++k) {
        inv.columns[out + size_t(k)] = rows[size_t(begin + k)];
        inv.values[out + size_t(k)] = dense[size_t(r * size + k)];
      }
    }
  }
  SS_REQUIRE(singular < 0, "block Jacobi: the block of row " << singular << " is singular");
  return inv;
}

}  // namespace ss
