#include "operators/sparse_matrix.hpp"

#include <algorithm>
#include <climits>
#include <utility>

#include "util/error.hpp"

namespace ss {

void SparseMatrix::multiply(const std::vector<double>& x, std::vector<double>& y) const {
  SS_REQUIRE(std::int64_t(x.size()) == cols, "sparse matrix: x has " << x.size() << " values, expected " << cols);
  y.assign(size_t(rows), 0.0);
#pragma omp parallel for schedule(static) if (rows > 50000)
  for (std::int32_t i = 0; i < rows; ++i) {
    double s = 0;
    for (std::int32_t k = offsets[size_t(i)]; k < offsets[size_t(i) + 1]; ++k) s += values[size_t(k)] * x[size_t(columns[size_t(k)])];
    y[size_t(i)] = s;
  }
}

std::vector<double> SparseMatrix::diagonal() const {
  std::vector<double> d(size_t(std::min(rows, cols)), 0.0);
  for (std::int32_t i = 0; i < std::int32_t(d.size()); ++i)
    for (std::int32_t k = offsets[size_t(i)]; k < offsets[size_t(i) + 1]; ++k)
      if (columns[size_t(k)] == i) d[size_t(i)] += values[size_t(k)];
  return d;
}

SparseMatrix from_triplets(std::int32_t rows, std::int32_t cols, std::vector<Triplet> entries) {
  // 1. Bucket the entries by row, each row's in input order (a counting sort: stable, serial).
  std::vector<std::int64_t> start(size_t(rows) + 1, 0);
  for (const Triplet& e : entries) {
    SS_REQUIRE(e.row >= 0 && e.row < rows && e.col >= 0 && e.col < cols,
               "sparse matrix " << rows << "x" << cols << ": entry (" << e.row << ", " << e.col << ") out of range");
    ++start[size_t(e.row) + 1];
  }
  for (size_t i = 0; i < size_t(rows); ++i) start[i + 1] += start[i];
  std::vector<std::pair<std::int32_t, double>> bucket(entries.size());  // (column, value)
  {
    std::vector<std::int64_t> fill(start.begin(), start.end() - 1);
    for (const Triplet& e : entries) bucket[size_t(fill[size_t(e.row)]++)] = {e.col, e.value};
    std::vector<Triplet>().swap(entries);
  }
  // 2. Each row by column (stable: duplicates are summed in input order, so the sums do not depend
  //    on the sort or the thread count), duplicates merged in place; its length.
  std::vector<std::int64_t> length(size_t(rows), 0);
#pragma omp parallel for schedule(dynamic, 4096) if (rows > 50000)
  for (std::int32_t i = 0; i < rows; ++i) {
    const auto first = bucket.begin() + start[size_t(i)], last = bucket.begin() + start[size_t(i) + 1];
    if (last - first <= 64) {  // insertion sort: stable, and no allocation for the usual short row
      for (auto it = first + (first != last); it < last; ++it)
        for (auto j = it; j != first && (j - 1)->first > j->first; --j) std::iter_swap(j - 1, j);
    } else {
      std::stable_sort(first, last, [](const auto& x, const auto& y) { return x.first < y.first; });
    }
    auto out = first;
    for (auto it = first; it != last; ++it) {
      if (out != first && (out - 1)->first == it->first) (out - 1)->second += it->second;
      else *out++ = *it;
    }
    length[size_t(i)] = out - first;
  }
  // 3. The CSR.
  SparseMatrix m;
  m.rows = rows, m.cols = cols;
  m.offsets.assign(size_t(rows) + 1, 0);
  std::int64_t nonzeros = 0;
  for (std::int32_t i = 0; i < rows; ++i) {
    nonzeros += length[size_t(i)];
    SS_REQUIRE(nonzeros <= INT32_MAX, "sparse matrix " << rows << "x" << cols << ": more than 2^31 nonzeros");
    m.offsets[size_t(i) + 1] = std::int32_t(nonzeros);
  }
  m.columns.resize(size_t(nonzeros));
  m.values.resize(size_t(nonzeros));
#pragma omp parallel for schedule(static) if (rows > 50000)
  for (std::int32_t i = 0; i < rows; ++i)
    for (std::int32_t k = 0; k < std::int32_t(length[size_t(i)]); ++k) {
      const auto& e = bucket[size_t(start[size_t(i)] + k)];
      m.columns[size_t(m.offsets[size_t(i)] + k)] = e.first;
      m.values[size_t(m.offsets[size_t(i)] + k)] = e.second;
    }
  return m;
}

SparseMatrix select_rows(const SparseMatrix& a, const std::vector<std::int32_t>& rows) {
  SparseMatrix s;
  s.rows = std::int32_t(rows.size());
  s.cols = a.cols;
  for (const std::int32_t r : rows) {
    SS_REQUIRE(r >= 0 && r < a.rows, "select_rows: row " << r << " of a matrix with " << a.rows << " rows");
    const auto begin = size_t(a.offsets[size_t(r)]), end = size_t(a.offsets[size_t(r) + 1]);
    s.columns.insert(s.columns.end(), a.columns.begin() + std::ptrdiff_t(begin), a.columns.begin() + std::ptrdiff_t(end));
    s.values.insert(s.values.end(), a.values.begin() + std::ptrdiff_t(begin), a.values.begin() + std::ptrdiff_t(end));
    s.offsets.push_back(std::int32_t(s.values.size()));
  }
  return s;
}

SparseMatrix transpose(const SparseMatrix& a) {
  SparseMatrix t;
  t.rows = a.cols;
  t.cols = a.rows;
  t.offsets.assign(size_t(t.rows) + 1, 0);
  for (std::int32_t c : a.columns) ++t.offsets[size_t(c) + 1];
  for (std::int32_t i = 0; i < t.rows; ++i) t.offsets[size_t(i) + 1] += t.offsets[size_t(i)];
  t.columns.resize(a.columns.size());
  t.values.resize(a.values.size());
  std::vector<std::int32_t> fill(t.offsets.begin(), t.offsets.end() - 1);
  for (std::int32_t i = 0; i < a.rows; ++i)  // rows in order: columns of t come out ascending
    for (std::int32_t k = a.offsets[size_t(i)]; k < a.offsets[size_t(i) + 1]; ++k) {
      const std::int32_t at = fill[size_t(a.columns[size_t(k)])]++;
      t.columns[size_t(at)] = i;
      t.values[size_t(at)] = a.values[size_t(k)];
    }
  return t;
}

// Gustavson's row-by-row product. Blocks of rows run in parallel, each into its own lists with its
// own accumulator, and are joined in row order: every row is summed in the same order as serially,
// so the result does not depend on the thread count.
SparseMatrix multiply(const SparseMatrix& a, const SparseMatrix& b) {
  SS_REQUIRE(a.cols == b.rows, "sparse product: " << a.rows << "x" << a.cols << " times " << b.rows << "x" << b.cols);
  constexpr std::int32_t kBlock = 4096;
  const std::int32_t blocks = (a.rows + kBlock - 1) / kBlock;
  struct Part {
    std::vector<std::int32_t> lengths, columns;
    std::vector<double> values;
  };
  std::vector<Part> parts(static_cast<size_t>(blocks));
#pragma omp parallel if (a.rows > 50000)
  {
    std::vector<double> accumulator(size_t(b.cols), 0.0);
    std::vector<std::int32_t> marker(size_t(b.cols), -1), row;
#pragma omp for schedule(dynamic, 1)
    for (std::int32_t block = 0; block < blocks; ++block) {
      Part& part = parts[size_t(block)];
      for (std::int32_t i = block * kBlock; i < std::min(a.rows, (block + 1) * kBlock); ++i) {
        row.clear();
        for (std::int32_t k = a.offsets[size_t(i)]; k < a.offsets[size_t(i) + 1]; ++k) {
          const std::int32_t j = a.columns[size_t(k)];
          const double v = a.values[size_t(k)];
          for (std::int32_t m = b.offsets[size_t(j)]; m < b.offsets[size_t(j) + 1]; ++m) {
            const std::int32_t col = b.columns[size_t(m)];
            if (marker[size_t(col)] != i) {
              marker[size_t(col)] = i;
              accumulator[size_t(col)] = 0.0;
              row.push_back(col);
            }
            accumulator[size_t(col)] += v * b.values[size_t(m)];
          }
        }
        std::sort(row.begin(), row.end());
        std::int32_t length = 0;
        for (std::int32_t col : row) {
          if (accumulator[size_t(col)] == 0.0) continue;
          part.columns.push_back(col);
          part.values.push_back(accumulator[size_t(col)]);
          ++length;
        }
        part.lengths.push_back(length);
      }
    }
  }
  SparseMatrix c;
  c.rows = a.rows;
  c.cols = b.cols;
  c.offsets.assign(size_t(c.rows) + 1, 0);
  std::int64_t total = 0;
  for (const Part& part : parts) total += std::int64_t(part.values.size());
  SS_REQUIRE(total <= INT_MAX, "sparse product: " << total << " entries exceed 32-bit offsets");
  c.columns.reserve(size_t(total));
  c.values.reserve(size_t(total));
  std::int32_t i = 0;
  for (Part& part : parts) {
    for (std::int32_t length : part.lengths) c.offsets[size_t(i) + 1] = c.offsets[size_t(i)] + length, ++i;
    c.columns.insert(c.columns.end(), part.columns.begin(), part.columns.end());
    c.values.insert(c.values.end(), part.values.begin(), part.values.end());
    part = Part{};
  }
  return c;
}

}  // namespace ss
