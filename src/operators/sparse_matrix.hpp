#pragma once
// Host-side sparse matrices (CSR, double): the multigrid levels and transfers, the flow viscous
// operator's factors; applied on a backend by GpuSparseMatrix / CpuSparseMatrix (sparse_kernels.hpp).
#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

namespace ss {

struct SparseMatrix {
  std::int32_t rows = 0, cols = 0;
  std::vector<std::int32_t> offsets{0};  // rows + 1 entries
  std::vector<std::int32_t> columns;     // ascending within a row
  std::vector<double> values;

  std::int64_t nonzeros() const { return std::int64_t(values.size()); }
  // y = A x (y resized to rows).
  void multiply(const std::vector<double>& x, std::vector<double>& y) const;
  std::vector<double> diagonal() const;  // 0 where a row has no diagonal entry
};

struct Triplet {
  std::int32_t row, col;
  double value;
};
// CSR from (row, col, value) entries, duplicates summed in their input order (element-by-element
// assembly): the same values for any thread count. In parallel.
SparseMatrix from_triplets(std::int32_t rows, std::int32_t cols, std::vector<Triplet> entries);

// CSR assembled row by row, in parallel and without a global list of entries: row(i, entries)
// appends row i's (column, value) pairs; each row is sorted by column (stably) and its duplicates
// summed in the order they were appended, explicit zeros kept. Rows appended in element order give
// from_triplets' matrix bit for bit, for any thread count. `row` runs on several threads at once
// and must not throw.
using RowEntries = std::vector<std::pair<std::int32_t, double>>;
SparseMatrix assemble_rows(std::int32_t rows, std::int32_t cols, const std::function<void(std::int32_t, RowEntries&)>& row);

SparseMatrix transpose(const SparseMatrix& a);
// The rows `rows` of a (in that order, repeats allowed), every column kept: row k of the result is
// row rows[k] of a (a halo's send rows: distributed/distributed_flow_operators.hpp).
SparseMatrix select_rows(const SparseMatrix& a, const std::vector<std::int32_t>& rows);
SparseMatrix multiply(const SparseMatrix& a, const SparseMatrix& b);  // a·b, exact zeros kept out
// α a + β b over the union of their entries (explicit zeros kept), each row's entries summed a's
// first (as assembling a, then b, element by element). In parallel.
SparseMatrix add(double alpha, const SparseMatrix& a, double beta, const SparseMatrix& b);

}  // namespace ss
