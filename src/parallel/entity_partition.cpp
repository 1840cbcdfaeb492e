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

namespace {

// Owned flags and "receives" flags of one entity kind from its owners.
void mark_ownership(EntityHalo& h, const std::vector<std::int32_t>& owner, int q, std::vector<char>& receives) {
  h.owned.resize(h.global.size());
  receives.resize(h.global.size());
  for (size_t i = 0; i < h.global.size(); ++i) {
    h.owned[i] = owner[size_t(h.global[i])] == q;
    receives[i] = !h.owned[i];
  }
}

}  // namespace

std::vector<EntityPiece> partition_entities(const LoadedMesh& m, const std::vector<std::int32_t>& tet_part, int parts) {
  const Topology& t = m.topology;
  SS_REQUIRE(t.tables == TopologyTables::all, "partition: the mesh needs every topology table");
  SS_REQUIRE(tet_part.size() == m.mesh.tets.size(), "partition: " << tet_part.size() << " part ids for "
                                                                  << m.mesh.tets.size() << " tets");
  const EntityOwners owner = entity_owners(m, tet_part);
  std::vector<EntityPiece> pieces(static_cast<size_t>(parts));
  // Per kind and rank: global ids and receive flags, for the links once every piece is known.
  std::vector<std::vector<std::int64_t>> global[4];
  std::vector<std::vector<char>> receives[4];
  for (auto& g : global) g.resize(size_t(parts));
  for (auto& r : receives) r.resize(size_t(parts));

  for (int q = 0; q < parts; ++q) {
    EntityPiece& p = pieces[size_t(q)];
    // Cells and nodes, ascending global id.
    p.cells.global = piece_tets(m.mesh, tet_part, q);
    for (std::int64_t c : p.cells.global)
      for (NodeId v : m.mesh.tets[size_t(c)]) p.nodes.global.push_back(v);
    std::sort(p.nodes.global.begin(), p.nodes.global.end());
    p.nodes.global.erase(std::unique(p.nodes.global.begin(), p.nodes.global.end()), p.nodes.global.end());
    const GlobalToLocal local_node(p.nodes.global, q);
    p.mesh.source = m.mesh.source + " (rank " + std::to_string(q) + " of " + std::to_string(parts) + ")";
    for (std::int64_t v : p.nodes.global) p.mesh.nodes.push_back(m.mesh.nodes[size_t(v)]);
    for (std::int64_t c : p.cells.global) {
      const Tet& g = m.mesh.tets[size_t(c)];
      p.mesh.tets.push_back({local_node(g[0]), local_node(g[1]), local_node(g[2]), local_node(g[3])});
      p.mesh.tet_groups.push_back(m.mesh.tet_groups.empty() ? 0 : m.mesh.tet_groups[size_t(c)]);
    }

    // Faces and edges in the order the piece's own topology numbers them.
    const Topology local = build_topology(p.mesh, TopologyTables::all);
    const auto node_global = [&](std::int32_t v) { return std::int32_t(p.nodes.global[size_t(v)]); };
    p.faces.global.resize(size_t(local.num_faces));
    std::vector<char> cut(size_t(local.num_faces), 0);
    for (std::int32_t f = 0; f < local.num_faces; ++f) {
      const auto& n = local.face_nodes[size_t(f)];
      const std::int32_t g = t.find_face(node_global(n[0]), node_global(n[1]), node_global(n[2]));
      SS_REQUIRE(g >= 0, "partition: rank " << q << "'s face " << f << " is no face of the mesh");
      p.faces.global[size_t(f)] = g;
      const auto& lc = local.face_cells[size_t(f)];
      const auto& gc = t.face_cells[size_t(g)];
      cut[size_t(f)] = lc[1] < 0 && gc[1] >= 0;
      if (!cut[size_t(f)])
        SS_REQUIRE(p.cells.global[size_t(lc[0])] == gc[0], "partition: rank " << q << "'s face " << f
                                                                              << " is oriented against the mesh's face " << g);
    }
    p.edges.global.resize(size_t(local.num_edges));
    for (std::int32_t e = 0; e < local.num_edges; ++e) {
      const auto& n = local.edge_nodes[size_t(e)];
      const std::int32_t g = t.find_edge(node_global(n[0]), node_global(n[1]));
      SS_REQUIRE(g >= 0, "partition: rank " << q << "'s edge " << e << " is no edge of the mesh");
      p.edges.global[size_t(e)] = g;
    }
    for (std::int32_t f : local.boundary_faces) {
      const std::int64_t g = p.faces.global[size_t(f)];
      const auto it = std::lower_bound(t.boundary_faces.begin(), t.boundary_faces.end(), std::int32_t(g));
      p.boundary_index.push_back(cut[size_t(f)] ? -1 : std::int32_t(it - t.boundary_faces.begin()));
      p.cut.push_back(cut[size_t(f)]);
    }

    mark_ownership(p.nodes, owner.node, q, receives[0][size_t(q)]);
    mark_ownership(p.cells, tet_part, q, receives[1][size_t(q)]);
    mark_ownership(p.faces, owner.face, q, receives[2][size_t(q)]);
    mark_ownership(p.edges, owner.edge, q, receives[3][size_t(q)]);
    for (size_t f = 0; f < cut.size(); ++f)
      if (cut[f]) receives[2][size_t(q)][f] = 0;
    global[0][size_t(q)] = p.nodes.global, global[1][size_t(q)] = p.cells.global;
    global[2][size_t(q)] = p.faces.global, global[3][size_t(q)] = p.edges.global;
  }
  const std::vector<std::int32_t>* owners[4] = {&owner.node, &tet_part, &owner.face, &owner.edge};
  for (int q = 0; q < parts; ++q) {
    EntityHalo* kinds[4] = {&pieces[size_t(q)].nodes, &pieces[size_t(q)].cells, &pieces[size_t(q)].faces,
                            &pieces[size_t(q)].edges};
    for (int k = 0; k < 4; ++k) kinds[k]->links = halo_links(q, global[k], receives[k], *owners[k]);
  }
  return pieces;
}

}  // namespace ss
