#pragma once
// The cut of a tet mesh by a plane, in the plane's own 2D coordinates (CPU, double): each tet the
// plane crosses gives a triangle or a quadrilateral carrying the linearly interpolated nodal
// values, and each boundary triangle it crosses gives a segment of the outline.
#include <cstdint>
#include <string>
#include <vector>

#include <glm/vec2.hpp>
#include <glm/vec3.hpp>

#include "mesh/load_mesh.hpp"

namespace ss {

// A plane with in-plane axes: a point p has plane coordinates (dot(p, u), dot(p, v)) and lies
// dot(p - origin, normal) off the plane. u is the picture's horizontal axis, v its vertical one.
struct SlicePlane {
  glm::dvec3 origin, normal, u, v;
  std::string u_name, v_name;  // "x", "y" or "z" for axis-aligned planes, else the axis direction

  glm::dvec2 to_plane(const glm::dvec3& p) const;
  glm::dvec3 to_space(const glm::dvec2& q) const;  // the point of the plane with coordinates q
  std::string describe() const;                     // "y = 0.5" or "through (..) normal (..)"
};

// normal is normalized; zero or non-finite is an ss::Error. Axes: normal ±y: u = x, v = z;
// ±z: x, y; ±x: y, z; otherwise v is world z (y when the normal is near z) projected into the
// plane and u = v x normal, flipped so that its largest component is positive.
SlicePlane make_slice_plane(const glm::dvec3& origin, const glm::dvec3& normal);

struct SliceCut {
  std::vector<glm::dvec2> points;        // plane coordinates of the cut's vertices
  std::vector<double> values;            // the interpolated value at each point
  std::vector<glm::dvec2> vectors;       // with nodal vectors: their in-plane part at each point
  std::vector<std::uint32_t> triangles;  // 3 point indices each
  std::vector<glm::dvec2> outline;       // boundary outline: 2 end points per segment
  glm::dvec2 lo{0.0}, hi{0.0};           // bounding box of points and outline
};

// Cuts the mesh. Nodes exactly on the plane count as in front of it (so a face lying in the plane
// is drawn once, by the tet behind it); when that leaves nothing, as for a plane on a boundary
// face, they count as behind. nodal_vectors: empty, or one vector per node (interpolated like the
// values, then projected into the plane). Throws ss::Error when nodal_values or nodal_vectors has
// not one entry per node or the plane misses the mesh.
SliceCut cut_mesh(const LoadedMesh& mesh, const std::vector<double>& nodal_values, const SlicePlane& plane,
                  const std::vector<glm::dvec3>& nodal_vectors = {});

}  // namespace ss
