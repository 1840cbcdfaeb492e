#pragma once
// Structured tetrahedral meshes of a box, built in code (tests, benchmarks, examples).
#include <glm/vec3.hpp>

#include "mesh/tet_mesh.hpp"

namespace ss {

// Box [0, extent] split into nx*ny*nz hexahedra, each cut into 6 tets along its (0,0,0)-(1,1,1)
// diagonal (Kuhn subdivision: translation invariant, so neighbouring hexes' faces match). Tets are
// positively oriented. Boundary triangles in six named groups: 1 xmin, 2 xmax, 3 ymin, 4 ymax,
// 5 zmin, 6 zmax; all tets in group 7 "volume".
TetMesh make_box_mesh(int nx, int ny, int nz, glm::dvec3 extent = glm::dvec3(1.0));

}  // namespace ss
