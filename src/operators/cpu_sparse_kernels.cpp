// The sparse kernels on the CPU reference (double, OpenMP): twins of shaders/mg_sparse_apply.glsl,
// mg_sparse_chebyshev.glsl and mg_chebyshev.glsl.
#include "operators/sparse_kernels.hpp"

#include "cpu/cpu_backend.hpp"
#include "util/error.hpp"

namespace ss {

CpuSparseMatrix::CpuSparseMatrix(CpuBackend& cpu, const SparseMatrix& m) : cpu_(cpu), m_(m), full_rows_(m.rows) {}

CpuSparseMatrix::CpuSparseMatrix(CpuBackend& cpu, const SparseMatrix& m, const std::vector<std::int32_t>& rows)
    : cpu_(cpu), m_(select_rows(m, rows)), row_map_(rows), full_rows_(m.rows) {}

void CpuSparseMatrix::apply(const Vector& x, Vector& y, const Vector* sub, const Vector* add) {
  const std::int32_t n = m_.rows;
  SS_REQUIRE(std::int64_t(x.size()) == m_.cols && (!sub || std::int64_t(sub->size()) == m_.cols) &&
                 (!add || std::int64_t(add->size()) == full_rows_),
             "sparse matrix " << n << "x" << m_.cols << ": vector sizes do not match (x " << x.size() << ")");
  // Write in place unless y is also an input (then through a temporary).
  const bool aliased = &y == &x || &y == sub || &y == add;
  Vector scratch;
  Vector& out = aliased ? scratch : y;
  out.resize(size_t(n));
#pragma omp parallel for schedule(static) if (n > kCpuParallelMin)
  for (std::int32_t i = 0; i < n; ++i) {
    double s = 0;
    for (std::int32_t k = m_.offsets[size_t(i)]; k < m_.offsets[size_t(i) + 1]; ++k) {
      const std::int32_t j = m_.columns[size_t(k)];
      s += m_.values[size_t(k)] * (sub ? x[size_t(j)] - (*sub)[size_t(j)] : x[size_t(j)]);
    }
    out[size_t(i)] = add ? (*add)[size_t(row_of(i))] + s : s;
  }
  if (aliased) y = std::move(scratch);
}

void CpuSparseMatrix::chebyshev_step(const Vector& b, const Vector& inverse_diagonal, double c_d, double c_r,
                                     Vector& x, Vector& d) {
  SS_REQUIRE(m_.rows == m_.cols, "sparse chebyshev step: matrix " << m_.rows << "x" << m_.cols << " is not square");
  SS_REQUIRE(row_map_.empty(), "sparse chebyshev step: a matrix of selected rows computes them with chebyshev_rows");
  apply(x, ax_);
  ss::chebyshev_step(cpu_, b, &ax_, inverse_diagonal, c_d, c_r, x, d);
}

void CpuSparseMatrix::chebyshev_rows(const Vector& b, const Vector& inverse_diagonal, double c_d, double c_r,
                                     const Vector& x, const Vector& d, Vector& x_out, Vector& d_out) {
  const std::int64_t n = full_rows_;
  SS_REQUIRE(n == m_.cols && std::int64_t(b.size()) == n && std::int64_t(x.size()) == n &&
                 std::int64_t(d.size()) == n && std::int64_t(inverse_diagonal.size()) == n,
             "sparse chebyshev step: matrix " << n << "x" << m_.cols << ", vectors " << b.size() << ", " << x.size());
  SS_REQUIRE(&x_out != &x && &x_out != &d && &d_out != &x && &d_out != &d,
             "sparse chebyshev step: the selected rows' outputs must not be its inputs");
  apply(x, ax_);  // A x at the selected rows
  x_out.resize(size_t(m_.rows));
  d_out.resize(size_t(m_.rows));
  for (std::int32_t k = 0; k < m_.rows; ++k) {  // chebyshev_step's update at row_of(k)
    const size_t i = size_t(row_of(k));
    d_out[size_t(k)] = c_d * d[i] + c_r * inverse_diagonal[i] * (b[i] - ax_[size_t(k)]);
    x_out[size_t(k)] = x[i] + d_out[size_t(k)];
  }
}

void chebyshev_step(CpuBackend&, const std::vector<double>& b, const std::vector<double>* ax,
                    const std::vector<double>& inverse_diagonal, double c_d, double c_r, std::vector<double>& x,
                    std::vector<double>& d) {
  const std::int64_t n = std::int64_t(b.size());
  SS_REQUIRE(std::int64_t(inverse_diagonal.size()) == n && (!ax || std::int64_t(ax->size()) == n) &&
                 (ax == nullptr || (std::int64_t(x.size()) == n && std::int64_t(d.size()) == n)),
             "chebyshev step: vector sizes do not match");
  if (!ax) {
    x.assign(size_t(n), 0.0);
    d.assign(size_t(n), 0.0);
  }
#pragma omp parallel for schedule(static) if (n > kCpuParallelMin)
  for (std::int64_t i = 0; i < n; ++i) {
    const double r = ax ? b[size_t(i)] - (*ax)[size_t(i)] : b[size_t(i)];
    const double dn = c_d * d[size_t(i)] + c_r * inverse_diagonal[size_t(i)] * r;
    d[size_t(i)] = dn;
    x[size_t(i)] += dn;
  }
}

}  // namespace ss
