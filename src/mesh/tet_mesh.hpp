#pragma once
// The mesh as read from a file: nodes, linear tetrahedra, boundary triangles and physical groups.
// A partition of a mesh (owned entities + one ghost layer) is just another TetMesh plus the
// local↔global maps in MeshPartition, so every layer above works on either.
#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <glm/vec3.hpp>

#include "mesh/boundary_surface.hpp"

namespace ss {

using NodeId = std::int32_t;
using Tet = std::array<NodeId, 4>;
using Triangle = std::array<NodeId, 3>;
// How far a tet corner sits from its node on a periodic mesh: a count of each periodic pair's offset
// (TetMesh::period_offsets), so the corner is at nodes[v] + sum_i shift[i] * period_offsets[i].
using PeriodShift = std::array<std::int8_t, 3>;

struct TetMesh {
  std::string source;                      // where it came from (file name), for messages
  std::vector<glm::dvec3> nodes;           // coordinates, 0-based ids
  std::vector<Tet> tets;                   // 4 node ids each
  std::vector<std::int32_t> tet_groups;    // physical volume group of each tet (0 = none)
  std::vector<Triangle> boundary_triangles;        // triangles listed in the file
  std::vector<std::int32_t> triangle_groups;       // physical surface group of each (0 = none)
  // Physical id -> name. Surface (triangle) and volume (tet) ids are separate name spaces: Gmsh
  // physical dimension 2 vs 3, Netgen bcnames vs materials; both may use the same numbers.
  std::map<std::int32_t, std::string> surface_group_names;
  std::map<std::int32_t, std::string> volume_group_names;
  // The file's own numbers (Gmsh node/element tags, Netgen 1-based row numbers), parallel to
  // nodes / tets / boundary_triangles, for messages a user can look up in the file. Empty when the
  // mesh was built in code (box mesh) or refined; renumbering permutes them with the entities.
  std::vector<std::int64_t> node_tags;
  std::vector<std::int64_t> tet_tags;
  std::vector<std::int64_t> triangle_tags;
  // Surfaces that boundary groups lie on (a case file's [[mesh.surface]]): refinement projects the
  // midpoints of those groups' edges onto them (mesh/boundary_surface.hpp). Empty: straight midpoints.
  std::vector<BoundarySurface> boundary_surfaces;
  // Periodic boundaries (mesh/periodic.hpp): each pair's second group was merged into its first, so
  // the mesh is a mesh of a torus and its topology needs nothing more. A tet corner that stood on a
  // second group keeps its place through a shift: corner k of tet t lies at
  // nodes[tets[t][k]] + sum_i corner_shifts[t][k][i] * period_offsets[i] (corner_position()).
  // Both empty on a mesh without periodic pairs; corner_shifts is parallel to tets otherwise.
  std::vector<glm::dvec3> period_offsets;              // one per pair, at most 3
  std::vector<std::array<PeriodShift, 4>> corner_shifts;
};

// The translation that a shift stands for (zero on a mesh without periodic pairs).
inline glm::dvec3 period_translation(const TetMesh& mesh, const PeriodShift& s) {
  glm::dvec3 x(0.0);
  for (std::size_t i = 0; i < mesh.period_offsets.size(); ++i) x += double(s[i]) * mesh.period_offsets[i];
  return x;
}
inline bool is_periodic(const TetMesh& mesh) { return !mesh.corner_shifts.empty(); }
// Where corner k of tet t lies: its node's position, moved by the corner's period shift.
inline glm::dvec3 corner_position(const TetMesh& mesh, std::size_t t, int k) {
  const glm::dvec3& x = mesh.nodes[std::size_t(mesh.tets[t][std::size_t(k)])];
  return is_periodic(mesh) ? x + period_translation(mesh, mesh.corner_shifts[t][std::size_t(k)]) : x;
}
inline void corner_positions(const TetMesh& mesh, std::size_t t, glm::dvec3 p[4]) {
  for (int k = 0; k < 4; ++k) p[k] = corner_position(mesh, t, k);
}
// Which corner of tet t node n is (n one of its corners).
inline int corner_of(const TetMesh& mesh, std::size_t t, NodeId n) {
  for (int k = 0; k < 3; ++k)
    if (mesh.tets[t][std::size_t(k)] == n) return k;
  return 3;
}
// The position of node n as tet t sees it (n one of its corners).
inline glm::dvec3 node_position_in_tet(const TetMesh& mesh, std::size_t t, NodeId n) {
  return corner_position(mesh, t, corner_of(mesh, t, n));
}
// How far tet u sees node n moved from where tet t sees it (n a corner of both), in whole periods.
inline glm::dvec3 node_jump(const TetMesh& mesh, std::size_t t, std::size_t u, NodeId n) {
  if (!is_periodic(mesh)) return glm::dvec3(0.0);
  const PeriodShift &a = mesh.corner_shifts[t][std::size_t(corner_of(mesh, t, n))],
                    &b = mesh.corner_shifts[u][std::size_t(corner_of(mesh, u, n))];
  return period_translation(mesh, {std::int8_t(b[0] - a[0]), std::int8_t(b[1] - a[1]), std::int8_t(b[2] - a[2])});
}

// One rank's piece of a partitioned mesh: `mesh` holds the owned tets first, then one ghost layer;
// nodes likewise (owned first). The maps give each local entity's id in the global mesh.
struct MeshPartition {
  TetMesh mesh;
  std::vector<std::int64_t> node_global;  // local node id -> global node id
  std::vector<std::int64_t> tet_global;   // local tet id  -> global tet id
  std::int32_t owned_nodes = 0;
  std::int32_t owned_tets = 0;
};

}  // namespace ss

namespace ss {
enum class GroupKind { surface, volume };

// "name" if the group has one, otherwise "surface group <id>" / "volume group <id>" — for
// messages and reports.
std::string group_label(const TetMesh& mesh, GroupKind kind, std::int32_t id);
inline std::string surface_group_label(const TetMesh& m, std::int32_t id) { return group_label(m, GroupKind::surface, id); }
inline std::string volume_group_label(const TetMesh& m, std::int32_t id) { return group_label(m, GroupKind::volume, id); }

// User-facing names of entities: the file's tags when the mesh has them, else 0-based ids marked
// as such.  tet_label: "tet 1234" or "tet #17 (0-based)";  nodes_label: "nodes 5 77 77 90" or
// "nodes #3 #9 #9 #12 (0-based)";  triangle_label: "triangle 88" or "triangle #3 (0-based)".
std::string tet_label(const TetMesh& mesh, std::int64_t tet);
std::string triangle_label(const TetMesh& mesh, std::int64_t triangle);
std::string nodes_label(const TetMesh& mesh, const NodeId* ids, int count);
// "tet 1234 (nodes 5 77 77 90)" or "tet #17 (0-based; nodes #3 #9 #9 #12)"
std::string tet_with_nodes(const TetMesh& mesh, std::int64_t tet);
}  // namespace ss
