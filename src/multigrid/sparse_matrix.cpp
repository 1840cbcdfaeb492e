#include "multigrid/sparse_matrix.hpp"

#include <algorithm>

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

SparseMatrix multiply(const SparseMatrix& a, const SparseMatrix& b) {
  SS_REQUIRE(a.cols == b.rows, "sparse product: " << a.rows << "x" << a.cols << " times " << b.rows << "x" << b.cols);
  SparseMatrix c;
  c.rows = a.rows;
  c.cols = b.cols;
  c.offsets.assign(size_t(c.rows) + 1, 0);
  std::vector<double> accumulator(size_t(b.cols), 0.0);
  std::vector<std::int32_t> marker(size_t(b.cols), -1), row;
  for (std::int32_t i = 0; i < a.rows; ++i) {
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
    for (std::int32_t col : row) {
      if (accumulator[size_t(col)] == 0.0) continue;
      c.columns.push_back(col);
      c.values.push_back(accumulator[size_t(col)]);
    }
    c.offsets[size_t(i) + 1] = std::int32_t(c.values.size());
  }
  return c;
}

SparseMatrix galerkin_product(const SparseMatrix& p, const SparseMatrix& a) {
  return multiply(transpose(p), multiply(a, p));
}

SparseMatrix heat_system_matrix(const HeatOperatorData& data, const HeatDirichletData& e, double a, double s) {
  SparseMatrix m;
  m.rows = m.cols = data.num_nodes;
  m.offsets.assign(size_t(m.rows) + 1, 0);
  m.columns.reserve(e.neighbors.size() + size_t(m.rows));
  m.values.reserve(e.neighbors.size() + size_t(m.rows));
  for (std::int32_t i = 0; i < m.rows; ++i) {
    const bool fixed = e.fixed[size_t(i)] != 0;
    // K̃_ii = a m_i + s (d_i − Σ_{free j} K_ij): the neighbour form (T_j − T_i) moves each K_ij of the
    // free row onto the diagonal as −K_ij.
    double diagonal = fixed ? 1.0 : a * data.mass[size_t(i)] + s * e.shift[size_t(i)];
    bool placed = false;
    const auto put_diagonal = [&] {
      m.columns.push_back(i);
      m.values.push_back(0.0);
      placed = true;
    };
    size_t diagonal_at = 0;
    if (!fixed) {
      for (std::int32_t k = e.offsets[size_t(i)]; k < e.offsets[size_t(i) + 1]; ++k) {
        const std::int32_t j = e.neighbors[size_t(k)];
        if (!placed && j > i) {
          diagonal_at = m.values.size();
          put_diagonal();
        }
        m.columns.push_back(j);
        m.values.push_back(s * e.coefficients[size_t(k)]);
        diagonal -= s * e.coefficients[size_t(k)];
      }
    }
    if (!placed) {
      diagonal_at = m.values.size();
      put_diagonal();
    }
    m.values[diagonal_at] = diagonal;
    m.offsets[size_t(i) + 1] = std::int32_t(m.values.size());
  }
  return m;
}

void apply_heat_system(const HeatOperatorData& data, const HeatDirichletData& e, double a, double s,
                       const std::vector<double>& x, std::vector<double>& y) {
  const std::int32_t n = data.num_nodes;
  SS_REQUIRE(std::int64_t(x.size()) == n, "heat system: x has " << x.size() << " values, expected " << n);
  y.assign(size_t(n), 0.0);
#pragma omp parallel for schedule(static)
  for (std::int32_t i = 0; i < n; ++i) {
    const double xi = x[size_t(i)];
    if (e.fixed[size_t(i)] != 0) {
      y[size_t(i)] = xi;
      continue;
    }
    double sum = 0;
    for (std::int32_t k = e.offsets[size_t(i)]; k < e.offsets[size_t(i) + 1]; ++k)
      sum += e.coefficients[size_t(k)] * (x[size_t(e.neighbors[size_t(k)])] - xi);
    y[size_t(i)] = (a * data.mass[size_t(i)] + s * e.shift[size_t(i)]) * xi + s * sum;
  }
}

}  // namespace ss
