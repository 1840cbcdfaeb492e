#include "mesh/mesh_groups.hpp"

#include <algorithm>
#include <charconv>
#include <map>
#include <sstream>

#include "util/error.hpp"

namespace ss {
namespace {

std::string list_groups(const std::map<std::int32_t, std::string>& names, const std::vector<std::int32_t>& ids) {
  std::ostringstream s;
  bool first = true;
  for (std::int32_t id : ids) {
    auto it = names.find(id);
    s << (first ? "" : ", ") << (it != names.end() && !it->second.empty() ? it->second + " (" + std::to_string(id) + ")"
                                                                           : std::to_string(id));
    first = false;
  }
  return s.str();
}

std::int32_t resolve_group(const std::map<std::int32_t, std::string>& names, const std::vector<std::int32_t>& present,
                           const std::string& spec, const std::string& where, const char* kind) {
  for (const auto& [id, name] : names)
    if (name == spec && std::count(present.begin(), present.end(), id)) return id;
  std::int32_t id = 0;
  const auto [end, error] = std::from_chars(spec.data(), spec.data() + spec.size(), id);
  if (error == std::errc() && end == spec.data() + spec.size() && std::count(present.begin(), present.end(), id))
    return id;
  SS_THROW(where << ": unknown " << kind << " group '" << spec << "'; the mesh has " << list_groups(names, present));
}

std::vector<std::int32_t> sorted_unique(std::vector<std::int32_t> ids) {
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  return ids;
}

}  // namespace

std::vector<std::int32_t> present_surface_groups(const LoadedMesh& m) {
  std::vector<std::int32_t> ids;
  for (std::int32_t f : m.topology.boundary_faces) ids.push_back(m.topology.face_groups[size_t(f)]);
  return sorted_unique(std::move(ids));
}

std::vector<std::int32_t> present_volume_groups(const TetMesh& m) { return sorted_unique(m.tet_groups); }

PresentGroups present_groups(const LoadedMesh& mesh) {
  return {present_surface_groups(mesh), present_volume_groups(mesh.mesh)};
}

std::int32_t resolve_surface_group(const LoadedMesh& mesh, const std::string& spec, const std::string& where,
                                   const PresentGroups* present) {
  return resolve_group(mesh.mesh.surface_group_names, present ? present->surface : present_surface_groups(mesh), spec,
                       where, "boundary");
}

std::int32_t resolve_volume_group(const TetMesh& mesh, const std::string& spec, const std::string& where,
                                  const PresentGroups* present) {
  return resolve_group(mesh.volume_group_names, present ? present->volume : present_volume_groups(mesh), spec, where,
                       "volume");
}

}  // namespace ss
