// Host CSR assembly, products and sums (operators/sparse_matrix.hpp): from_triplets, multiply and add
// against a plain per-row map, on awkward sizes, with duplicates summed in input order and the same result
// for 1 and 2 threads.
#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "mesh/mesh_test_util.hpp"
#include "operators/sparse_matrix.hpp"
#include "util/error.hpp"

namespace ss {
namespace {

// Random entries: every row but the empty ones gets a few, with repeated columns; row 0 a long run
// (more than a short row's sort handles in registers), every 5th row none.
std::vector<Triplet> random_triplets(std::int32_t rows, std::int32_t cols, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<std::int32_t> col(0, cols - 1), count(1, 12);
  std::uniform_real_distribution<double> value(-1.0, 1.0);
  std::vector<Triplet> entries;
  for (std::int32_t i = 0; i < rows; ++i) {
    if (i % 5 == 4) continue;
    const int n = i == 0 ? 300 : count(rng);
    for (int k = 0; k < n; ++k) entries.push_back({i, k % 3 == 2 && k > 0 ? entries.back().col : col(rng), value(rng)});
  }
  std::shuffle(entries.begin(), entries.end(), rng);  // rows interleaved, as element assembly gives them
  return entries;
}

// The reference: per row a map column -> sum, added in input order.
SparseMatrix reference_csr(std::int32_t rows, std::int32_t cols, const std::vector<Triplet>& entries) {
  std::vector<std::map<std::int32_t, double>> row(static_cast<size_t>(rows));
  for (const Triplet& e : entries) row[size_t(e.row)][e.col] += e.value;
  SparseMatrix m;
  m.rows = rows, m.cols = cols;
  for (const auto& r : row) {
    for (const auto& [c, v] : r) m.columns.push_back(c), m.values.push_back(v);
    m.offsets.push_back(std::int32_t(m.columns.size()));
  }
  return m;
}

void expect_same(const SparseMatrix& got, const SparseMatrix& want) {
  EXPECT_EQ(got.rows, want.rows);
  EXPECT_EQ(got.cols, want.cols);
  EXPECT_EQ(got.offsets, want.offsets);
  EXPECT_EQ(got.columns, want.columns);
  EXPECT_EQ(got.values, want.values);
}

TEST(SparseMatrix, FromTripletsIsEquivalentToRef) {
  for (const std::int32_t rows : {1, 2, 7, 127, 129, 50001, 65537}) {
    const std::int32_t cols = rows == 1 ? 1 : rows + 3;
    const std::vector<Triplet> entries = random_triplets(rows, cols, unsigned(rows));
    const SparseMatrix want = reference_csr(rows, cols, entries);
    for (const int threads : {1, 2}) {
      const SparseMatrix got = test::with_threads(threads, [&] { return from_triplets(rows, cols, entries); });
      SCOPED_TRACE("rows " + std::to_string(rows) + ", threads " + std::to_string(threads));
      expect_same(got, want);  // the same sums in the same order: bit for bit
    }
  }
}

// The sparse product against a per-row map (the same sums in the same order), on awkward sizes,
// for 1 and 2 threads (above 50,000 rows the rows run in parallel blocks).
TEST(SparseMatrix, ProductIsEquivalentToRef) {
  for (const std::int32_t rows : {1, 7, 4097, 50001, 65537}) {
    const std::int32_t inner = rows + 3, cols = 2 * rows + 1;
    const SparseMatrix a = from_triplets(rows, inner, random_triplets(rows, inner, unsigned(rows)));
    const SparseMatrix b = from_triplets(inner, cols, random_triplets(inner, cols, unsigned(rows) + 1));
    SparseMatrix want;
    want.rows = rows, want.cols = cols;
    want.offsets.assign(size_t(rows) + 1, 0);
    for (std::int32_t i = 0; i < rows; ++i) {
      std::map<std::int32_t, double> row;
      for (std::int32_t k = a.offsets[size_t(i)]; k < a.offsets[size_t(i) + 1]; ++k)
        for (std::int32_t m = b.offsets[size_t(a.columns[size_t(k)])]; m < b.offsets[size_t(a.columns[size_t(k)]) + 1]; ++m)
          row[b.columns[size_t(m)]] += a.values[size_t(k)] * b.values[size_t(m)];
      for (const auto& [col, value] : row)
        if (value != 0.0) want.columns.push_back(col), want.values.push_back(value);
      want.offsets[size_t(i) + 1] = std::int32_t(want.values.size());
    }
    for (const int threads : {1, 2}) {
      const SparseMatrix got = test::with_threads(threads, [&] { return multiply(a, b); });
      SCOPED_TRACE("rows " + std::to_string(rows) + ", threads " + std::to_string(threads));
      expect_same(got, want);
    }
  }
}

// Row-by-row assembly: each row's entries appended in the triplets' order give from_triplets' matrix
// bit for bit (for 1 and 2 threads; above 50,000 rows blocks of rows run in parallel).
TEST(SparseMatrix, RowAssemblyIsEquivalentToRef) {
  for (const std::int32_t rows : {1, 2, 7, 4097, 50001, 65537}) {
    const std::int32_t cols = rows == 1 ? 1 : rows + 3;
    const std::vector<Triplet> entries = random_triplets(rows, cols, unsigned(rows) + 7);
    const SparseMatrix want = reference_csr(rows, cols, entries);
    std::vector<RowEntries> by_row(static_cast<size_t>(rows));
    for (const Triplet& e : entries) by_row[size_t(e.row)].emplace_back(e.col, e.value);
    for (const int threads : {1, 2}) {
      const SparseMatrix got = test::with_threads(threads, [&] {
        return assemble_rows(rows, cols, [&](std::int32_t i, RowEntries& row) {
          row.insert(row.end(), by_row[size_t(i)].begin(), by_row[size_t(i)].end());
        });
      });
      SCOPED_TRACE("rows " + std::to_string(rows) + ", threads " + std::to_string(threads));
      expect_same(got, want);
    }
  }
  EXPECT_THROW(assemble_rows(2, 2, [](std::int32_t i, RowEntries& row) { row.emplace_back(i + 1, 1.0); }), Error);
}

// α a + β b against a per-row map over the union of their entries (a's term added first, zeros
// kept), on awkward sizes, for 1 and 2 threads; mismatched shapes throw.
TEST(SparseMatrix, SumIsEquivalentToRef) {
  for (const std::int32_t rows : {1, 7, 4097, 50001, 65537}) {
    const std::int32_t cols = rows + 2;
    const SparseMatrix a = from_triplets(rows, cols, random_triplets(rows, cols, unsigned(rows) + 3));
    const SparseMatrix b = from_triplets(rows, cols, random_triplets(rows, cols, unsigned(rows) + 4));
    for (const double beta : {-0.75, 0.0}) {
      std::vector<Triplet> both;
      for (const auto& [m, scale] : {std::pair{&a, 2.5}, std::pair{&b, beta}})
        for (std::int32_t i = 0; i < rows; ++i)
          for (std::int32_t k = m->offsets[size_t(i)]; k < m->offsets[size_t(i) + 1]; ++k)
            both.push_back({i, m->columns[size_t(k)], scale * m->values[size_t(k)]});
      std::stable_sort(both.begin(), both.end(), [](const Triplet& x, const Triplet& y) { return x.row < y.row; });
      const SparseMatrix want = reference_csr(rows, cols, both);
      for (const int threads : {1, 2}) {
        const SparseMatrix got = test::with_threads(threads, [&] { return add(2.5, a, beta, b); });
        SCOPED_TRACE("rows " + std::to_string(rows) + ", beta " + std::to_string(beta) + ", threads " +
                     std::to_string(threads));
        expect_same(got, want);
      }
    }
  }
  EXPECT_THROW(add(1.0, from_triplets(2, 3, {}), 1.0, from_triplets(3, 2, {})), Error);
}

TEST(SparseMatrix, FromTripletsOfNothingHasEmptyRows) {
  const SparseMatrix m = from_triplets(3, 4, {});
  EXPECT_EQ(m.offsets, (std::vector<std::int32_t>{0, 0, 0, 0}));
  EXPECT_TRUE(m.columns.empty());
}

TEST(SparseMatrix, FromTripletsNamesAnEntryOutOfRange) {
  EXPECT_THROW(from_triplets(2, 2, {{0, 0, 1.0}, {1, 2, 1.0}}), Error);
  EXPECT_THROW(from_triplets(2, 2, {{-1, 0, 1.0}}), Error);
}

}  // namespace
}  // namespace ss
