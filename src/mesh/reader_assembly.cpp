#include "mesh/reader_assembly.hpp"

#include <algorithm>
#include <cmath>
#include <iostream>
#include <limits>
#include <numeric>

#include "util/error.hpp"

namespace ss::reader {

NodeTable::NodeTable(const Source& src, RawNodes raw) {
  const std::size_t n = raw.tags.size();
  if (n > static_cast<std::size_t>(std::numeric_limits<NodeId>::max()))
    SS_THROW(src.name << ": " << n << " nodes is more than streamsolve's 32-bit node ids allow");
  for (std::size_t i = 0; i < n; ++i) {
    if (raw.tags[i] <= 0)
      SS_THROW(src.where(raw.offsets[i]) << ": node id " << raw.tags[i]
                                         << " out of range (node ids must be positive)");
    const glm::dvec3& x = raw.coords[i];
    if (!std::isfinite(x.x) || !std::isfinite(x.y) || !std::isfinite(x.z))
      SS_THROW(src.where(raw.offsets[i]) << ": node " << raw.tags[i] << " has a non-finite coordinate ("
                                         << x.x << ", " << x.y << ", " << x.z << ")");
  }
  if (n == 0) return;
  const auto [lo, hi] = std::minmax_element(raw.tags.begin(), raw.tags.end());
  min_tag_ = *lo;
  const std::int64_t range = *hi - *lo + 1;
  std::vector<std::size_t> order;  // raw index of each id
  order.reserve(n);
  auto duplicate = [&](std::size_t first, std::size_t second) {
    SS_THROW(src.where(raw.offsets[second]) << ": node id " << raw.tags[second] << " defined twice (first at "
                                            << src.where(raw.offsets[first]) << ")");
  };
  if (range <= static_cast<std::int64_t>(2 * n + 1024)) {
    // Dense tags (the usual case): one slot per possible tag.
    dense_.assign(static_cast<std::size_t>(range), -1);
    for (std::size_t i = 0; i < n; ++i) {
      NodeId& slot = dense_[static_cast<std::size_t>(raw.tags[i] - min_tag_)];
      if (slot >= 0) duplicate(static_cast<std::size_t>(slot), i);
      slot = static_cast<NodeId>(i);
    }
    NodeId next = 0;
    for (NodeId& slot : dense_)
      if (slot >= 0) {
        order.push_back(static_cast<std::size_t>(slot));
        slot = next++;
      }
  } else {
    order.resize(n);
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      return raw.tags[a] != raw.tags[b] ? raw.tags[a] < raw.tags[b] : a < b;
    });
    sorted_.resize(n);
    for (std::size_t k = 0; k < n; ++k) {
      sorted_[k] = raw.tags[order[k]];
      if (k > 0 && sorted_[k] == sorted_[k - 1]) duplicate(order[k - 1], order[k]);
    }
  }
  coords_.resize(n);
  for (std::size_t k = 0; k < n; ++k) coords_[k] = raw.coords[order[k]];
}

NodeId NodeTable::find(std::int64_t tag) const {
  if (!dense_.empty()) {
    if (tag < min_tag_) return -1;
    const std::int64_t slot = tag - min_tag_;
    if (slot >= static_cast<std::int64_t>(dense_.size())) return -1;
    return dense_[static_cast<std::size_t>(slot)];
  }
  auto it = std::lower_bound(sorted_.begin(), sorted_.end(), tag);
  if (it == sorted_.end() || *it != tag) return -1;
  return static_cast<NodeId>(it - sorted_.begin());
}

std::vector<std::int64_t> NodeTable::tags() const {
  if (dense_.empty()) return sorted_;
  std::vector<std::int64_t> out;
  out.reserve(coords_.size());
  for (std::size_t slot = 0; slot < dense_.size(); ++slot)
    if (dense_[slot] >= 0) out.push_back(min_tag_ + static_cast<std::int64_t>(slot));
  return out;
}

void reject_unsupported(const Source& src, const std::vector<Unsupported>& unsupported) {
  if (unsupported.empty()) return;
  std::ostringstream os;
  os << src.where(unsupported.front().first_offset) << ": contains ";
  for (std::size_t i = 0; i < unsupported.size(); ++i) {
    if (i) os << (i + 1 == unsupported.size() ? " and " : ", ");
    os << unsupported[i].count << " " << unsupported[i].description;
  }
  os << " (first of them here); streamsolve supports only 4-node tetrahedra (with 3-node boundary "
        "triangles)";
  SS_THROW(os.str());
}

void add_group_name(TetMesh& mesh, GroupKind kind, std::int32_t id, const std::string& name) {
  (kind == GroupKind::surface ? mesh.surface_group_names : mesh.volume_group_names).emplace(id, name);
}

void finish_mesh(const Source& src, TetMesh& mesh) {
  mesh.source = src.name;
  if (mesh.tets.empty())
    SS_THROW(src.name << ": the mesh is empty: no tetrahedra (" << mesh.nodes.size() << " nodes, "
                      << mesh.boundary_triangles.size() << " triangles)");
  const std::size_t n = mesh.nodes.size();
  std::vector<NodeId> new_id(n, -1);
  for (const Tet& t : mesh.tets)
    for (NodeId v : t) new_id[static_cast<std::size_t>(v)] = 0;
  for (const Triangle& t : mesh.boundary_triangles)
    for (NodeId v : t) new_id[static_cast<std::size_t>(v)] = 0;
  NodeId next = 0;
  for (NodeId& id : new_id)
    if (id == 0) id = next++;
  const std::size_t unused = n - static_cast<std::size_t>(next);
  if (unused == 0) return;
  std::cerr << "streamsolve: warning: " << src.name << ": " << unused << " unused node"
            << (unused == 1 ? "" : "s") << " dropped\n";
  std::vector<glm::dvec3> kept(static_cast<std::size_t>(next));
  for (std::size_t i = 0; i < n; ++i)
    if (new_id[i] >= 0) kept[static_cast<std::size_t>(new_id[i])] = mesh.nodes[i];
  mesh.nodes = std::move(kept);
  if (mesh.node_tags.size() == n) {
    std::vector<std::int64_t> kept_tags(static_cast<std::size_t>(next));
    for (std::size_t i = 0; i < n; ++i)
      if (new_id[i] >= 0) kept_tags[static_cast<std::size_t>(new_id[i])] = mesh.node_tags[i];
    mesh.node_tags = std::move(kept_tags);
  }
  for (Tet& t : mesh.tets)
    for (NodeId& v : t) v = new_id[static_cast<std::size_t>(v)];
  for (Triangle& t : mesh.boundary_triangles)
    for (NodeId& v : t) v = new_id[static_cast<std::size_t>(v)];
}

}  // namespace ss::reader
