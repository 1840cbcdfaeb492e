#include "parallel/base_piece.hpp"

#include <algorithm>

#include "mesh/refine.hpp"
#include "mesh/topology.hpp"
#include "parallel/entity_partition.hpp"
#include "parallel/global_to_local.hpp"
#include "parallel/lattice_refinement.hpp"
#include "util/error.hpp"

namespace ss {

// Boundary surfaces in a message (found by argument-dependent lookup from transfer_each).
void transfer(Packer& p, const BoundarySurface& s) {
  transfer_each(p, s.shape, s.group, s.group_id, s.point, s.direction, s.radius, s.where);
}
void transfer(Unpacker& u, BoundarySurface& s) {
  transfer_each(u, s.shape, s.group, s.group_id, s.point, s.direction, s.radius, s.where);
}
void transfer(Packer& p, const std::vector<BoundarySurface>& list) {
  p.put(std::uint64_t(list.size()));
  for (const BoundarySurface& s : list) transfer(p, s);
}
void transfer(Unpacker& u, std::vector<BoundarySurface>& list) {
  std::uint64_t n = 0;
  u.get(n);
  SS_REQUIRE(n <= std::uint64_t(kMaxBoundarySurfaces), "message: " << n << " boundary surfaces");
  list.resize(size_t(n));
  for (BoundarySurface& s : list) transfer(u, s);
}

namespace {

using i32 = std::int32_t;
using i64 = std::int64_t;

// A base piece's fields in message order, for either direction (Piece: const for packing).
template <class Archive, class Piece>
void transfer_fields(Archive& a, Piece& b) {
  transfer_each(a, b.mesh.source, b.mesh.nodes, b.mesh.tets, b.mesh.tet_groups, b.mesh.boundary_triangles,
                b.mesh.triangle_groups, b.mesh.surface_group_names, b.mesh.volume_group_names, b.mesh.boundary_surfaces,
                b.mesh.period_offsets, b.mesh.corner_shifts);
  transfer_each(a, b.owned_tets, b.node_global, b.tet_global, b.node_owner, b.tet_owner, b.edge_global, b.face_global,
                b.edge_owner, b.face_owner, b.face_boundary, b.edge_surfaces, b.face_surfaces, b.base_nodes, b.base_edges,
                b.base_faces, b.base_tets);
}

}  // namespace

void transfer(Packer& p, const BasePiece& piece) { transfer_fields(p, piece); }
void transfer(Unpacker& u, BasePiece& piece) { transfer_fields(u, piece); }

BasePartition::BasePartition(const LoadedMesh& base, std::vector<i32> tet_part, int parts)
    : base_(base), tet_part_(std::move(tet_part)), parts_(parts) {
  const Topology& t = base.topology;
  SS_REQUIRE(t.tables == TopologyTables::all, "partition: the base mesh needs every topology table");
  SS_REQUIRE(tet_part_.size() == base.mesh.tets.size(), "partition: " << tet_part_.size() << " part ids for "
                                                                      << base.mesh.tets.size() << " tets");
  EntityOwners owners = entity_owners(base, tet_part_);
  node_owner_ = std::move(owners.node), edge_owner_ = std::move(owners.edge), face_owner_ = std::move(owners.face);
  const TetMesh& m = base.mesh;
  triangle_face_.resize(m.boundary_triangles.size());
  for (size_t k = 0; k < m.boundary_triangles.size(); ++k) {
    const Triangle& tri = m.boundary_triangles[k];
    triangle_face_[k] = t.find_face(tri[0], tri[1], tri[2]);
    SS_REQUIRE(triangle_face_[k] >= 0, m.source << ": " << triangle_label(m, i32(k)) << " is no tet face");
  }
  if (!m.boundary_surfaces.empty()) {
    edge_surfaces_ = surface_edge_masks(m, t);
    face_surfaces_.assign(size_t(t.num_faces), 0);
    for (size_t k = 0; k < m.boundary_triangles.size(); ++k)
      for (size_t s = 0; s < m.boundary_surfaces.size(); ++s)
        if (m.boundary_surfaces[s].group_id == m.triangle_groups[k])
          face_surfaces_[size_t(triangle_face_[k])] |= std::uint32_t(1) << s;
  }
}

BasePiece BasePartition::piece(int q) const {
  const TetMesh& m = base_.mesh;
  const Topology& topo = base_.topology;
  BasePiece b;
  // Tets: q's own, then the layer (each ascending).
  const std::vector<i64> near = piece_tets(m, tet_part_, q);
  for (i64 c : near)
    if (tet_part_[size_t(c)] == q) b.tet_global.push_back(c);
  b.owned_tets = i32(b.tet_global.size());
  for (i64 c : near)
    if (tet_part_[size_t(c)] != q) b.tet_global.push_back(c);
  for (i64 c : b.tet_global)
    for (NodeId v : m.tets[size_t(c)]) b.node_global.push_back(v);
  std::sort(b.node_global.begin(), b.node_global.end());
  b.node_global.erase(std::unique(b.node_global.begin(), b.node_global.end()), b.node_global.end());
  const GlobalToLocal local_node(b.node_global, q);

  TetMesh& p = b.mesh;
  p.source = m.source;
  p.surface_group_names = m.surface_group_names;
  p.volume_group_names = m.volume_group_names;
  p.boundary_surfaces = m.boundary_surfaces;
  p.period_offsets = m.period_offsets;  // periodic: each tet keeps its corners' shifts (tet_mesh.hpp)
  for (i64 v : b.node_global) {
    p.nodes.push_back(m.nodes[size_t(v)]);
    b.node_owner.push_back(node_owner_[size_t(v)]);
  }
  std::vector<char> local_face(size_t(topo.num_faces), 0);
  for (i64 c : b.tet_global) {
    const Tet& g = m.tets[size_t(c)];
    p.tets.push_back({local_node(g[0]), local_node(g[1]), local_node(g[2]), local_node(g[3])});
    p.tet_groups.push_back(m.tet_groups.empty() ? 0 : m.tet_groups[size_t(c)]);
    if (is_periodic(m)) p.corner_shifts.push_back(m.corner_shifts[size_t(c)]);
    b.tet_owner.push_back(tet_part_[size_t(c)]);
    for (i32 e : topo.cell_edges[size_t(c)]) {
      b.edge_global.push_back(e);
      b.edge_owner.push_back(edge_owner_[size_t(e)]);
      if (!edge_surfaces_.empty()) b.edge_surfaces.push_back(edge_surfaces_[size_t(e)]);
    }
    for (i32 f : topo.cell_faces[size_t(c)]) {
      b.face_global.push_back(f);
      b.face_owner.push_back(face_owner_[size_t(f)]);
      b.face_boundary.push_back(topo.face_cells[size_t(f)][1] < 0);
      if (!face_surfaces_.empty()) b.face_surfaces.push_back(face_surfaces_[size_t(f)]);
      local_face[size_t(f)] = 1;
    }
  }
  for (size_t k = 0; k < m.boundary_triangles.size(); ++k) {
    if (!local_face[size_t(triangle_face_[k])]) continue;
    const Triangle& tri = m.boundary_triangles[k];
    p.boundary_triangles.push_back({local_node(tri[0]), local_node(tri[1]), local_node(tri[2])});
    p.triangle_groups.push_back(m.triangle_groups[k]);
  }
  b.base_nodes = i64(m.nodes.size()), b.base_edges = topo.num_edges, b.base_faces = topo.num_faces;
  b.base_tets = i64(m.tets.size());
  return b;
}

std::int64_t refined_node_count(const BasePiece& b, int levels) {
  const i64 m = i64(1) << levels;
  return b.base_nodes + b.base_edges * interior_points(2, m) + b.base_faces * interior_points(3, m) +
         b.base_tets * interior_points(4, m);
}

}  // namespace ss
