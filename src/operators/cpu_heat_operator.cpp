// The CPU reference of the heat operator: the same gathers as the GPU kernels
// (shaders/heat_*.glsl), in double, OpenMP over output entities.
#include <algorithm>

#include "operators/heat_operator.hpp"
#include "util/error.hpp"

namespace ss {

namespace {

void require_size(const std::vector<double>& v, std::int64_t n, const char* what, const char* entity) {
  SS_REQUIRE(std::int64_t(v.size()) == n,
             "heat operator: " << what << " has " << v.size() << " values, expected " << n << " (one per " << entity << ")");
}

// out_i = Σ_k c_k (T_{j_k} - T_i) over row i of a neighbour CSR.
inline double row_sum(const std::vector<std::int32_t>& offsets, const std::vector<std::int32_t>& neighbors,
                      const std::vector<double>& coefficients, const std::vector<double>& T, std::int32_t i) {
  const double ti = T[size_t(i)];
  double s = 0;
  for (std::int32_t k = offsets[size_t(i)]; k < offsets[size_t(i) + 1]; ++k)
    s += coefficients[size_t(k)] * (T[size_t(neighbors[size_t(k)])] - ti);
  return s;
}

}  // namespace

CpuHeatOperator::CpuHeatOperator(const LoadedMesh& mesh, const std::vector<double>& conductivity)
    : CpuHeatOperator(std::make_shared<const HeatOperatorData>(assemble_heat_operator(mesh, conductivity, HeatTables::all))) {}

CpuHeatOperator::CpuHeatOperator(CpuBackend&, const LoadedMesh& mesh, const std::vector<double>& conductivity)
    : CpuHeatOperator(mesh, conductivity) {}

CpuHeatOperator::CpuHeatOperator(const HeatOperatorData& data)
    : CpuHeatOperator(std::make_shared<const HeatOperatorData>(data)) {}

CpuHeatOperator::CpuHeatOperator(std::shared_ptr<const HeatOperatorData> data, const std::vector<std::int32_t>& fixed_nodes)
    : data_(std::move(data)) {
  set_dirichlet(fixed_nodes);
}

void CpuHeatOperator::apply(const Vector& T, Vector& KT) {
  const std::int32_t n = data_->num_nodes;
  require_size(T, n, "T", "node");
  Vector out(size_t(n), 0.0);
#pragma omp parallel for schedule(static)
  for (std::int32_t i = 0; i < n; ++i) out[size_t(i)] = row_sum(data_->offsets, data_->neighbors, data_->coefficients, T, i);
  KT = std::move(out);
}

void CpuHeatOperator::apply_node_cells(const Vector& T, Vector& KT) {
  SS_REQUIRE(!data_->node_cells.empty(), "heat operator: assembled without the node→cells tables (HeatTables::all)");
  const std::int32_t n = data_->num_nodes;
  require_size(T, n, "T", "node");
  Vector out(size_t(n), 0.0);
#pragma omp parallel for schedule(static)
  for (std::int32_t i = 0; i < n; ++i) {
    const double ti = T[size_t(i)];
    double s = 0;
    for (std::int32_t k = data_->node_cell_offsets[size_t(i)]; k < data_->node_cell_offsets[size_t(i) + 1]; ++k) {
      const std::int32_t c = data_->node_cells[size_t(k)];
      for (int m = 0; m < 4; ++m)
        s += data_->node_cell_coefficients[size_t(k) * 4 + size_t(m)] *
             (T[size_t(data_->cell_nodes[size_t(c) * 4 + size_t(m)])] - ti);
    }
    out[size_t(i)] = s;
  }
  KT = std::move(out);
}

void CpuHeatOperator::cell_gradient(const Vector& T, Vector& gx, Vector& gy, Vector& gz) {
  const std::int32_t nc = data_->num_cells;
  require_size(T, data_->num_nodes, "T", "node");
  SS_REQUIRE(!data_->cell_nodes.empty(), "heat operator: assembled without the cell tables (HeatTables::operator_only): no cell gradient");
  Vector x(size_t(nc), 0.0), y(size_t(nc), 0.0), z(size_t(nc), 0.0);
#pragma omp parallel for schedule(static)
  for (std::int32_t c = 0; c < nc; ++c) {
    const size_t b = size_t(c) * 4;
    const double t0 = T[size_t(data_->cell_nodes[b])];
    double g[3] = {0, 0, 0};
    for (size_t m = 1; m < 4; ++m) {
      const double dt = T[size_t(data_->cell_nodes[b + m])] - t0;
      for (int d = 0; d < 3; ++d) g[d] += dt * data_->grad_lambda[d][b + m];
    }
    x[size_t(c)] = g[0];
    y[size_t(c)] = g[1];
    z[size_t(c)] = g[2];
  }
  gx = std::move(x);
  gy = std::move(y);
  gz = std::move(z);
}

void CpuHeatOperator::set_dirichlet(const std::vector<std::int32_t>& nodes) {
  if (eliminates(dirichlet_, data_->num_nodes, nodes)) return;
  dirichlet_ = eliminate_dirichlet(*data_, nodes);
}

void CpuHeatOperator::write_dirichlet_values(Vector& T, const std::vector<double>& values) {
  require_size(T, data_->num_nodes, "T", "node");
  SS_REQUIRE(values.size() == dirichlet_.nodes.size(),
             "heat operator: " << values.size() << " Dirichlet values for " << dirichlet_.nodes.size() << " fixed nodes");
  for (size_t k = 0; k < values.size(); ++k) T[size_t(dirichlet_.nodes[k])] = values[k];
}

void CpuHeatOperator::apply_system(double a, double s, const Vector& T, Vector& out) {
  const std::int32_t n = data_->num_nodes;
  require_size(T, n, "T", "node");
  Vector result(size_t(n), 0.0);
  const HeatDirichletData& e = dirichlet_;
#pragma omp parallel for schedule(static)
  for (std::int32_t i = 0; i < n; ++i) {
    const double ti = T[size_t(i)];
    result[size_t(i)] = e.fixed[size_t(i)] != 0
                            ? ti
                            : (a * data_->mass[size_t(i)] + s * e.shift[size_t(i)]) * ti +
                                  s * row_sum(e.offsets, e.neighbors, e.coefficients, T, i);
  }
  out = std::move(result);
}

// The CPU twin of shaders/heat_residual_precise.glsl, in double.
void CpuHeatOperator::residual_precise(double a, double s, const PreciseVector& f, const PreciseVector& X,
                                       PreciseVector& out, bool fixed_rows) {
  const std::int32_t n = data_->num_nodes;
  require_size(f, n, "f", "node");
  require_size(X, n, "X", "node");
  Vector result(size_t(n), 0.0);
  const std::vector<double>& fixed = dirichlet_.fixed;
#pragma omp parallel for schedule(static)
  for (std::int32_t i = 0; i < n; ++i) {
    const double xi = X[size_t(i)];
    result[size_t(i)] = fixed[size_t(i)] != 0
                            ? (fixed_rows ? xi : 0.0)
                            : f[size_t(i)] - (a * data_->mass[size_t(i)] * xi +
                                              s * row_sum(data_->offsets, data_->neighbors, data_->coefficients, X, i));
  }
  out = std::move(result);
}

CpuHeatOperator::Vector CpuHeatOperator::system_diagonal(double a, double s) {
  Vector d(size_t(data_->num_nodes), 0.0);
  for (size_t i = 0; i < d.size(); ++i)
    d[i] = dirichlet_.fixed[i] != 0 ? 1.0 : a * data_->mass[i] + s * data_->diagonal[i];
  return d;
}

void CpuHeatOperator::dirichlet_rhs(const Vector& b, const Vector& T, double s, Vector& out) {
  const std::int32_t n = data_->num_nodes;
  require_size(b, n, "b", "node");
  require_size(T, n, "T", "node");
  const std::vector<double>& fixed = dirichlet_.fixed;
  Vector result(size_t(n), 0.0);
#pragma omp parallel for schedule(static)
  for (std::int32_t i = 0; i < n; ++i) {
    if (fixed[size_t(i)] != 0) {
      result[size_t(i)] = T[size_t(i)];
      continue;
    }
    double coupling = 0;  // Σ_{j fixed} K_ij T_j
    for (std::int32_t k = data_->offsets[size_t(i)]; k < data_->offsets[size_t(i) + 1]; ++k) {
      const std::int32_t j = data_->neighbors[size_t(k)];
      coupling += data_->coefficients[size_t(k)] * fixed[size_t(j)] * T[size_t(j)];
    }
    result[size_t(i)] = b[size_t(i)] - s * coupling;
  }
  out = std::move(result);
}

}  // namespace ss
