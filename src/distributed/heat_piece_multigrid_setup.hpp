#pragma once
// The host side of the heat multigrid over MPI ranks (distributed_heat_multigrid.hpp runs the
// V-cycle): each rank holds every level of the uniform refinement as its own piece
// (refine_base_hierarchy: the levels' pieces and the parent maps between them, in local ids), and
// the V-cycle (multigrid/v_cycle.hpp) does what the serial one would on every level's whole mesh:
//   - a level's operator: the heat system a·M + s·K̃ of the piece, its owned rows completed with the
//     halo (DistributedHeatOperator);
//   - the Chebyshev smoother's D⁻¹ and λmax(D⁻¹A) of the whole level: CG-Lanczos with the ghosts
//     exchanged and the dot products summed over the owned entries of every rank, the start vector
//     from the global ids (so every rank count finds the same interval);
//   - P = P1 interpolation from the parents (1 or ½), Dirichlet rows and columns dropped as in
//     prolongation_from_map; R = Pᵀ, whose owned rows need the fine ghosts' residuals (halo);
//   - the coarsest level (the base mesh, or the first level whose whole mesh has at most
//     coarse_size nodes, as the serial set-up stops) gathered whole on every rank (its owned rows,
//     by global id) and solved there by the serial algebraic multigrid (CHOLMOD when it is small),
//     so each rank has the same coarse answer without another message.
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include <mpi.h>

#include "mesh/mesh_hierarchy.hpp"
#include "operators/heat_operator.hpp"
#include "operators/sparse_matrix.hpp"
#include "parallel/partition.hpp"
#include "parallel/whole_gather.hpp"

namespace ss {

// One level of a rank's piece: the piece (halo links filled), the heat operator of its mesh
// (owned rows exact) and the Dirichlet flag of every local node (ghosts: their owner's).
struct PieceHeatLevel {
  RankPiece piece;
  std::shared_ptr<const HeatOperatorData> data;
  std::vector<char> fixed;
  std::int32_t owned() const { return piece.part.owned_nodes; }
};

// The levels below the finest piece, coarse first (levels[0]: the base mesh's piece), and the
// maps between them: maps[l] takes level l to l + 1, maps.back() onto the finest piece.
struct PieceHeatHierarchy {
  std::vector<PieceHeatLevel> levels;
  std::vector<LevelMap> maps;
};

// The smoother's numbers of one level for a·M + s·K̃: D⁻¹ (1 / (a m_i + s K_ii) on owned free rows,
// 1 on fixed and ghost rows) and λmax(D⁻¹A) of the whole level (collective).
struct PieceSmoother {
  std::vector<double> inverse_diagonal;
  double lambda_max = 1;
};
PieceSmoother piece_smoother(const HeatOperatorData& data, const std::vector<char>& fixed, const RankPiece& piece,
                             double a, double s, int lanczos_steps, MPI_Comm comm);

// P in local ids (fine local rows × coarse local columns): fine node f gets 1 from its parent
// (a, a), ½ from each present parent of a midpoint; fixed fine rows and fixed coarse columns empty.
SparseMatrix piece_prolongation(const LevelMap& map, const std::vector<char>& coarse_fixed,
                                const std::vector<char>& fine_fixed);

// A level's system assembled whole on every rank from the owned rows of each rank's piece
// (collective; the coarsest level: the base mesh, or a finer one of at most coarse_size nodes):
// row and column = the node's global id.
class WholeBaseSystem {
public:
  WholeBaseSystem(const HeatOperatorData& data, const std::vector<char>& fixed, const RankPiece& piece, MPI_Comm comm);
  std::int32_t size() const { return size_; }
  // a·M + s·K̃ with the fixed nodes' rows and columns the identity's.
  SparseMatrix matrix(double a, double s) const;
  // Every rank's owned values (owned_values: this rank's, in local order) as one vector by global id.
  std::vector<double> gather(const std::vector<double>& owned_values) const { return gather_->gather(owned_values); }

private:
  std::int32_t size_ = 0;
  std::optional<WholeGather> gather_;
  // The whole rows (global ids): K's CSR, diagonal, mass, fixed.
  std::vector<std::int32_t> offsets_, columns_;
  std::vector<double> coefficients_, diagonal_, mass_;
  std::vector<char> fixed_;
};

}  // namespace ss
