#pragma once
// The project's meshes (meshes/*.msh) loaded once per test program, optionally refined.
// "cylinder_hole.msh" is tests/data/surface's block with a cylindrical hole, loaded with its hole
// declared as a boundary surface (cylinder_hole_surface: refinement puts new hole nodes on it).
#include <map>
#include <memory>
#include <string>

#include "mesh/load_mesh.hpp"

namespace ss::test {

// The hole of tests/data/surface/cylinder_hole.geo: radius 0.1, axis along z through (0.2, 0.2).
inline BoundarySurface cylinder_hole_surface() {
  return make_boundary_surface(SurfaceShape::cylinder, "cylinder", {0.2, 0.2, 0.0}, {0.0, 0.0, 1.0}, 0.1, "test");
}

inline const LoadedMesh& project_mesh(const std::string& file, int refine = 0) {
  static std::map<std::string, std::unique_ptr<LoadedMesh>> cache;
  auto& slot = cache[file + "#" + std::to_string(refine)];
  if (!slot) {
    LoadOptions load;
    load.refine = refine;
    std::string path = std::string(SS_SOURCE_DIR) + "/meshes/" + file;
    if (file == "cylinder_hole.msh") {
      path = std::string(SS_SOURCE_DIR) + "/tests/data/surface/" + file;
      load.surfaces = {cylinder_hole_surface()};
    }
    slot = std::make_unique<LoadedMesh>(load_mesh(path, load));
  }
  return *slot;
}

}  // namespace ss::test
