#pragma once
// Boundary kinds for flow operator tests: every kind on one mesh.
#include <vector>

#include "mesh/load_mesh.hpp"
#include "operators/flow_operators.hpp"

namespace ss::test {

// Faces of the mesh's first surface group are outlets (with_outlet), slip on every fifth face, the
// rest prescribe the velocity.
inline std::vector<FlowBoundaryKind> mixed_boundary_kinds(const LoadedMesh& m, bool with_outlet) {
  std::vector<FlowBoundaryKind> kinds;
  const std::int32_t first = m.mesh.surface_group_names.begin()->first;
  for (size_t k = 0; k < m.topology.boundary_faces.size(); ++k) {
    const std::int32_t g = m.topology.face_groups[size_t(m.topology.boundary_faces[k])];
    if (with_outlet && g == first) kinds.push_back(FlowBoundaryKind::pressure);
    else kinds.push_back(k % 5 == 0 ? FlowBoundaryKind::slip : FlowBoundaryKind::velocity);
  }
  return kinds;
}

}  // namespace ss::test
