#pragma once
// The finest level's heat-operator tables on the GPU, from level K - 1 (issue 13, item 4): the fine
// edges as node pairs, each edge's stiffness K_ab and each fine node's lumped mass, computed by
// kernels that read only the coarse level's tables (shaders/refine_fine_edges.glsl): the fine mesh,
// its topology and its geometry need not exist on the host. The CPU twin is assemble_heat_operator
// on refine_once's mesh (operators/heat_operator.hpp), with each child taking its parent's
// conductivity.
//   - edges: the same set as the fine Topology's, numbered by the coarse entity they come from
//     (2 per coarse edge, 3 per coarse face, 1 per coarse cell: refine_fine_edges.glsl);
//   - K_ab: Σ over the children holding the edge of k (n_a·n_b) / (36 V), n the face normals in
//     float from fp64 point differences, V = V_c/8;
//   - mass: a coarse node keeps 1/8 of its coarse mass, an edge midpoint sums V_c/8 · (1 or 1.5)
//     over the coarse cells around the edge.
// Not yet used by `heat`: the node CSR, the Dirichlet elimination and the output still take the
// host's fine mesh.
#include <cstdint>
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
};

// `coarse`: level K - 1 as load_mesh leaves it, with TopologyTables::all (every face's nodes and
// cells) and its geometry; `conductivity`: one value > 0 per coarse cell. Throws ss::Error naming
// the mesh for missing face tables or a conductivity count that is not the cell count.
GpuRefinedHeatTables gpu_refine_heat_tables(GpuBackend& gpu, const LoadedMesh& coarse, const std::vector<double>& conductivity,
                                            RefineNumbering numbering = RefineNumbering::interleaved);

// How the GPU's tables differ from the CPU twin's (`fine`: the refined mesh with its topology and
// geometry; `reference`: assemble_heat_operator on it).
struct RefinedHeatDifferences {
  bool sizes_match = true;
  std::int64_t wrong_edges = 0;  // GPU edges that are no fine edge, or one already produced
  double coefficients = 0;       // max |gpu - cpu| / max(K_aa, K_bb) over the edges
  double mass = 0;               // max |gpu - cpu| / cpu, per node
};
RefinedHeatDifferences compare_with_reference(GpuBackend& gpu, const GpuRefinedHeatTables& tables, const LoadedMesh& fine,
                                              const HeatOperatorData& reference);

}  // namespace ss
