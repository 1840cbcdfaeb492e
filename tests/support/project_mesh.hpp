#pragma once
// The project's meshes (meshes/*.msh) loaded once per test program, optionally refined.
#include <map>
#include <memory>
#include <string>

#include "mesh/load_mesh.hpp"

namespace ss::test {

inline const LoadedMesh& project_mesh(const std::string& file, int refine = 0) {
  static std::map<std::string, std::unique_ptr<LoadedMesh>> cache;
  auto& slot = cache[file + "#" + std::to_string(refine)];
  if (!slot) slot = std::make_unique<LoadedMesh>(load_mesh(std::string(SS_SOURCE_DIR) + "/meshes/" + file, refine));
  return *slot;
}

}  // namespace ss::test
