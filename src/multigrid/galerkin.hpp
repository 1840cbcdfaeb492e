#pragma once
// Multigrid's matrices on the host: Galerkin products and the heat system as an explicit CSR.
#include "operators/heat_operator.hpp"
#include "operators/sparse_matrix.hpp"

namespace ss {

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
