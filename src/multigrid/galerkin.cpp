#include "multigrid/galerkin.hpp"

#include "util/error.hpp"

namespace ss {

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
