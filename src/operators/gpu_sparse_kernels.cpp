// The sparse kernels on the GPU: shaders/mg_sparse_apply.glsl, mg_sparse_chebyshev.glsl (both gather
// rows with sparse_rows.glsl) and mg_chebyshev.glsl.
#include "operators/sparse_kernels.hpp"

#include <algorithm>

#include "util/error.hpp"

namespace ss {

GpuSparseMatrix::GpuSparseMatrix(GpuBackend& gpu, const SparseMatrix& m)
    : gpu_(gpu), rows_(m.rows), cols_(m.cols), full_rows_(m.rows) {
  upload_tables(m);
}

GpuSparseMatrix::GpuSparseMatrix(GpuBackend& gpu, const SparseMatrix& m, const std::vector<std::int32_t>& rows)
    : gpu_(gpu), rows_(std::int32_t(rows.size())), cols_(m.cols), full_rows_(m.rows) {
  upload_tables(select_rows(m, rows));
  row_map_ = gpu_.upload_indices(rows.empty() ? std::vector<std::int32_t>{0} : rows);
}

void GpuSparseMatrix::upload_tables(const SparseMatrix& m) {
  const std::int32_t S = kSliceRows, slices = (m.rows + S - 1) / S;
  // Each slice's width (its longest row), then the slices' starts (in parallel: 56.6M rows for the
  // transfers onto a refine-6 level).
  std::vector<std::int32_t> width(size_t(slices), 0);
#pragma omp parallel for schedule(static)
  for (std::int32_t s = 0; s < slices; ++s)
    for (std::int32_t i = s * S; i < std::min(m.rows, (s + 1) * S); ++i)
      width[size_t(s)] = std::max(width[size_t(s)], m.offsets[size_t(i) + 1] - m.offsets[size_t(i)]);
  std::vector<std::int32_t> slice_start(size_t(slices) + 1, 0);
  std::int64_t total = 0;
  for (std::int32_t s = 0; s < slices; ++s) {
    total += std::int64_t(width[size_t(s)]) * S;
    SS_REQUIRE(total < (std::int64_t(1) << 31), "sparse matrix " << m.rows << "x" << m.cols << " with "
                                                                  << m.nonzeros() << " entries is too large for 32-bit indices");
    slice_start[size_t(s) + 1] = std::int32_t(total);
  }
  // The sliced layout straight into the textures: entry `at` of slice s is (column k, row r) with
  // at = slice_start[s] + k S + r; rows past a slice's last entry repeat its last column (weight 0),
  // rows past the matrix and empty rows hold column 0.
  const auto slice_of = [&](std::int64_t at) {
    return std::int32_t(std::upper_bound(slice_start.begin(), slice_start.end(), std::int32_t(at)) - slice_start.begin()) - 1;
  };
  const auto fill = [&](auto* out, std::int64_t first, std::int64_t end, auto entry) {
    const std::int64_t blocks = (end - first + 65535) / 65536;
#pragma omp parallel for schedule(static) if (blocks > 1)
    for (std::int64_t b = 0; b < blocks; ++b) {
      const std::int64_t begin = first + b * 65536, stop = std::min(end, begin + 65536);
      std::int32_t s = begin < total ? slice_of(begin) : 0;
      for (std::int64_t at = begin; at < stop; ++at) {
        if (at >= total) {  // the one element of a matrix without entries
          out[at - first] = entry(0, 0, 0);
          continue;
        }
        while (at >= slice_start[size_t(s) + 1]) ++s;
        const std::int64_t offset = at - slice_start[size_t(s)];
        const std::int32_t i = s * S + std::int32_t(offset % S), k = std::int32_t(offset / S);
        const std::int32_t begin_row = i < m.rows ? m.offsets[size_t(i)] : 0;
        const std::int32_t count = i < m.rows ? m.offsets[size_t(i) + 1] - begin_row : 0;
        out[at - first] = entry(begin_row, count, k);
      }
    }
  };
  std::int32_t highest = 0;
  const std::int64_t nonzeros = m.nonzeros();
#pragma omp parallel for schedule(static) reduction(max : highest) if (nonzeros > 65536)
  for (std::int64_t k = 0; k < nonzeros; ++k) highest = std::max(highest, m.columns[size_t(k)]);
  const Layout layout = gpu_.layout_for(std::max<std::int64_t>(total, 1));
  columns_ = IndexField(layout);
  columns_.upload_chunks(
      [&](std::int32_t* out, std::int64_t first, std::int64_t end) {
        fill(out, first, end, [&](std::int32_t begin, std::int32_t count, std::int32_t k) {
          return count == 0 ? 0 : m.columns[size_t(begin + std::min(k, count - 1))];
        });
      },
      0, highest);
  weights_ = Field(layout);
  weights_.upload_chunks([&](float* out, std::int64_t first, std::int64_t end) {
    fill(out, first, end, [&](std::int32_t begin, std::int32_t count, std::int32_t k) {
      return k < count ? static_cast<float>(m.values[size_t(begin + k)]) : 0.0f;
    });
  });
  stored_entries_ = total;
  slice_start_ = gpu_.upload_indices(slice_start);
}

std::vector<KernelInput> GpuSparseMatrix::table_inputs() const {
  // Without a row map the sampler still needs an integer texture: the columns stand in, unread.
  return {GpuBackend::in("slice_start", slice_start_), GpuBackend::in("columns", columns_),
          GpuBackend::in("weights", weights_), GpuBackend::in("row_map", row_map_ ? *row_map_ : columns_)};
}

std::vector<KernelUniform> GpuSparseMatrix::table_uniforms() const {
  return {uniform_int("slice_rows", kSliceRows), uniform_int("has_row_map", row_map_.has_value())};
}

void GpuSparseMatrix::apply(const Vector& x, Vector& y, const Vector* sub, const Vector* add) {
  SS_REQUIRE(x.size() == cols_ && y.size() == rows_ && (!sub || sub->size() == cols_) && (!add || add->size() == full_rows_),
             "sparse matrix " << rows_ << "x" << cols_ << ": vector sizes do not match (x " << x.size() << ", y "
                              << y.size() << ")");
  std::vector<KernelInput> inputs = table_inputs();
  inputs.insert(inputs.end(), {GpuBackend::in("x", x), GpuBackend::in("sub", sub ? *sub : x),
                               GpuBackend::in("add", add ? *add : y)});
  std::vector<KernelUniform> uniforms = table_uniforms();
  uniforms.insert(uniforms.end(), {uniform_int("has_sub", sub != nullptr), uniform_int("has_add", add != nullptr)});
  gpu_.launch("mg_sparse_apply.glsl", inputs, {&y}, uniforms);
}

void GpuSparseMatrix::chebyshev_step(const Vector& b, const Vector& inverse_diagonal, double c_d, double c_r,
                                     Vector& x, Vector& d) {
  SS_REQUIRE(!row_map_, "sparse chebyshev step: a matrix of selected rows computes them with chebyshev_rows");
  chebyshev_rows(b, inverse_diagonal, c_d, c_r, x, d, x, d);
}

void GpuSparseMatrix::chebyshev_rows(const Vector& b, const Vector& inverse_diagonal, double c_d, double c_r,
                                     const Vector& x, const Vector& d, Vector& x_out, Vector& d_out) {
  SS_REQUIRE(full_rows_ == cols_ && b.size() == cols_ && x.size() == cols_ && d.size() == cols_ &&
                 inverse_diagonal.size() == cols_ && x_out.size() == rows_ && d_out.size() == rows_,
             "sparse chebyshev step: matrix " << full_rows_ << "x" << cols_ << ", vectors " << b.size() << ", "
                                              << x.size() << ", outputs " << x_out.size());
  std::vector<KernelInput> inputs = table_inputs();
  inputs.insert(inputs.end(), {GpuBackend::in("b", b), GpuBackend::in("x", x), GpuBackend::in("d", d),
                               GpuBackend::in("inverse_diagonal", inverse_diagonal)});
  std::vector<KernelUniform> uniforms = table_uniforms();
  uniforms.insert(uniforms.end(), {uniform_float("c_d", c_d), uniform_float("c_r", c_r)});
  gpu_.launch("mg_sparse_chebyshev.glsl", inputs, {&x_out, &d_out}, uniforms);
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
