// The sparse kernels on the GPU: shaders/mg_sparse_apply.glsl and shaders/mg_chebyshev.glsl.
#include "operators/sparse_kernels.hpp"

#include "util/error.hpp"

namespace ss {

GpuSparseMatrix::GpuSparseMatrix(GpuBackend& gpu, const SparseMatrix& m)
    : gpu_(gpu), rows_(m.rows), cols_(m.cols), quad_rows_(gpu.layout_options().packing == Packing::rgba32f) {
  std::vector<std::int32_t> offsets = m.offsets, columns = m.columns;
  std::vector<double> weights = m.values;
  if (quad_rows_) {  // rows padded to multiples of four entries (column 0, weight 0)
    offsets.assign(size_t(m.rows) + 1, 0);
    for (std::int32_t i = 0; i < m.rows; ++i)
      offsets[size_t(i) + 1] = offsets[size_t(i)] + (m.offsets[size_t(i) + 1] - m.offsets[size_t(i)] + 3) / 4 * 4;
    columns.assign(size_t(offsets.back()), 0);
    weights.assign(size_t(offsets.back()), 0.0);
    for (std::int32_t i = 0; i < m.rows; ++i) {
      std::int32_t out = offsets[size_t(i)];
      for (std::int32_t k = m.offsets[size_t(i)]; k < m.offsets[size_t(i) + 1]; ++k, ++out) {
        columns[size_t(out)] = m.columns[size_t(k)];
        weights[size_t(out)] = m.values[size_t(k)];
      }
    }
  }
  if (columns.empty()) {  // a texture needs one element
    columns.push_back(0);
    weights.push_back(0.0);
  }
  offsets_ = gpu_.upload_indices(offsets);
  columns_ = gpu_.upload_indices(columns);
  weights_ = gpu_.upload(weights);
}

void GpuSparseMatrix::apply(const Vector& x, Vector& y, const Vector* sub, const Vector* add) {
  SS_REQUIRE(x.size() == cols_ && y.size() == rows_ && (!sub || sub->size() == cols_) && (!add || add->size() == rows_),
             "sparse matrix " << rows_ << "x" << cols_ << ": vector sizes do not match (x " << x.size() << ", y "
                              << y.size() << ")");
  gpu_.launch("mg_sparse_apply.glsl",
              {GpuBackend::in("x", x), GpuBackend::in("sub", sub ? *sub : x), GpuBackend::in("add", add ? *add : y),
               GpuBackend::in("offsets", offsets_), GpuBackend::in("columns", columns_),
               GpuBackend::in("weights", weights_)},
              {&y},
              {uniform_int("quad_rows", quad_rows_), uniform_int("has_sub", sub != nullptr),
               uniform_int("has_add", add != nullptr)});
}

void chebyshev_step(GpuBackend& gpu, const Field& b, const Field* ax, const Field& inverse_diagonal, double c_d,
                    double c_r, Field& x, Field& d) {
  SS_REQUIRE(b.size() == x.size() && d.size() == x.size() && inverse_diagonal.size() == x.size() &&
                 (!ax || ax->size() == x.size()),
             "chebyshev step: vector sizes do not match");
  gpu.launch("mg_chebyshev.glsl",
             {GpuBackend::in("b", b), GpuBackend::in("ax", ax ? *ax : b), GpuBackend::in("x", x),
              GpuBackend::in("d", d), GpuBackend::in("inverse_diagonal", inverse_diagonal)},
             {&x, &d},
             {uniform_float("c_d", c_d), uniform_float("c_r", c_r), uniform_int("zero_start", ax == nullptr)});
}

}  // namespace ss
