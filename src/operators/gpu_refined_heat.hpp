#pragma once
// The finest level's heat-operator tables on the GPU, from level K - 1: the fine
// edges as node pairs, each edge's stiffness K_ab and each fine node's lumped mass, computed by
// kernels that read only the coarse level's tables (shaders/refine_fine_edges.glsl): the fine mesh,
// its topology and its geometry need not exist on the host. The CPU twin is assemble_heat_operator
// on refine_once's mesh (problems/heat_problem.hpp's assemble_heat_system), with each child taking
// its parent's conductivity and heat capacity.
//   - edges: the same set as the fine Topology's, numbered by the coarse entity they come from
//     (2 per coarse edge, 3 per coarse face, 1 per coarse cell: refine_fine_edges.glsl);
//   - K_ab: Σ over the children holding the edge of k (n_a·n_b) / (36 V), n the face normals in
//     float from the points relative to a corner of the coarse cell (float-pair coordinates:
//     differences correctly rounded), V = V_c/8;
//   - mass: a coarse node keeps 1/8 of its coarse mass, an edge midpoint sums ρc V_c/8 · (1 or 1.5)
//     over the coarse cells around the edge;
//   - the node graph: row lengths counted on the host from the coarse tables (one int per fine
//     node), the entries made by a kernel (refine_heat_node_edges.glsl), K_ij gathered per entry.
// `heat` solves on these tables by default for a refined run on the GPU alone
// (run/run_heat_gpu_finest.cpp; multigrid: multigrid/refined_level_multigrid.hpp).
#include <cstdint>
#include <functional>
#include <vector>

#include "field/field.hpp"
#include "kernels/gpu_backend.hpp"
#include "mesh/load_mesh.hpp"
#include "mesh/refine.hpp"
#include "operators/heat_operator.hpp"

namespace ss {

struct GpuRefinedHeatTables {
  std::int64_t num_nodes = 0, num_edges = 0;
  IndexField edge_nodes;    // 2 per fine edge: low id, high id
  Field edge_coefficients;  // K_ab per fine edge
  Field mass;               // lumped mass (median-dual volume) per fine node
  // The node graph with K (heat_operator.hpp's neighbour form, what heat_apply.glsl reads): row i is
  // entries [offsets[i], offsets[i + 1]), one per fine edge at i (not sorted by neighbour).
  IndexField offsets;       // fine nodes + 1
  IndexField node_edges;    // the fine edge of each entry
  IndexField neighbors;     // its other node
  Field coefficients;       // its K_ij
  Field diagonal;           // K_ii = -Σ_j K_ij
};

// `coarse`: level K - 1 as load_mesh leaves it, with TopologyTables::all (every face's nodes and
// cells) and its cells' volumes; `conductivity` k and `heat_capacity` ρc: one value per coarse cell (its
// children's; ρc empty: 1), so `mass` is assemble_heat_system's M_ii = Σ_c (ρc)_c V_c / 4. Throws
// ss::Error naming the mesh for missing face tables or a value count that is not the cell count.
GpuRefinedHeatTables gpu_refine_heat_tables(GpuBackend& gpu, const LoadedMesh& coarse, const std::vector<double>& conductivity,
                                            const std::vector<double>& heat_capacity = {},
                                            RefineNumbering numbering = RefineNumbering::interleaved);

// The heat system a·M + s·K̃ on these tables with the fixed nodes eliminated, in the form
// solve_heat_system (physics/heat_solver.hpp) takes, from the kernels GpuHeatOperator uses
// (heat_apply_system.glsl, heat_residual_precise.glsl) over the unsorted, unpadded node graph. The
// elimination is made on the GPU: the fixed columns' K_ij zeroed (K_ij (1 − fixed_j)) and
// d_i = −Σ_j K_ij fixed_j. K is the tables' float K, so the defect correction's residual is exact
// for that operator (its lo parts are 0); it differs from the host's double K by ~1e-7 relative.
class GpuRefinedHeatSystem {
public:
  using Vector = Field;
  using PreciseVector = GpuBackend::PreciseVector;
  // `fixed_nodes` (fine ids, any order, unique) hold `fixed_values`. Throws ss::Error for an id out
  // of range or a value count that is not the node count. Keeps a reference to `tables`.
  GpuRefinedHeatSystem(GpuBackend& gpu, const GpuRefinedHeatTables& tables, std::vector<std::int32_t> fixed_nodes,
                       std::vector<double> fixed_values);
  // z = M⁻¹ r for the system a·M + s·K̃, made per (a, s) (physics/heat_solver.hpp's
  // PreconditionerFactory; multigrid/refined_level_multigrid.hpp); empty: Jacobi or none.
  std::function<std::function<void(const Vector&, Vector&)>(double, double)> preconditioner;
  std::int64_t num_nodes() const { return tables_.num_nodes; }
  const std::vector<std::int32_t>& fixed_nodes() const { return fixed_nodes_; }
  Vector system_diagonal(double a, double s);  // a m_i + s K_ii free, 1 fixed
  void apply_system(double a, double s, const Vector& x, Vector& y);
  void prepare_solution_precise(PreciseVector& X);  // X_D = T_D exactly
  void residual_precise(double a, double s, const PreciseVector& f, const PreciseVector& X, PreciseVector& out,
                        bool fixed_rows);

private:
  GpuBackend& gpu_;
  const GpuRefinedHeatTables& tables_;
  std::vector<std::int32_t> fixed_nodes_;
  std::vector<double> fixed_values_;
  Field fixed_, free_coefficients_, shift_, zero_entries_, zero_nodes_;
};

// How the GPU's tables differ from the CPU twin's (`fine`: the refined mesh with its topology and
// geometry; `reference`: assemble_heat_system on it).
struct RefinedHeatDifferences {
  bool sizes_match = true;
  std::int64_t wrong_edges = 0;  // GPU edges that are no fine edge, or one already produced
  double coefficients = 0;       // max |gpu - cpu| / max(K_aa, K_bb) over the edges
  double mass = 0;               // max |gpu - cpu| / cpu, per node
  std::int64_t wrong_rows = 0;   // node-graph rows whose (neighbour, edge) pairs differ from the host's
  double diagonal = 0;           // max |gpu - cpu| / Σ_j |K_ij| of K_ii
  // K·T of T_i = sin(i) by heat_apply.glsl on these tables against the host's in double: max over
  // the nodes of |gpu - cpu| / (K_ii max |T|).
  double apply = 0;
};
RefinedHeatDifferences compare_with_reference(GpuBackend& gpu, const GpuRefinedHeatTables& tables, const LoadedMesh& fine,
                                              const HeatOperatorData& reference);

}  // namespace ss
