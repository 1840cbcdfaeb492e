#pragma once
// A flow run's piece over MPI ranks (thesis §8.3), what the flow command needs of it beyond the
// generic parts (piece_assignment.hpp, refined_entity_piece.hpp, piece_files.hpp): the operator
// coefficients right on the ghosts, the state gathered to and scattered from rank 0 by global id,
// the fields of the piece, and the unchanged time loop over DistributedBackend and
// DistributedFlowOperators (every operator output's ghosts from their owners).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <glm/glm.hpp>

#include "cpu/cpu_backend.hpp"
#include "distributed/distributed_streamfunction.hpp"
#include "kernels/gpu_backend.hpp"
#include "mesh/load_mesh.hpp"
#include "operators/cpu_mesh_operators.hpp"
#include "operators/flow_operators.hpp"
#include "parallel/entity_partition.hpp"
#include "parallel/halo.hpp"
#include "parallel/rank_report.hpp"
#include "parallel/refined_entity_piece.hpp"
#include "postprocess/flow_fields.hpp"
#include "problems/flow_heat_problem.hpp"
#include "problems/flow_problem.hpp"
#include "physics/flow_time_loop.hpp"
#include "physics/flow_solver.hpp"

namespace ss {

// The piece's operator coefficients, right on its ghosts too (from their owners); the curl–curl
// term's Lanczos interval comes from one run over every rank's piece (collective).
FlowOperatorData piece_operator_data(const MeshOperatorTables& tables, const FlowProblem& problem,
                                     const EntityPiece& piece, std::int64_t global_cells);

// A rank's state by global id at rank 0 (owned entries gathered; empty elsewhere; the temperature
// by global node id), marked with the ids' base level for the checkpoint (collective).
FlowState gather_state(const FlowState& s, const EntityPiece& piece, const FineCounts& fine, int base_levels);

// --restart: rank 0's checkpoint (by global id), each rank's entries of it (cut faces 0; collective).
FlowState scatter_state(const std::optional<FlowState>& whole, const EntityPiece& piece, const FineCounts& fine);

// The fields of a rank's piece, right on its owned cells and their nodes (cell and node halos);
// its piece file "<stem>_piece_<rank>.vtu": the owned cells, every local node, the cell array `rank`.
class PieceFields {
public:
  PieceFields(const LoadedMesh& local, const FlowProblem& problem, const EntityPiece& piece);

  // Collective (halo updates).
  FlowFields compute(const FlowState& state);

  // Every rank writes its piece (collective: every piece is there when this returns); the piece
  // names, for rank 0's .pvtu.
  std::vector<std::string> write(const std::string& out_dir, const std::string& stem, const FlowFields& fields);

  // flow.json's summary of `fields` over every rank's owned cells (collective).
  FlowFieldSummary summary(const FlowFields& fields, double time) const;

private:
  const LoadedMesh& local_;
  const FlowProblem& problem_;
  CpuMeshOperators ops_;
  CpuBackend host_;
  HaloExchange<CpuBackend> cell_halo_, node_halo_;
  std::vector<std::int32_t> owned_cells_;
  TetMesh piece_;
};

// The node velocity at the base mesh's nodes (the lattice numbers them first), at rank 0 (collective).
std::vector<glm::dvec3> base_node_velocity(const FlowFields& fields, const EntityPiece& piece, std::int64_t base_nodes);
// The same for the node temperature of a [heat] run (collective; empty on every rank without one).
std::vector<double> base_node_temperature(const FlowFields& fields, const EntityPiece& piece, std::int64_t base_nodes);

// What a rank's time loop needs beyond its piece: the refinements the pieces were made by (≥ 1 for
// the pressure multigrid over the ranks), for the exact method rank 0's whole boundary (null
// on the other ranks), and for a [heat] run the piece's heat problem (piece_flow_heat_problem,
// distributed_flow_heat.hpp; null: no temperature).
struct FlowPieceRun {
  int refinements = 0;
  const WholeStreamfunction* whole_streamfunction = nullptr;
  const FlowHeatProblem* heat = nullptr;
};

// The time loop on one rank's piece: halos of the entity kinds, the distributed backend and
// operators, the unchanged march_flow; the halo and allreduce figures into `figures`. With
// problem.pressure.multigrid the pressure CG is preconditioned by the multigrid over the ranks
// (distributed_pressure_multigrid.hpp) along the refinements; the exact method gets its boundary from
// rank 0 (distributed_streamfunction.hpp) and a node halo for its gauge; a [heat] run carries its
// temperature on the piece (distributed_flow_temperature.hpp) over the node halo.
FlowRunResult run_flow_piece(GpuBackend& local, GpuFlowOperators& ops, const EntityPiece& piece,
                             const FlowProblem& problem, const LoadedMesh& mesh, const FlowOperatorData& data,
                             const FlowState* initial, const FlowRunHooks& hooks, const FlowPieceRun& run,
                             RankFigures& figures);
FlowRunResult run_flow_piece(CpuBackend& local, CpuFlowOperators& ops, const EntityPiece& piece,
                             const FlowProblem& problem, const LoadedMesh& mesh, const FlowOperatorData& data,
                             const FlowState* initial, const FlowRunHooks& hooks, const FlowPieceRun& run,
                             RankFigures& figures);

}  // namespace ss
