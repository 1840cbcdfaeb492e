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

namespace ss {

using NodeId = std::int32_t;
using Tet = std::array<NodeId, 4>;
using Triangle = std::array<NodeId, 3>;

struct TetMesh {
  std::string source;                      // where it came from (file name), for messages
  std::vector<glm::dvec3> nodes;           // coordinates, 0-based ids
  std::vector<Tet> tets;                   // 4 node ids each
  std::vector<std::int32_t> tet_groups;    // physical volume group of each tet (0 = none)
  std::vector<Triangle> boundary_triangles;        // triangles listed in the file
  std::vector<std::int32_t> triangle_groups;       // physical surface group of each (0 = none)
  std::map<std::int32_t, std::string> group_names; // physical id -> name, surface and volume groups
};

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
// "name" if the group has one, otherwise "group <id>" — for messages and reports.
std::string group_label(const TetMesh& mesh, std::int32_t id);
}  // namespace ss
