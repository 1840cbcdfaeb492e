#pragma once
// The finest level's uniform refinement and per-cell geometry on the GPU : the
// coarse level's tables go up, the fine mesh is made in textures and never needs to exist in host
// memory. The CPU twin is refine_once + compute_geometry (mesh/refine.hpp, mesh/geometry.hpp):
//   - connectivity: identical. The one coordinate-dependent choice, how each coarse tet is cut
//     (refine_cut: the octahedron's diagonal, the children's orientation), is made on the host in
//     double per coarse cell and uploaded as one int per cell; the kernels do integer work.
//   - coordinates: midpoints in GLSL fp64 from the coarse level's exact doubles, rounded to float;
//   - volumes: V/8 of the parent (the eight children of a red refinement have equal volumes);
//   - centroids: the mean of the child's corners in GLSL fp64, rounded to float.
// GLSL fp64 is only promised to be as precise as fp32: volumes and squared lengths computed in it on
// the GPU side can be ~1e-7 relative, too coarse to reproduce the host's cuts.
#include <cstdint>
#include <vector>

#include "field/field.hpp"
#include "kernels/gpu_backend.hpp"
#include "mesh/refine.hpp"
#include "mesh/tet_mesh.hpp"
#include "mesh/topology.hpp"

namespace ss {

struct GpuRefinedMesh {
  std::int64_t num_nodes = 0, num_cells = 0;
  Field x, y, z;              // fine node coordinates
  IndexField cell_nodes;      // 4 per fine cell; the children of coarse cell c are cells 8c .. 8c + 7
  Field cell_volumes;         // > 0
  Field centroid_x, centroid_y, centroid_z;
};

// Level K - 1's tables on the GPU as the refinement kernels read them (shaders/refine_children.glsl):
// coordinates as exact doubles, cells, their edges, edge ends, the interleaved numbering's offsets,
// and per cell how it is cut (refine_cut, decided on the host) and V/8, each child's volume.
struct GpuCoarseLevel {
  IndexField coordinates, cells, cell_edges, edge_nodes, low_node_offsets, cuts;
  Field volumes_eighth;
  std::vector<std::int32_t> cut_codes;  // the host's copy of `cuts`
  std::vector<KernelUniform> uniforms;  // coarse_nodes, interleaved
  std::vector<KernelInput> inputs() const;
};
// `topo`: the coarse mesh's topology with at least TopologyTables::edges. Throws ss::Error when the
// topology is another mesh's, or the fine level would exceed the 32-bit tables.
GpuCoarseLevel upload_coarse_level(GpuBackend& gpu, const TetMesh& coarse, const Topology& topo, RefineNumbering numbering);

// One refinement of `coarse` (oriented tets, as load_mesh leaves them) numbered as `numbering`
// says. `topo` is the coarse mesh's topology with at least TopologyTables::edges. Throws ss::Error
// when the fine tables do not fit the device's textures.
GpuRefinedMesh gpu_refine_once(GpuBackend& gpu, const TetMesh& coarse, const Topology& topo,
                               RefineNumbering numbering = RefineNumbering::interleaved);
GpuRefinedMesh gpu_refine_once(GpuBackend& gpu, const GpuCoarseLevel& coarse, std::int64_t coarse_edges);

// How a GPU refinement differs from the CPU twin's fine mesh (refine_once's result; volumes and
// centroids computed from it in double as compute_geometry does).
struct RefinementDifferences {
  std::int64_t wrong_corners = 0;     // (cell, corner) pairs whose node differs
  std::int64_t first_wrong_cell = -1;
  double coordinates = 0;  // max |gpu - cpu| / (largest |coordinate| of the mesh)
  double volumes = 0;      // max |gpu - cpu| / cpu volume, per cell
  double centroids = 0;    // max |gpu - cpu| / (largest |coordinate| of the mesh)
  // Values that are not the CPU's double rounded to float: coordinates, volumes, centroids.
  std::int64_t inexact_coordinates = 0, inexact_volumes = 0, inexact_centroids = 0;
  std::int64_t inexact() const { return inexact_coordinates + inexact_volumes + inexact_centroids; }
  bool sizes_match = true;
};
RefinementDifferences compare_with_reference(GpuBackend& gpu, const GpuRefinedMesh& fine, const TetMesh& reference);

}  // namespace ss
