#pragma once
// Sparse kernels, GPU (shaders/mg_*.glsl) and CPU reference (double) twins, used by the multigrid
// V-cycle and the flow viscous operator:
//   sparse matrix apply      y = add + M (x − sub)
//                            (GPU storage: sliced ELLPACK, see GpuSparseMatrix; CPU: the CSR itself)
//   chebyshev_step           r = b − Ax, d = c_d d + c_r D⁻¹ r, x = x + d   (one pass, two outputs;
//                            the matrix's own chebyshev_step forms Ax in the same pass)
// A matrix of selected rows of a larger one (the rows a halo sends, computed ahead of the rest so
// the exchange overlaps the full pass) reads the per-row inputs at the rows' own positions.
#include <cstdint>
#include <optional>
#include <vector>

#include "cpu/cpu_backend.hpp"
#include "kernels/gpu_backend.hpp"
#include "operators/sparse_matrix.hpp"

namespace ss {

// Sliced ELLPACK: the rows in slices of kSliceRows; a slice stores its rows' entries column by
// column (entry k of row s·S + r at slice_start[s] + k·S + r), each row padded to the slice's
// longest with weight 0 on the row's last column (column 0 for an empty row), so a padded entry adds
// an exact 0 for finite x. Neighbouring rows' k-th entries are neighbouring elements: the gather
// reads its tables in consecutive texels, where CSR has every row walk its own stretch (measured on
// the curl–curl edge mass in `bench operators`, docs/performance.md, *Mesh operators*).
class GpuSparseMatrix {
public:
  using Vector = GpuBackend::Vector;
  static constexpr std::int32_t kSliceRows = 32;  // a multiple of 4 (RGBA: a texel's four rows share a slice)
  GpuSparseMatrix(GpuBackend& gpu, const SparseMatrix& m);
  // The rows `rows` of m only (select_rows; a halo's send rows): rows() is rows.size(), and the
  // per-row inputs (apply's `add`, chebyshev_rows' b, D⁻¹, x, d) keep m's length and are read at
  // row rows[k] for output k.
  GpuSparseMatrix(GpuBackend& gpu, const SparseMatrix& m, const std::vector<std::int32_t>& rows);
  std::int32_t rows() const { return rows_; }
  std::int32_t cols() const { return cols_; }
  std::int64_t stored_entries() const { return stored_entries_; }  // nonzeros plus slice padding
  // y = add + M (x − sub); sub and add optional; y may alias add.
  void apply(const Vector& x, Vector& y, const Vector* sub = nullptr, const Vector* add = nullptr);
  // The free chebyshev_step with Ax = M x formed in the same pass (M square).
  void chebyshev_step(const Vector& b, const Vector& inverse_diagonal, double c_d, double c_r, Vector& x, Vector& d);
  // The same step's new x and d at the selected rows only (a matrix of selected rows of a square
  // one): x_out, d_out get rows() values; b, inverse_diagonal, x, d are read, not written.
  void chebyshev_rows(const Vector& b, const Vector& inverse_diagonal, double c_d, double c_r, const Vector& x,
                      const Vector& d, Vector& x_out, Vector& d_out);

private:
  void upload_tables(const SparseMatrix& m);
  std::vector<KernelInput> table_inputs() const;
  std::vector<KernelUniform> table_uniforms() const;
  GpuBackend& gpu_;
  std::int32_t rows_ = 0, cols_ = 0;
  std::int32_t full_rows_ = 0;  // rows of the matrix the rows were selected from (= rows_ without a map)
  std::int64_t stored_entries_ = 0;
  IndexField slice_start_, columns_;
  std::optional<IndexField> row_map_;
  Field weights_;
};

class CpuSparseMatrix {
public:
  using Vector = CpuBackend::Vector;
  CpuSparseMatrix(CpuBackend& cpu, const SparseMatrix& m);
  CpuSparseMatrix(CpuBackend& cpu, const SparseMatrix& m, const std::vector<std::int32_t>& rows);  // as GpuSparseMatrix's
  std::int32_t rows() const { return m_.rows; }
  std::int32_t cols() const { return m_.cols; }
  void apply(const Vector& x, Vector& y, const Vector* sub = nullptr, const Vector* add = nullptr);
  void chebyshev_step(const Vector& b, const Vector& inverse_diagonal, double c_d, double c_r, Vector& x, Vector& d);
  void chebyshev_rows(const Vector& b, const Vector& inverse_diagonal, double c_d, double c_r, const Vector& x,
                      const Vector& d, Vector& x_out, Vector& d_out);

private:
  std::int32_t row_of(std::int32_t k) const { return row_map_.empty() ? k : row_map_[size_t(k)]; }
  CpuBackend& cpu_;
  SparseMatrix m_;
  std::vector<std::int32_t> row_map_;  // empty: every row
  std::int32_t full_rows_ = 0;
  Vector ax_;  // scratch: A x of chebyshev_step
};

// The coefficients of Chebyshev steps k = 0 .. degree − 1 on [θ − δ, θ + δ] (d = c_d d + c_r D⁻¹ r):
// σ = θ/δ, ρ₀ = 1/σ; step 0: c_d = 0, c_r = 1/θ; step k: ρ_k = 1/(2σ − ρ_{k−1}), c_d = ρ_k ρ_{k−1}, c_r = 2ρ_k/δ.
struct ChebyshevCoefficients {
  double c_d, c_r;
};
inline std::vector<ChebyshevCoefficients> chebyshev_coefficients(double theta, double delta, int degree) {
  std::vector<ChebyshevCoefficients> steps;
  const double sigma = theta / delta;
  double rho = 1.0 / sigma;
  for (int k = 0; k < degree; ++k) {
    if (k == 0) {
      steps.push_back({0.0, 1.0 / theta});
      continue;
    }
    const double rho_next = 1.0 / (2.0 * sigma - rho);
    steps.push_back({rho_next * rho, 2.0 * rho_next / delta});
    rho = rho_next;
  }
  return steps;
}

// ax == nullptr: start from x = 0, d = 0 (r = b).
void chebyshev_step(GpuBackend& gpu, const Field& b, const Field* ax, const Field& inverse_diagonal, double c_d,
                    double c_r, Field& x, Field& d);
void chebyshev_step(CpuBackend& cpu, const std::vector<double>& b, const std::vector<double>* ax,
                    const std::vector<double>& inverse_diagonal, double c_d, double c_r, std::vector<double>& x,
                    std::vector<double>& d);

// The sparse matrix type of a backend.
template <class Backend> struct SparseMatrixOn;
template <> struct SparseMatrixOn<GpuBackend> { using type = GpuSparseMatrix; };
template <> struct SparseMatrixOn<CpuBackend> { using type = CpuSparseMatrix; };

// y = A x + c B u (A, B: sparse matrices with the same rows; e: scratch of their length, left
// holding B u). Over MPI ranks one overload (distributed_flow_operators.hpp) brings y's ghosts in
// one round trip where two applies would make two.
template <class Backend, class Sparse>
void sum_of_products(Backend& backend, Sparse& a, const typename Backend::Vector& x, Sparse& b,
                     const typename Backend::Vector& u, double c, typename Backend::Vector& e,
                     typename Backend::Vector& y) {
  b.apply(u, e);
  a.apply(x, y);
  backend.axpy(c, e, y, y);
}

// x = x + p(D⁻¹A) D⁻¹ (b − A x), or from x = 0 (zero_start): `degree` Chebyshev steps over
// [θ − δ, θ + δ] (the smoother of every V-cycle, multigrid/v_cycle.hpp). Each step after a zero
// start forms A x by apply(x, ax), then takes the step in one pass; or, when A is a sparse matrix
// (`matrix`, not null), forms A x in the step's own pass (its chebyshev_step; apply and ax unused).
template <class Backend, class Apply>
void chebyshev_smooth(Backend& backend, Apply&& apply, const typename Backend::Vector& b,
                      const typename Backend::Vector& inverse_diagonal, double theta, double delta, int degree,
                      bool zero_start, typename Backend::Vector& x, typename Backend::Vector& ax,
                      typename Backend::Vector& d, typename SparseMatrixOn<Backend>::type* matrix = nullptr) {
  const std::vector<ChebyshevCoefficients> steps = chebyshev_coefficients(theta, delta, degree);
  for (size_t k = 0; k < steps.size(); ++k) {
    if (zero_start && k == 0) {
      chebyshev_step(backend, b, nullptr, inverse_diagonal, steps[k].c_d, steps[k].c_r, x, d);
    } else if (matrix) {
      matrix->chebyshev_step(b, inverse_diagonal, steps[k].c_d, steps[k].c_r, x, d);
    } else {
      apply(x, ax);
      chebyshev_step(backend, b, &ax, inverse_diagonal, steps[k].c_d, steps[k].c_r, x, d);
    }
  }
}

}  // namespace ss
