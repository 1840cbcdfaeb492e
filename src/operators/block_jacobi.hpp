#pragma once
// Block Jacobi for a nonsymmetric sparse system A x = b (the implicit momentum system,
// operators/implicit_momentum_matrix.hpp): the rows are grouped into blocks of at most `size` rows,
// and the preconditioner is the block diagonal's inverse,
//   M⁻¹ = blockdiag(A_bb)⁻¹,   A_bb = A restricted to the rows and columns of block b,
// a sparse matrix with at most `size` entries a row, applied by one sparse product on a backend
// (GpuSparseMatrix / CpuSparseMatrix). Unlike the point Jacobi diagonal, a block holds the strong
// couplings among its rows (the convection along the flow, the face fluxes of neighbouring cells),
// which is where a convection-dominated system at a large CFL number loses its diagonal dominance.
#include <cstdint>
#include <vector>

#include "operators/sparse_matrix.hpp"

namespace ss {

// Blocks grown breadth first along the strongest couplings: from the lowest row not yet in a block,
// each row visited takes its unassigned neighbours in decreasing max(|A_ij|, |A_ji|) until the block
// has `size` rows or no unassigned neighbour is left. Returns the block of each row, blocks numbered
// 0, 1, … in the order they were started; deterministic.
std::vector<std::int32_t> strong_coupling_blocks(const SparseMatrix& a, int size);

// blockdiag(A_bb)⁻¹ for the blocks `block_of_row` (each block's dense inverse by Gaussian
// elimination with partial pivoting). A singular block is an ss::Error naming a row of it.
SparseMatrix block_jacobi_inverse(const SparseMatrix& a, const std::vector<std::int32_t>& block_of_row);

}  // namespace ss
