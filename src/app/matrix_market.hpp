#pragma once
// Matrix Market output of an assembled linear system, so that other solvers (PETSc, CuPy; see
// tools/cg_petsc.py, tools/cg_cupy.py) solve exactly the system streamsolve solves.
//
//   matrix:  "%%MatrixMarket matrix coordinate real symmetric", 1-based, the lower triangle only
//            (row >= column; the upper triangle is implied), rows ascending, columns ascending
//            within a row, the diagonal last in each row.
//   vector:  "%%MatrixMarket matrix array real general", n rows and 1 column.
//
// Values are written in the shortest decimal form that reads back to the same double
// (std::to_chars), so the file carries the double-precision system exactly. Files are written
// atomically (src/util/atomic_file.hpp).
#include <cstdint>
#include <string>
#include <vector>

namespace ss {

// A symmetric matrix by its lower triangle in CSR form: row i holds columns[offsets[i] ..
// offsets[i+1]) (all <= i, ascending) and values alike.
struct LowerCsr {
  std::int64_t rows = 0;
  std::vector<std::int64_t> offsets;
  std::vector<std::int32_t> columns;
  std::vector<double> values;

  // y = A x with A = L + Lᵀ − diag(L) (the full symmetric matrix), in double.
  std::vector<double> multiply(const std::vector<double>& x) const;
};

// `comments` become "%" lines after the header (one per element; no newlines inside).
void write_matrix_market(const std::string& path, const LowerCsr& matrix, const std::vector<std::string>& comments);
void write_matrix_market_vector(const std::string& path, const std::vector<double>& values,
                                const std::vector<std::string>& comments);

}  // namespace ss
