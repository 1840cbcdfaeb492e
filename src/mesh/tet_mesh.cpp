#include "mesh/tet_mesh.hpp"

namespace ss {

std::string group_label(const TetMesh& mesh, GroupKind kind, std::int32_t id) {
  const auto& names = kind == GroupKind::surface ? mesh.surface_group_names : mesh.volume_group_names;
  auto it = names.find(id);
  if (it != names.end() && !it->second.empty()) return it->second;
  return (kind == GroupKind::surface ? "surface group " : "volume group ") + std::to_string(id);
}

std::string tet_label(const TetMesh& mesh, std::int64_t tet) {
  if (tet >= 0 && static_cast<std::size_t>(tet) < mesh.tet_tags.size())
    return "tet " + std::to_string(mesh.tet_tags[static_cast<std::size_t>(tet)]);
  return "tet #" + std::to_string(tet) + " (0-based)";
}

std::string triangle_label(const TetMesh& mesh, std::int64_t triangle) {
  if (triangle >= 0 && static_cast<std::size_t>(triangle) < mesh.triangle_tags.size())
    return "triangle " + std::to_string(mesh.triangle_tags[static_cast<std::size_t>(triangle)]);
  return "triangle #" + std::to_string(triangle) + " (0-based)";
}

namespace {
bool all_tagged(const TetMesh& mesh, const NodeId* ids, int count) {
  // Tags only when every id is in range (an out-of-range id is shown as the raw number).
  bool tagged = !mesh.node_tags.empty();
  for (int i = 0; i < count && tagged; ++i)
    tagged = ids[i] >= 0 && static_cast<std::size_t>(ids[i]) < mesh.node_tags.size();
  return tagged;
}
std::string node_list(const TetMesh& mesh, const NodeId* ids, int count, bool tagged) {
  std::string s = "nodes";
  for (int i = 0; i < count; ++i)
    s += tagged ? " " + std::to_string(mesh.node_tags[static_cast<std::size_t>(ids[i])]) : " #" + std::to_string(ids[i]);
  return s;
}
}  // namespace

std::string nodes_label(const TetMesh& mesh, const NodeId* ids, int count) {
  const bool tagged = all_tagged(mesh, ids, count);
  return node_list(mesh, ids, count, tagged) + (tagged ? "" : " (0-based)");
}

std::string tet_with_nodes(const TetMesh& mesh, std::int64_t tet) {
  const NodeId* ids = mesh.tets[static_cast<std::size_t>(tet)].data();
  const bool tagged = all_tagged(mesh, ids, 4);
  if (static_cast<std::size_t>(tet) < mesh.tet_tags.size())
    return "tet " + std::to_string(mesh.tet_tags[static_cast<std::size_t>(tet)]) + " (" + nodes_label(mesh, ids, 4) + ")";
  return "tet #" + std::to_string(tet) + " (0-based; " + node_list(mesh, ids, 4, tagged) + ")";
}

}  // namespace ss
