#include "parallel/entity_partition.hpp"

#include <algorithm>
#include <limits>
#include <numeric>

#include "parallel/global_to_local.hpp"
#include "util/error.hpp"

namespace ss {

std::int64_t EntityHalo::owned_count() const { return std::count(owned.begin(), owned.end(), char(1)); }

namespace {

constexpr std::int32_t kNoOwner = std::numeric_limits<std::int32_t>::max();

}  // namespace

EntityOwners entity_owners(const LoadedMesh& m, const std::vector<std::int32_t>& part) {
  const Topology& t = m.topology;
  EntityOwners o;
  o.node.assign(m.mesh.nodes.size(), kNoOwner);
  o.edge.assign(size_t(t.num_edges), kNoOwner);
  o.face.resize(size_t(t.num_faces));
  for (size_t c = 0; c < m.mesh.tets.size(); ++c) {
    for (NodeId v : m.mesh.tets[c]) o.node[size_t(v)] = std::min(o.node[size_t(v)], part[c]);
    for (std::int32_t e : t.cell_edges[c]) o.edge[size_t(e)] = std::min(o.edge[size_t(e)], part[c]);
  }
  for (size_t f = 0; f < o.face.size(); ++f) {
    const auto& fc = t.face_cells[f];
    o.face[f] = fc[1] < 0 ? part[size_t(fc[0])] : std::min(part[size_t(fc[0])], part[size_t(fc[1])]);
  }
  return o;
}

std::vector<std::int64_t> piece_tets(const TetMesh& mesh, const std::vector<std::int32_t>& part, int q) {
  std::vector<char> near(mesh.nodes.size(), 0);
  for (size_t c = 0; c < mesh.tets.size(); ++c)
    if (part[c] == q)
      for (NodeId v : mesh.tets[c]) near[size_t(v)] = 1;
  std::vector<std::int64_t> tets;
  for (size_t c = 0; c < mesh.tets.size(); ++c) {
    const Tet& t = mesh.tets[c];
    if (near[size_t(t[0])] || near[size_t(t[1])] || near[size_t(t[2])] || near[size_t(t[3])]) tets.push_back(std::int64_t(c));
  }
  return tets;
}

}  // namespace ss
