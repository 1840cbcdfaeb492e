#include "mesh/boundary_surface.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <sstream>

#include <glm/geometric.hpp>

#include "mesh/tet_mesh.hpp"
#include "util/error.hpp"

namespace ss {

const char* surface_shape_name(SurfaceShape shape) {
  switch (shape) {
    case SurfaceShape::cylinder: return "cylinder";
    case SurfaceShape::sphere: return "sphere";
    case SurfaceShape::plane: return "plane";
  }
  return "?";
}

BoundarySurface make_boundary_surface(SurfaceShape shape, std::string group, const glm::dvec3& point,
                                      const glm::dvec3& direction, double radius, std::string where) {
  BoundarySurface s;
  s.shape = shape;
  s.group = std::move(group);
  s.where = std::move(where);
  s.point = point;
  SS_REQUIRE(std::isfinite(point.x) && std::isfinite(point.y) && std::isfinite(point.z),
             s.where << ": [[mesh.surface]] " << (shape == SurfaceShape::sphere ? "center" : "point") << " must be finite");
  if (shape != SurfaceShape::plane) {
    SS_REQUIRE(std::isfinite(radius) && radius > 0.0,
               s.where << ": [[mesh.surface]] radius must be positive (got " << radius << ")");
    s.radius = radius;
  }
  if (shape != SurfaceShape::sphere) {
    const double length = glm::length(direction);
    SS_REQUIRE(std::isfinite(length) && length > 0.0,
               s.where << ": [[mesh.surface]] " << (shape == SurfaceShape::cylinder ? "axis" : "normal")
                       << " must be a nonzero vector");
    s.direction = direction / length;
  }
  return s;
}

glm::dvec3 project_onto(const BoundarySurface& s, const glm::dvec3& p) {
  switch (s.shape) {
    case SurfaceShape::cylinder: {
      const glm::dvec3 q = s.point + glm::dot(p - s.point, s.direction) * s.direction;
      const double r = glm::length(p - q);
      return r > 0.0 ? q + (s.radius / r) * (p - q) : p;
    }
    case SurfaceShape::sphere: {
      const double r = glm::length(p - s.point);
      return r > 0.0 ? s.point + (s.radius / r) * (p - s.point) : p;
    }
    case SurfaceShape::plane: return p - glm::dot(p - s.point, s.direction) * s.direction;
  }
  return p;
}

void attach_boundary_surfaces(TetMesh& mesh, std::vector<BoundarySurface> surfaces) {
  SS_REQUIRE(surfaces.size() <= size_t(kMaxBoundarySurfaces),
             surfaces.back().where << ": at most " << kMaxBoundarySurfaces << " [[mesh.surface]] entries");
  std::vector<std::int32_t> present = mesh.triangle_groups;
  std::sort(present.begin(), present.end());
  present.erase(std::unique(present.begin(), present.end()), present.end());
  const auto has = [&](std::int32_t id) { return std::binary_search(present.begin(), present.end(), id); };
  for (BoundarySurface& s : surfaces) {
    std::int32_t found = -1;
    for (const auto& [id, name] : mesh.surface_group_names)
      if (name == s.group && has(id)) found = id;
    std::int32_t id = 0;
    const auto [end, error] = std::from_chars(s.group.data(), s.group.data() + s.group.size(), id);
    if (found < 0 && error == std::errc() && end == s.group.data() + s.group.size() && has(id)) found = id;
    if (found < 0) {
      std::ostringstream list;
      for (std::int32_t g : present) {
        const auto it = mesh.surface_group_names.find(g);
        list << (g == present.front() ? "" : ", ")
             << (it != mesh.surface_group_names.end() && !it->second.empty() ? it->second + " (" + std::to_string(g) + ")"
                                                                              : std::to_string(g));
      }
      SS_THROW(s.where << ": [[mesh.surface]] group '" << s.group << "' is no boundary group of " << mesh.source
                       << "; it has " << (present.empty() ? std::string("none") : list.str()));
    }
    s.group_id = found;
  }
  mesh.boundary_surfaces = std::move(surfaces);
}

}  // namespace ss
