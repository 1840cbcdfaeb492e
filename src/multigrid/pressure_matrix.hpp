#pragma once
// The flow pressure operator P = Gᵀ W G (operators/flow_operators.hpp) as an explicit cells × cells
// matrix in double, for the algebraic multigrid of the pressure solve:
//   P_cc = Σ_{f ∋ c} W_f,   P_cn = −W_f for the cell n across interior face f.
// Boundary faces add W_f to the diagonal only (φ = 0 beyond an outlet; W_f = 0 on prescribed faces).
#include <cstdint>
#include <vector>

#include "operators/sparse_matrix.hpp"
#include "operators/flow_operators.hpp"
#include "operators/mesh_operator_tables.hpp"

namespace ss {

// face_cell0[f], face_cell1[f]: the face's cells, face_cell1 < 0 on the boundary.
SparseMatrix pressure_matrix(const std::vector<std::int32_t>& face_cell0, const std::vector<std::int32_t>& face_cell1,
                             const FlowOperatorData& data);
SparseMatrix pressure_matrix(const MeshOperatorTables& tables, const FlowOperatorData& data);

}  // namespace ss
