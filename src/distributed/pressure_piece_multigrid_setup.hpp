#pragma once
// The host side of the flow pressure multigrid over MPI ranks (distributed_pressure_multigrid.hpp
// runs the V-cycle): aggregation along the refinement. Partition-then-refine names fine cell c of coarse
// cell C as 8C + k (refined_entity_piece.hpp), and the eight children of a cell live on its owner,
// so the refinement's own families are the aggregates and both transfers stay on the rank:
//   R:  b_C = Σ_{c child of C} b_c         (owned coarse rows from owned fine cells)
//   P:  x_c = α x_C                        (owned fine rows; α > 1 over-corrects: multigrid_setup.hpp's
//                                           family_over_correction, as the serial families' levels)
//   A_C = Σ_{c ∈ C, n ∈ N} A_cn            (Galerkin R A Rᵀ: for the pressure operator, the weights
//                                           W_f of the fine faces between C's and N's children)
//
// Levels, finest first: the flow piece's cells (its own order: owned and ghost cells interleaved,
// ascending global id) down to the base mesh's cells, or to the first level whose whole mesh has at
// most max(coarse_size, gather_size) cells (distributed_pressure_multigrid.hpp). A coarser level
// has its owned cells first (ascending global id), then its ghosts (by owner, then global id): the
// cells the owned rows reach across a face.
#include <cstdint>
#include <vector>

#include <mpi.h>

#include "operators/sparse_matrix.hpp"
#include "parallel/partition.hpp"

namespace ss {

struct CellLevel {
  std::vector<std::int64_t> global;  // per local cell
  std::vector<std::int32_t> owner;   // per local cell: its rank
  std::vector<HaloLink> links;       // ghosts from their owners
  SparseMatrix matrix;               // owned rows exact, ghost rows empty; columns: local cells
  std::int64_t whole = 0;            // cells of the whole level (all ranks)
  // Owned cells (owner == this rank), in local order.
  std::vector<std::int32_t> owned_cells(int rank) const;
};

// The finest level from a piece's cells: `owned` flags and the halo links (a ghost's owner is the
// rank it is received from) and the piece's matrix (its ghost rows are dropped; collective).
CellLevel finest_cell_level(const std::vector<std::int64_t>& global, const std::vector<char>& owned,
                            const std::vector<HaloLink>& links, SparseMatrix matrix, MPI_Comm comm);

// The next coarser level (cell C = fine cells 8C .. 8C + 7) and each fine cell's parent in it
// (local ids; -1 for a ghost the owned rows do not reach). The coarse entries are summed in the
// order of (coarse column, fine row, fine column) global ids, so any rank count gives the same
// numbers (collective).
CellLevel coarsen_cells(const CellLevel& fine, std::vector<std::int32_t>& parent, MPI_Comm comm);

// 1 / A_ii on owned rows, 0 on ghosts (throws on a non-positive diagonal entry, naming the cell).
std::vector<double> cell_inverse_diagonal(const CellLevel& level, int rank);

// λmax(D⁻¹A) of the whole level: CG-Lanczos in double, ghosts exchanged, dot products summed over
// owned entries, the start vector from the global ids (collective).
double cell_lambda_max(const CellLevel& level, const std::vector<double>& inverse_diagonal, int steps, MPI_Comm comm);

}  // namespace ss
