#include "mesh/box_mesh.hpp"

#include <utility>

#include "util/error.hpp"

namespace ss {

TetMesh make_box_mesh(int nx, int ny, int nz, glm::dvec3 extent) {
  SS_REQUIRE(nx > 0 && ny > 0 && nz > 0, "box mesh needs positive cell counts, got " << nx << " x " << ny << " x " << nz);
  SS_REQUIRE(extent.x > 0 && extent.y > 0 && extent.z > 0, "box mesh needs a positive extent");
  TetMesh mesh;
  mesh.source = "box(" + std::to_string(nx) + "x" + std::to_string(ny) + "x" + std::to_string(nz) + ")";
  const int n[3] = {nx, ny, nz};
  auto node = [&](int i, int j, int k) { return static_cast<NodeId>((k * (ny + 1) + j) * (nx + 1) + i); };
  mesh.nodes.reserve(static_cast<size_t>(nx + 1) * (ny + 1) * (nz + 1));
  for (int k = 0; k <= nz; ++k)
    for (int j = 0; j <= ny; ++j)
      for (int i = 0; i <= nx; ++i)
        mesh.nodes.emplace_back(extent.x * i / nx, extent.y * j / ny, extent.z * k / nz);
  // Kuhn tets: walk from corner (0,0,0) to (1,1,1) adding one unit step per axis in the order of
  // a permutation; odd permutations give negatively oriented tets, fixed by swapping two nodes.
  const int perms[6][3] = {{0, 1, 2}, {1, 2, 0}, {2, 0, 1}, {0, 2, 1}, {2, 1, 0}, {1, 0, 2}};
  mesh.tets.reserve(static_cast<size_t>(6) * nx * ny * nz);
  for (int k = 0; k < nz; ++k)
    for (int j = 0; j < ny; ++j)
      for (int i = 0; i < nx; ++i)
        for (int p = 0; p < 6; ++p) {
          int c[3] = {i, j, k};
          Tet t;
          t[0] = node(c[0], c[1], c[2]);
          for (int s = 0; s < 3; ++s) {
            ++c[perms[p][s]];
            t[s + 1] = node(c[0], c[1], c[2]);
          }
          if (p >= 3) std::swap(t[2], t[3]);
          mesh.tets.push_back(t);
        }
  mesh.tet_groups.assign(mesh.tets.size(), 7);
  // Boundary quads, each cut along the diagonal from its low corner to its high corner (the Kuhn
  // face diagonal), triangles ordered with outward normals.
  for (int axis = 0; axis < 3; ++axis) {
    const int u = (axis + 1) % 3, v = (axis + 2) % 3;
    for (int side = 0; side < 2; ++side) {
      const std::int32_t group = 1 + 2 * axis + side;
      for (int b = 0; b < n[v]; ++b)
        for (int a = 0; a < n[u]; ++a) {
          auto corner = [&](int da, int db) {
            int c[3];
            c[axis] = side * n[axis];
            c[u] = a + da;
            c[v] = b + db;
            return node(c[0], c[1], c[2]);
          };
          NodeId p00 = corner(0, 0), p10 = corner(1, 0), p11 = corner(1, 1), p01 = corner(0, 1);
          // (u, v, axis) is right-handed, so counter-clockwise in (u, v) points to +axis.
          if (side == 1) {
            mesh.boundary_triangles.push_back({p00, p10, p11});
            mesh.boundary_triangles.push_back({p00, p11, p01});
          } else {
            mesh.boundary_triangles.push_back({p00, p11, p10});
            mesh.boundary_triangles.push_back({p00, p01, p11});
          }
          mesh.triangle_groups.push_back(group);
          mesh.triangle_groups.push_back(group);
        }
    }
  }
  const char* names[6] = {"xmin", "xmax", "ymin", "ymax", "zmin", "zmax"};
  for (int g = 0; g < 6; ++g) mesh.surface_group_names[g + 1] = names[g];
  mesh.volume_group_names[7] = "volume";
  return mesh;
}

}  // namespace ss
