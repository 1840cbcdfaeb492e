#include "mesh/periodic.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <map>
#include <sstream>
#include <unordered_map>

#include <glm/geometric.hpp>

#include "mesh/topology.hpp"
#include "util/error.hpp"

namespace ss {
namespace {

using i32 = std::int32_t;
using i64 = std::int64_t;

std::string point_text(const glm::dvec3& x) {
  std::ostringstream s;
  s.precision(10);
  s << "(" << x.x << ", " << x.y << ", " << x.z << ")";
  return s.str();
}

// The id of a boundary group written as a name or a number, or a one-line error listing the groups.
i32 resolve_group(const TetMesh& mesh, const std::string& group, const std::string& where) {
  std::vector<i32> present = mesh.triangle_groups;
  std::sort(present.begin(), present.end());
  present.erase(std::unique(present.begin(), present.end()), present.end());
  const auto has = [&](i32 id) { return std::binary_search(present.begin(), present.end(), id); };
  for (const auto& [id, name] : mesh.surface_group_names)
    if (name == group && has(id)) return id;
  i32 id = 0;
  const auto [end, error] = std::from_chars(group.data(), group.data() + group.size(), id);
  if (error == std::errc() && end == group.data() + group.size() && has(id)) return id;
  std::ostringstream list;
  for (i32 g : present) list << (g == present.front() ? "" : ", ") << group_label(mesh, GroupKind::surface, g);
  SS_THROW(where << ": [[mesh.periodic]] group '" << group << "' is no boundary group of " << mesh.source << "; it has "
                 << (present.empty() ? std::string("none") : list.str()));
}

// The nodes of a group's triangles, ascending, and the shortest edge of those triangles.
std::vector<NodeId> group_nodes(const TetMesh& mesh, i32 group, double& shortest_edge) {
  std::vector<NodeId> nodes;
  for (size_t i = 0; i < mesh.boundary_triangles.size(); ++i) {
    if (mesh.triangle_groups[i] != group) continue;
    const Triangle& t = mesh.boundary_triangles[i];
    for (int k = 0; k < 3; ++k) {
      nodes.push_back(t[size_t(k)]);
      const double length = glm::length(mesh.nodes[size_t(t[size_t(k)])] - mesh.nodes[size_t(t[size_t((k + 1) % 3)])]);
      if (length > 0) shortest_edge = std::min(shortest_edge, length);  // (a degenerate triangle fails later)
    }
  }
  std::sort(nodes.begin(), nodes.end());
  nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
  return nodes;
}

// Nodes by the cell of a grid of spacing h they lie in: finds a node within tol < h of a point.
class NodeGrid {
 public:
  NodeGrid(const TetMesh& mesh, const std::vector<NodeId>& nodes, double h) : mesh_(mesh), h_(h) {
    for (NodeId n : nodes) cells_[key(cell_of(mesh.nodes[size_t(n)]))].push_back(n);
  }
  // The node nearest x within tol, or -1.
  NodeId find(const glm::dvec3& x, double tol) const {
    if (!(std::isfinite(x.x) && std::isfinite(x.y) && std::isfinite(x.z))) return -1;
    const std::array<i64, 3> c = cell_of(x);
    NodeId best = -1;
    double best_d = tol;
    for (i64 dx = -1; dx <= 1; ++dx)
      for (i64 dy = -1; dy <= 1; ++dy)
        for (i64 dz = -1; dz <= 1; ++dz) {
          const auto it = cells_.find(key({c[0] + dx, c[1] + dy, c[2] + dz}));
          if (it == cells_.end()) continue;
          for (NodeId n : it->second) {
            const double d = glm::length(mesh_.nodes[size_t(n)] - x);
            if (d <= best_d) best = n, best_d = d;
          }
        }
    return best;
  }

 private:
  std::array<i64, 3> cell_of(const glm::dvec3& x) const {
    return {i64(std::floor(x.x / h_)), i64(std::floor(x.y / h_)), i64(std::floor(x.z / h_))};
  }
  static std::string key(const std::array<i64, 3>& c) {
    return std::string(reinterpret_cast<const char*>(c.data()), sizeof(c));
  }
  const TetMesh& mesh_;
  double h_;
  std::unordered_map<std::string, std::vector<NodeId>> cells_;
};

std::string node_text(const TetMesh& mesh, NodeId n) { return nodes_label(mesh, &n, 1); }

}  // namespace

void make_periodic(TetMesh& mesh, const std::vector<PeriodicPair>& pairs) {
  if (pairs.empty()) return;
  SS_REQUIRE(!is_periodic(mesh), mesh.source << ": the mesh is periodic already");
  SS_REQUIRE(pairs.size() <= size_t(kMaxPeriodicPairs),
             pairs.back().where << ": at most " << kMaxPeriodicPairs << " [[mesh.periodic]] pairs");
  const i64 nn = i64(mesh.nodes.size());
  // parent[v]: the node v was matched to (-1: none), by pair parent_pair[v].
  std::vector<NodeId> parent(size_t(nn), -1);
  std::vector<std::int8_t> parent_pair(size_t(nn), -1);
  std::vector<i32> first_ids, second_ids;
  for (size_t p = 0; p < pairs.size(); ++p) {
    const PeriodicPair& pair = pairs[p];
    const std::string both = "[[mesh.periodic]] pair '" + pair.first + "' - '" + pair.second + "'";
    const i32 a = resolve_group(mesh, pair.first, pair.where), b = resolve_group(mesh, pair.second, pair.where);
    SS_REQUIRE(a != b, pair.where << ": " << both << " names one group twice");
    SS_REQUIRE(!pair.offset_given || (std::isfinite(glm::length(pair.offset)) && glm::length(pair.offset) > 0),
               pair.where << ": " << both << " needs a nonzero offset = [x, y, z]");
    double h = std::numeric_limits<double>::max();
    const std::vector<NodeId> first = group_nodes(mesh, a, h), second = group_nodes(mesh, b, h);
    SS_REQUIRE(first.size() == second.size(), pair.where << ": " << both << " do not match: '" << pair.first << "' has "
                                                         << first.size() << " nodes, '" << pair.second << "' "
                                                         << second.size());
    glm::dvec3 offset = pair.offset;
    if (!pair.offset_given) {  // the difference of the node centroids: the offset when the groups match
      glm::dvec3 sum(0.0);
      for (NodeId v : second) sum += mesh.nodes[size_t(v)];
      for (NodeId v : first) sum -= mesh.nodes[size_t(v)];
      offset = first.empty() ? offset : sum / double(first.size());
    }
    SS_REQUIRE(std::isfinite(h) && h < std::numeric_limits<double>::max(),
               pair.where << ": " << both << ": '" << pair.first << "' and '" << pair.second << "' have no edge of positive length");
    const double tol = 1e-6 * h;
    const NodeGrid grid(mesh, first, h);
    std::vector<NodeId> partner(size_t(nn), -1);
    for (NodeId v : second) {
      const glm::dvec3 target = mesh.nodes[size_t(v)] - offset;
      const NodeId u = grid.find(target, tol);
      SS_REQUIRE(u >= 0, pair.where << ": " << both << " do not match at offset " << point_text(offset) << ": "
                                    << node_text(mesh, v) << " of '" << pair.second << "' at "
                                    << point_text(mesh.nodes[size_t(v)]) << " has no node of '" << pair.first << "' at "
                                    << point_text(target));
      partner[size_t(v)] = u;
      if (parent[size_t(v)] < 0) parent[size_t(v)] = u, parent_pair[size_t(v)] = std::int8_t(p);
    }
    // The triangulations must match too: every triangle of the second is a triangle of the first moved.
    std::map<std::array<NodeId, 3>, int> first_triangles;
    for (size_t i = 0; i < mesh.boundary_triangles.size(); ++i)
      if (mesh.triangle_groups[i] == a) {
        std::array<NodeId, 3> t = mesh.boundary_triangles[i];
        std::sort(t.begin(), t.end());
        first_triangles[t] = 1;
      }
    for (size_t i = 0; i < mesh.boundary_triangles.size(); ++i)
      if (mesh.triangle_groups[i] == b) {
        std::array<NodeId, 3> t;
        for (int k = 0; k < 3; ++k) t[size_t(k)] = partner[size_t(mesh.boundary_triangles[i][size_t(k)])];
        std::sort(t.begin(), t.end());
        SS_REQUIRE(first_triangles.count(t), pair.where << ": " << both << " do not match: "
                                                        << triangle_label(mesh, i64(i)) << " of '" << pair.second
                                                        << "' is no triangle of '" << pair.first << "' moved by "
                                                        << point_text(offset));
      }
    first_ids.push_back(a);
    second_ids.push_back(b);
    mesh.period_offsets.push_back(offset);
  }
  // Each node's root (a node of no second group) and its shift from it, following the matches.
  std::vector<NodeId> root_of(static_cast<size_t>(nn));
  std::vector<PeriodShift> shift(size_t(nn), PeriodShift{0, 0, 0});
  for (i64 v = 0; v < nn; ++v) {
    NodeId r = NodeId(v);
    PeriodShift s{0, 0, 0};
    for (int steps = 0; parent[size_t(r)] >= 0; ++steps) {
      SS_REQUIRE(steps < 4 * kMaxPeriodicPairs, pairs.front().where << ": [[mesh.periodic]] pairs chain "
                                                                   << node_text(mesh, NodeId(v)) << " in a loop");
      ++s[size_t(parent_pair[size_t(r)])];
      r = parent[size_t(r)];
    }
    root_of[size_t(v)] = r;
    shift[size_t(v)] = s;
  }
  // New ids: the roots in their old order.
  std::vector<NodeId> new_id(size_t(nn), -1);
  NodeId kept = 0;
  for (i64 v = 0; v < nn; ++v)
    if (root_of[size_t(v)] == NodeId(v)) new_id[size_t(v)] = kept++;
  // Tets onto the roots, each corner with its shift; a tet that meets one node twice cannot be kept.
  mesh.corner_shifts.assign(mesh.tets.size(), {});
  for (size_t t = 0; t < mesh.tets.size(); ++t) {
    Tet& tet = mesh.tets[t];
    for (int k = 0; k < 4; ++k) {
      const NodeId v = tet[size_t(k)];
      SS_REQUIRE(v >= 0 && v < nn, mesh.source << ": " << tet_with_nodes(mesh, i64(t)) << " refers to node #" << v
                                               << " (0-based) but there are " << nn << " nodes");
      mesh.corner_shifts[t][size_t(k)] = shift[size_t(v)];
    }
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < i; ++j)
        SS_REQUIRE(root_of[size_t(tet[size_t(i)])] != root_of[size_t(tet[size_t(j)])],
                   pairs.front().where << ": [[mesh.periodic]]: " << tet_with_nodes(mesh, i64(t))
                                       << " reaches across the whole period (its nodes " << node_text(mesh, tet[size_t(i)])
                                       << " and " << node_text(mesh, tet[size_t(j)])
                                       << " are one node once the pairs are joined): the mesh needs at least three "
                                          "cells across each period");
    for (NodeId& v : tet) v = new_id[size_t(root_of[size_t(v)])];
  }
  // Two nodes joined by edges that cross the seams differently (two cells across a period) would be
  // one edge to the topology: every edge's shift difference must be that of its node pair.
  std::unordered_map<std::uint64_t, PeriodShift> edge_shift;
  for (size_t t = 0; t < mesh.tets.size(); ++t)
    for (int a = 0; a < 4; ++a)
      for (int b = a + 1; b < 4; ++b) {
        int lo = a, hi = b;
        if (mesh.tets[t][size_t(lo)] > mesh.tets[t][size_t(hi)]) std::swap(lo, hi);
        const PeriodShift &sl = mesh.corner_shifts[t][size_t(lo)], &sh = mesh.corner_shifts[t][size_t(hi)];
        const PeriodShift d{std::int8_t(sh[0] - sl[0]), std::int8_t(sh[1] - sl[1]), std::int8_t(sh[2] - sl[2])};
        const std::uint64_t key = std::uint64_t(std::uint32_t(mesh.tets[t][size_t(lo)])) << 32 |
                                  std::uint32_t(mesh.tets[t][size_t(hi)]);
        const auto [it, added] = edge_shift.emplace(key, d);
        SS_REQUIRE(added || it->second == d, pairs.front().where << ": [[mesh.periodic]]: two edges of the joined mesh "
                                                                   "join the same two nodes across different seams: "
                                                                   "the mesh needs at least three cells across each period");
      }
  // Triangles: the pairs' go (their faces are interior now), the others move onto the roots.
  size_t out = 0;
  for (size_t i = 0; i < mesh.boundary_triangles.size(); ++i) {
    const i32 g = mesh.triangle_groups[i];
    if (std::count(first_ids.begin(), first_ids.end(), g) || std::count(second_ids.begin(), second_ids.end(), g))
      continue;
    Triangle t = mesh.boundary_triangles[i];
    for (NodeId& v : t) v = new_id[size_t(root_of[size_t(v)])];
    mesh.boundary_triangles[out] = t;
    mesh.triangle_groups[out] = g;
    if (!mesh.triangle_tags.empty()) mesh.triangle_tags[out] = mesh.triangle_tags[i];
    ++out;
  }
  mesh.boundary_triangles.resize(out);
  mesh.triangle_groups.resize(out);
  if (!mesh.triangle_tags.empty()) mesh.triangle_tags.resize(out);
  for (i64 v = 0; v < nn; ++v)
    if (new_id[size_t(v)] >= 0) {
      mesh.nodes[size_t(new_id[size_t(v)])] = mesh.nodes[size_t(v)];
      if (!mesh.node_tags.empty()) mesh.node_tags[size_t(new_id[size_t(v)])] = mesh.node_tags[size_t(v)];
    }
  mesh.nodes.resize(size_t(kept));
  if (!mesh.node_tags.empty()) mesh.node_tags.resize(size_t(kept));
}

glm::dvec3 tet_edge_vector(const TetMesh& mesh, std::size_t t, int a, int b) {
  const glm::dvec3 d = mesh.nodes[size_t(mesh.tets[t][size_t(b)])] - mesh.nodes[size_t(mesh.tets[t][size_t(a)])];
  if (!is_periodic(mesh)) return d;
  // The shifts' difference, in whole periods: every tet that holds the edge gives the same bits.
  const PeriodShift &sa = mesh.corner_shifts[t][size_t(a)], &sb = mesh.corner_shifts[t][size_t(b)];
  const PeriodShift s{std::int8_t(sb[0] - sa[0]), std::int8_t(sb[1] - sa[1]), std::int8_t(sb[2] - sa[2])};
  return d + period_translation(mesh, s);
}

UnfoldedMesh unfold_periodic(const TetMesh& mesh) {
  UnfoldedMesh u;
  if (!is_periodic(mesh)) {
    u.mesh = mesh;
    return u;
  }
  u.mesh.source = mesh.source;
  u.mesh.tet_groups = mesh.tet_groups;
  u.mesh.volume_group_names = mesh.volume_group_names;
  u.mesh.surface_group_names = mesh.surface_group_names;
  u.mesh.tets.resize(mesh.tets.size());
  // A node's first point is the node itself (unshifted); other shifts get points after the nodes.
  u.mesh.nodes = mesh.nodes;
  u.point_node.resize(mesh.nodes.size());
  for (size_t n = 0; n < mesh.nodes.size(); ++n) u.point_node[n] = NodeId(n);
  std::map<std::pair<NodeId, PeriodShift>, NodeId> extra;
  for (size_t t = 0; t < mesh.tets.size(); ++t)
    for (int k = 0; k < 4; ++k) {
      const NodeId v = mesh.tets[t][size_t(k)];
      const PeriodShift& s = mesh.corner_shifts[t][size_t(k)];
      NodeId p = v;
      if (s != PeriodShift{0, 0, 0}) {
        const auto [it, added] = extra.emplace(std::make_pair(v, s), NodeId(u.mesh.nodes.size()));
        if (added) {
          u.mesh.nodes.push_back(corner_position(mesh, t, k));
          u.point_node.push_back(v);
        }
        p = it->second;
      }
      u.mesh.tets[t][size_t(k)] = p;
    }
  // The boundary triangles onto the points of a tet that holds them (the tet's face with their nodes).
  std::map<std::array<NodeId, 3>, size_t> triangle_of;
  for (size_t i = 0; i < mesh.boundary_triangles.size(); ++i) {
    std::array<NodeId, 3> key = mesh.boundary_triangles[i];
    std::sort(key.begin(), key.end());
    triangle_of[key] = i;
  }
  u.mesh.boundary_triangles = mesh.boundary_triangles;
  u.mesh.triangle_groups = mesh.triangle_groups;
  for (size_t t = 0; t < mesh.tets.size() && !triangle_of.empty(); ++t)
    for (const auto& face : kTetFaceNodes) {
      std::array<NodeId, 3> key = {mesh.tets[t][size_t(face[0])], mesh.tets[t][size_t(face[1])], mesh.tets[t][size_t(face[2])]};
      std::sort(key.begin(), key.end());
      const auto it = triangle_of.find(key);
      if (it == triangle_of.end()) continue;
      for (NodeId& v : u.mesh.boundary_triangles[it->second]) v = u.mesh.tets[t][size_t(corner_of(mesh, t, v))];
      triangle_of.erase(it);
    }
  return u;
}

}  // namespace ss
