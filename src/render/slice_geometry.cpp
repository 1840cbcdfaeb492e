#include "render/slice_geometry.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include <glm/common.hpp>
#include <glm/geometric.hpp>

#include "util/error.hpp"

namespace ss {
namespace {

std::string format_vector(const glm::dvec3& p) {
  char buffer[96];
  auto c = [](double x) { return std::abs(x) < 1e-12 ? 0.0 : x; };  // no "-0" or round-off
  std::snprintf(buffer, sizeof buffer, "(%.3g, %.3g, %.3g)", c(p.x), c(p.y), c(p.z));
  return buffer;
}

// Which world axis (0, 1, 2) the unit vector n is, up to sign; -1 when it is none.
int axis_of(const glm::dvec3& n) {
  for (int k = 0; k < 3; ++k)
    if (std::abs(n[(k + 1) % 3]) < 1e-12 && std::abs(n[(k + 2) % 3]) < 1e-12) return k;
  return -1;
}

// Where the edge from a node behind the plane (distance db < 0) to one in front (df >= 0) meets it.
double crossing(double db, double df) { return db / (db - df); }

// The cut with nodes at distance `side` * d >= 0 in front of the plane. Appends to `cut`.
void cut_with_side(const LoadedMesh& loaded, const std::vector<double>& values, const std::vector<glm::dvec3>& vectors,
                   const SlicePlane& plane, double side, SliceCut& cut) {
  const TetMesh& mesh = loaded.mesh;
  std::vector<double> distance(mesh.nodes.size());
  for (std::size_t n = 0; n < mesh.nodes.size(); ++n) distance[n] = side * glm::dot(mesh.nodes[n] - plane.origin, plane.normal);

  // The points where edges from back nodes to front nodes cross the plane, in an order that goes
  // round the polygon: with two nodes on each side, (b0 f0), (b0 f1), (b1 f1), (b1 f0).
  auto crossings = [&](const std::int32_t* nodes, int count, auto&& emit) {
    std::int32_t back[4], front[4];
    int nb = 0, nf = 0;
    for (int i = 0; i < count; ++i) (distance[std::size_t(nodes[i])] < 0.0 ? back[nb++] : front[nf++]) = nodes[i];
    if (nb == 0 || nf == 0) return 0;
    int emitted = 0;
    for (int i = 0; i < nb; ++i)
      for (int j = 0; j < nf; ++j) {
        const std::int32_t f = front[nb == 2 && nf == 2 && i == 1 ? 1 - j : j];
        const std::size_t b = std::size_t(back[i]);
        emit(b, std::size_t(f), crossing(distance[b], distance[std::size_t(f)]));
        ++emitted;
      }
    return emitted;
  };

  for (const Tet& tet : mesh.tets) {
    const std::uint32_t first = std::uint32_t(cut.points.size());
    const int corners = crossings(tet.data(), 4, [&](std::size_t b, std::size_t f, double w) {
      cut.points.push_back(plane.to_plane(mesh.nodes[b] + w * (mesh.nodes[f] - mesh.nodes[b])));
      cut.values.push_back(values[b] + w * (values[f] - values[b]));
      if (!vectors.empty()) {
        const glm::dvec3 u = vectors[b] + w * (vectors[f] - vectors[b]);
        cut.vectors.push_back({glm::dot(u, plane.u), glm::dot(u, plane.v)});
      }
    });
    for (int k = 1; k + 1 < corners; ++k) cut.triangles.insert(cut.triangles.end(), {first, first + std::uint32_t(k), first + std::uint32_t(k + 1)});
  }
  for (std::int32_t face : loaded.topology.boundary_faces) {
    glm::dvec2 ends[2];
    int n = 0;
    crossings(loaded.topology.face_nodes[std::size_t(face)].data(), 3, [&](std::size_t b, std::size_t f, double w) {
      ends[n++] = plane.to_plane(mesh.nodes[b] + w * (mesh.nodes[f] - mesh.nodes[b]));
    });
    if (n == 2 && ends[0] != ends[1]) cut.outline.insert(cut.outline.end(), {ends[0], ends[1]});
  }
}

}  // namespace

glm::dvec2 SlicePlane::to_plane(const glm::dvec3& p) const { return {glm::dot(p, u), glm::dot(p, v)}; }

glm::dvec3 SlicePlane::to_space(const glm::dvec2& q) const { return q.x * u + q.y * v + glm::dot(origin, normal) * normal; }

std::string SlicePlane::describe() const {
  const int axis = axis_of(normal);
  if (axis >= 0) {
    char buffer[64];
    const double at = origin[axis] == 0.0 ? 0.0 : origin[axis];
    std::snprintf(buffer, sizeof buffer, "%c = %.4g", "xyz"[axis], at);
    return buffer;
  }
  return "plane through " + format_vector(origin) + ", normal " + format_vector(normal);
}

SlicePlane make_slice_plane(const glm::dvec3& origin, const glm::dvec3& normal) {
  const double length = glm::length(normal);
  SS_REQUIRE(length > 0.0 && std::isfinite(length), "slice plane normal " << format_vector(normal) << " has no direction");
  SS_REQUIRE(std::isfinite(glm::dot(origin, origin)), "slice plane origin " << format_vector(origin) << " is not finite");
  SlicePlane plane;
  plane.origin = origin;
  plane.normal = normal / length;
  const glm::dvec3 x(1, 0, 0), y(0, 1, 0), z(0, 0, 1);
  switch (axis_of(plane.normal)) {
    case 0: plane.u = y, plane.v = z, plane.u_name = "y", plane.v_name = "z"; break;
    case 1: plane.u = x, plane.v = z, plane.u_name = "x", plane.v_name = "z"; break;
    case 2: plane.u = x, plane.v = y, plane.u_name = "x", plane.v_name = "y"; break;
    default: {
      const glm::dvec3 up = std::abs(plane.normal.z) < 0.9 ? z : y;
      plane.v = glm::normalize(up - glm::dot(up, plane.normal) * plane.normal);
      plane.u = glm::cross(plane.v, plane.normal);
      int largest = 0;
      for (int k = 1; k < 3; ++k)
        if (std::abs(plane.u[k]) > std::abs(plane.u[largest])) largest = k;
      if (plane.u[largest] < 0) plane.u = -plane.u;
      plane.u_name = format_vector(plane.u);
      plane.v_name = format_vector(plane.v);
    }
  }
  return plane;
}

SliceCut cut_mesh(const LoadedMesh& loaded, const std::vector<double>& nodal_values, const SlicePlane& plane,
                  const std::vector<glm::dvec3>& nodal_vectors) {
  const TetMesh& mesh = loaded.mesh;
  SS_REQUIRE(nodal_values.size() == mesh.nodes.size(), "cannot draw the slice: " << nodal_values.size() << " values for "
                                                                                << mesh.nodes.size() << " mesh nodes");
  SS_REQUIRE(nodal_vectors.empty() || nodal_vectors.size() == mesh.nodes.size(),
             "cannot draw the slice's arrows: " << nodal_vectors.size() << " vectors for " << mesh.nodes.size() << " mesh nodes");
  SliceCut cut;
  cut_with_side(loaded, nodal_values, nodal_vectors, plane, 1.0, cut);
  if (cut.triangles.empty()) {  // the plane may lie on a boundary face: take it from the other side
    cut = SliceCut();
    cut_with_side(loaded, nodal_values, nodal_vectors, plane, -1.0, cut);
  }
  if (cut.triangles.empty()) {
    double lo = std::numeric_limits<double>::max(), hi = -lo;
    for (const glm::dvec3& p : mesh.nodes) {
      lo = std::min(lo, glm::dot(p, plane.normal));
      hi = std::max(hi, glm::dot(p, plane.normal));
    }
    SS_THROW("slice plane " << plane.describe() << " misses the mesh " << (mesh.source.empty() ? "" : mesh.source + " ")
                            << "(along the normal the mesh spans " << lo << " .. " << hi << ", the plane is at "
                            << glm::dot(plane.origin, plane.normal) << ")");
  }
  cut.lo = glm::dvec2(std::numeric_limits<double>::max());
  cut.hi = -cut.lo;
  for (const auto* list : {&cut.points, &cut.outline})
    for (const glm::dvec2& q : *list) cut.lo = glm::min(cut.lo, q), cut.hi = glm::max(cut.hi, q);
  return cut;
}

}  // namespace ss
