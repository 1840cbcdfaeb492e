#pragma once
// Host-side sparse matrices (CSR, double) for the multigrid setup: the level operators below the
// finest mesh, the transfers P and R = Pᵀ, and the products that build Galerkin operators.
#include <cstdint>
#include <vector>

#include "operators/heat_operator.hpp"

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

SparseMatrix transpose(const SparseMatrix& a);
SparseMatrix multiply(const SparseMatrix& a, const SparseMatrix& b);  // a·b, exact zeros kept out
// Pᵀ A P.
SparseMatrix galerkin_product(const SparseMatrix& p, const SparseMatrix& a);

// The heat system a·M + s·K̃ with the fixed nodes of `e` eliminated (identity rows and columns),
// full length, as an explicit CSR with the diagonal included (heat_operator.hpp).
SparseMatrix heat_system_matrix(const HeatOperatorData& data, const HeatDirichletData& e, double a, double s);

// y = (a·M + s·K̃) x from the operator's tables, in double (the CpuHeatOperator's apply_system,
// without needing a CpuHeatOperator and its copy of the tables).
void apply_heat_system(const HeatOperatorData& data, const HeatDirichletData& e, double a, double s,
                       const std::vector<double>& x, std::vector<double>& y);

}  // namespace ss
