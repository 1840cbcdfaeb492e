#include "mesh/tet_mesh.hpp"

namespace ss {

std::string group_label(const TetMesh& mesh, std::int32_t id) {
  auto it = mesh.group_names.find(id);
  if (it != mesh.group_names.end() && !it->second.empty()) return it->second;
  return "group " + std::to_string(id);
}

}  // namespace ss
