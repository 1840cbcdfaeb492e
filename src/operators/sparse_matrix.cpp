#include "operators/sparse_matrix.hpp"

#include <algorithm>
#include <climits>
#include <new>
#include <utility>

#include "mesh/bucket_sort.hpp"
#include "util/error.hpp"

namespace ss {

namespace {

// The CSR of consecutive blocks of rows, each block's row lengths, columns and values in its own
// lists (freed as they are copied).
template <class Part>
SparseMatrix join_row_parts(std::int32_t rows, std::int32_t cols, std::vector<Part>& parts) {
  SparseMatrix c;
  c.rows = rows;
  c.cols = cols;
  c.offsets.assign(size_t(c.rows) + 1, 0);
  std::int64_t total = 0;
  for (const Part& part : parts) total += std::int64_t(part.values.size());
  SS_REQUIRE(total <= INT_MAX, "sparse matrix " << rows << "x" << cols << ": " << total << " entries exceed 32-bit offsets");
  c.columns.resize(size_t(total));
  c.values.resize(size_t(total));
  std::vector<std::int64_t> first(parts.size() + 1, 0);  // each block's first entry
  std::vector<std::int32_t> first_row(parts.size() + 1, 0);
  for (size_t p = 0; p < parts.size(); ++p) {
    first[p + 1] = first[p] + std::int64_t(parts[p].values.size());
    first_row[p + 1] = first_row[p] + std::int32_t(parts[p].lengths.size());
  }
#pragma omp parallel for schedule(dynamic, 1) if (rows > 50000)
  for (std::int64_t p = 0; p < std::int64_t(parts.size()); ++p) {
    Part& part = parts[size_t(p)];
    std::int64_t at = first[size_t(p)];
    std::int32_t i = first_row[size_t(p)];
    for (std::int32_t length : part.lengths) at += length, c.offsets[size_t(++i)] = std::int32_t(at);
    std::copy(part.columns.begin(), part.columns.end(), c.columns.begin() + first[size_t(p)]);
    std::copy(part.values.begin(), part.values.end(), c.values.begin() + first[size_t(p)]);
    part = Part{};
  }
  return c;
}

}  // namespace

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

SparseMatrix assemble_rows(std::int32_t rows, std::int32_t cols, const std::function<void(std::int32_t, RowEntries&)>& row) {
  // Blocks of rows in parallel, each into its own lists, joined in row order (as in multiply).
  constexpr std::int32_t kBlock = 4096;
  const std::int32_t blocks = (rows + kBlock - 1) / kBlock;
  struct Part {
    std::vector<std::int32_t> lengths, columns;
    std::vector<double> values;
    std::int32_t bad_row = -1, bad_column = 0;  // its first entry out of range
  };
  std::vector<Part> parts(static_cast<size_t>(blocks));
  bool out_of_memory = false;  // no exception may leave the parallel region: rethrown after it
#pragma omp parallel if (rows > 50000)
  {
    RowEntries entries;
#pragma omp for schedule(dynamic, 1)
    for (std::int32_t block = 0; block < blocks; ++block) detail::allocating([&] {
      Part& part = parts[size_t(block)];
      for (std::int32_t i = block * kBlock; i < std::min(rows, (block + 1) * kBlock); ++i) {
        entries.clear();
        row(i, entries);
        std::stable_sort(entries.begin(), entries.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
        std::int32_t length = 0;
        for (const auto& [column, value] : entries) {
          if (column < 0 || column >= cols) {
            if (part.bad_row < 0) part.bad_row = i, part.bad_column = column;
          } else if (length > 0 && part.columns.back() == column) {
            part.values.back() += value;
          } else {
            part.columns.push_back(column), part.values.push_back(value);
            ++length;
          }
        }
        part.lengths.push_back(length);
      }
    }, out_of_memory);
  }
  if (out_of_memory) throw std::bad_alloc();
  for (const Part& part : parts)
    SS_REQUIRE(part.bad_row < 0, "sparse matrix " << rows << "x" << cols << ": entry (" << part.bad_row << ", "
                                                  << part.bad_column << ") out of range");
  return join_row_parts(rows, cols, parts);
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
  bool out_of_memory = false;  // no exception may leave the parallel region: rethrown after it
#pragma omp parallel if (a.rows > 50000)
  {
    std::vector<double> accumulator;
    std::vector<std::int32_t> marker, row;
    detail::allocating([&] { accumulator.assign(size_t(b.cols), 0.0), marker.assign(size_t(b.cols), -1); }, out_of_memory);
#pragma omp for schedule(dynamic, 1)
    for (std::int32_t block = 0; block < blocks; ++block) detail::allocating([&] {
      if (accumulator.size() != size_t(b.cols)) return;  // this thread's accumulator could not be had
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
    }, out_of_memory);
  }
  if (out_of_memory) throw std::bad_alloc();
  return join_row_parts(a.rows, b.cols, parts);
}

SparseMatrix add(double alpha, const SparseMatrix& a, double beta, const SparseMatrix& b) {
  SS_REQUIRE(a.rows == b.rows && a.cols == b.cols,
             "sparse sum: " << a.rows << "x" << a.cols << " plus " << b.rows << "x" << b.cols);
  return assemble_rows(a.rows, a.cols, [&](std::int32_t i, RowEntries& row) {
    for (std::int32_t k = a.offsets[size_t(i)]; k < a.offsets[size_t(i) + 1]; ++k)
      row.emplace_back(a.columns[size_t(k)], alpha * a.values[size_t(k)]);
    for (std::int32_t k = b.offsets[size_t(i)]; k < b.offsets[size_t(i) + 1]; ++k)
      row.emplace_back(b.columns[size_t(k)], beta * b.values[size_t(k)]);
  });
}

}  // namespace ss
