#pragma once
// A heat run's piece over MPI ranks (thesis ch. 8), what the heat command needs of it beyond the
// generic parts (parallel/: piece_assignment.hpp, refined_node_piece.hpp, piece_files.hpp): the
// refined piece with the heat problem's numbers on it (ghost nodes take their owner's), the solve over
// DistributedBackend and the halo-overlapped DistributedHeatOperator, the piece's VTU and the true
// residual over every rank's owned rows.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "cpu/cpu_backend.hpp"
#include "distributed/heat_piece_multigrid_setup.hpp"
#include "kernels/gpu_backend.hpp"
#include "mesh/load_mesh.hpp"
#include "mesh/vtu.hpp"
#include "operators/heat_operator.hpp"
#include "parallel/piece_assignment.hpp"
#include "parallel/rank_report.hpp"
#include "parallel/refined_node_piece.hpp"
#include "physics/heat_solver.hpp"

namespace ss {

// A rank's refined piece and the heat problem's numbers on it.
struct LocalHeat {
  RankPiece piece;  // the mesh moved into `mesh`; maps, owners and halo links stay
  LoadedMesh mesh;  // the piece prepared (topology, geometry; no renumbering: owned nodes first)
  std::vector<double> conductivity;               // per local tet
  std::vector<double> load, fixed_values, initial;  // per local node (initial: transient only)
  std::vector<char> fixed;                        // per local node: Dirichlet
  HeatSolveSettings settings;
  // The multigrid over the ranks (the case asks for it and the base is refined at least once):
  // every coarser level's piece (distributed_heat_multigrid.hpp).
  std::optional<PieceHeatHierarchy> coarser;
  int output_every = 10;
  double refine_seconds = 0, prepare_seconds = 0;
};

// Step 3 on every rank: refine the assigned base piece, pair the halo, prepare the piece, build the
// problem (the case parsed from the assignment's text) and its operator data (collective).
// `output_every`: the snapshots' interval (default: the case's).
LocalHeat build_heat_piece(PieceAssignment a, std::optional<int> output_every, HeatOperatorData& data);

// A piece's solve: the report, the local temperatures (ghosts from their owners), this rank's part
// of the summary's per_rank.
struct HeatPieceRun {
  HeatSolveReport report;
  std::vector<double> temperature, last_rhs;
  RankFigures figures;
};

// A transient run's snapshot: (step, time, the local temperatures).
using SnapshotHook = std::function<void(int, double, const std::vector<double>&)>;

// Step 4: the piece's solve (collective), halo and allreduce figures in the result's `figures`.
HeatPieceRun solve_heat_piece(GpuBackend& backend, GpuHeatOperator& op, const LocalHeat& h, const HeatOperatorData& data,
                              const SnapshotHook& snapshot);
HeatPieceRun solve_heat_piece(CpuBackend& backend, CpuHeatOperator& op, const LocalHeat& h, const HeatOperatorData& data,
                              const SnapshotHook& snapshot);

// This rank's piece of a field: its owned tets with every local node; the ghost nodes' temperatures
// come from their owners (exchanged in double on the host, so a node has the same value in every
// piece). Point data: temperature, owner; cell data: `cell_data` (one value per owned tet), rank.
void write_heat_piece(const std::string& path, const LocalHeat& h, std::vector<double> T, std::vector<VtuArray> cell_data);

// ||b̃ − (a·M + s·K̃) T|| / ||b̃|| over the owned rows of every rank, in double (T with its ghosts).
double distributed_true_residual(const HeatOperatorData& data, const LocalHeat& h, const HeatSolveReport& report,
                                 const std::vector<double>& T);

}  // namespace ss
