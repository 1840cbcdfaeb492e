#pragma once
// Curved boundaries that refine: a case file's [[mesh.surface]] says that the triangles of one
// boundary group lie on a cylinder, a sphere or a plane. Refinement (mesh/refine.hpp) then puts the
// midpoint of every edge of such a triangle on the surface (its closest point) instead of on the
// straight edge, so refined meshes converge to the curved boundary, not to the file's polygon.
//
// The projection is a pure function of the midpoint's coordinates and the surface, so pieces of a
// partition refined apart (parallel/lattice_refinement.hpp) make the serial refinement's nodes bit
// for bit.
#include <cstdint>
#include <string>
#include <vector>

#include <glm/vec3.hpp>

namespace ss {

struct TetMesh;

enum class SurfaceShape : std::int32_t { cylinder, sphere, plane };

struct BoundarySurface {
  SurfaceShape shape = SurfaceShape::plane;
  std::string group;          // the boundary group as written (a name or a number)
  std::int32_t group_id = 0;  // its id in the mesh (attach_boundary_surfaces)
  glm::dvec3 point{0.0};      // cylinder: a point on the axis; sphere: the centre; plane: a point on it
  glm::dvec3 direction{0.0};  // cylinder: the axis; plane: the normal (unit length: make_boundary_surface)
  double radius = 0.0;        // cylinder and sphere
  std::string where;          // where it was declared ("case.toml:12"), for messages
};

// At most this many surfaces per mesh (one bit each in an edge's mask).
inline constexpr int kMaxBoundarySurfaces = 32;

// A surface with its direction normalised; throws "<where>: ..." for a radius that is not positive
// and finite or a zero (or non-finite) axis or normal.
BoundarySurface make_boundary_surface(SurfaceShape shape, std::string group, const glm::dvec3& point,
                                      const glm::dvec3& direction, double radius, std::string where);

// The closest point of the surface to p:
//   cylinder: q = c + ((p−c)·a) a,  x = q + R (p−q)/|p−q|   (p on the axis: p itself)
//   sphere:   x = c + R (p−c)/|p−c|                          (p at the centre: p itself)
//   plane:    x = p − ((p−o)·n) n
glm::dvec3 project_onto(const BoundarySurface& surface, const glm::dvec3& p);

// "cylinder", "sphere", "plane".
const char* surface_shape_name(SurfaceShape shape);

// Resolves each surface's group against the mesh's boundary triangles (a name or a number, as in
// [[boundary]]) and stores the surfaces in mesh.boundary_surfaces. Throws "<where>: [[mesh.surface]]
// group 'x' is no boundary group of <mesh file>; it has inlet (1), walls (2)" for an unknown group.
void attach_boundary_surfaces(TetMesh& mesh, std::vector<BoundarySurface> surfaces);

}  // namespace ss
