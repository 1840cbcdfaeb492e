#include "parallel/refined_entity_piece.hpp"

#include <algorithm>
#include <numeric>

#include "mesh/topology.hpp"
#include "parallel/halo_pairing.hpp"
#include "parallel/lattice_refinement.hpp"
#include "parallel/message.hpp"
#include "util/error.hpp"

namespace ss {

namespace {

using i32 = std::int32_t;
using i64 = std::int64_t;

// Fine faces (corners 3: a base face, 4: a base tet) and edges (2, 3, 4) strictly inside one base
// entity with `corners` corners; m = 2^levels.
i64 faces_inside(int corners, i64 m) { return corners == 3 ? m * m : 2 * m * m * m - 2 * m * m; }
i64 edges_inside(int corners, i64 m) {
  if (corners == 2) return m;
  if (corners == 3) return 3 * m * (m - 1) / 2;
  return (m + 1) * (m + 2) * (m + 3) / 6 + m * m * m - 4 * m * m - 1;
}

// One fine face or edge: its smallest base entity (corner count, global id) and its key.
struct Placed {
  int corners = 0;
  i64 block = 0;
  EntityKey key{};
  i32 local = 0;
};

// Global ids of the owned entities among `placed` (one kind). Blocks: base entities with c corners
// are numbered first_block[c] + their global id (dense over all sizes), their fine entities start at
// offset[c] + global id · count(c), each ranked by key inside its block (a counting sort by block,
// then each block sorted alone). The owner holds whole blocks: a block of another size is an error.
template <class Count>
void rank_in_blocks(const std::vector<Placed>& placed, const i64* first_block, i64 blocks, const i64* offset,
                    Count count, std::vector<i64>& global, const char* what, int rank) {
  std::vector<i64> start(size_t(blocks) + 1, 0);
  for (const Placed& at : placed) ++start[size_t(first_block[at.corners] + at.block) + 1];
  std::partial_sum(start.begin(), start.end(), start.begin());
  std::vector<Placed> sorted(placed.size());
  {
    std::vector<i64> fill(start.begin(), start.end() - 1);
    for (const Placed& at : placed) sorted[size_t(fill[size_t(first_block[at.corners] + at.block)]++)] = at;
  }
  i64 bad = -1;
#pragma omp parallel for schedule(dynamic, 256) reduction(max : bad)
  for (i64 k = 0; k < blocks; ++k) {
    const size_t a = size_t(start[size_t(k)]), b = size_t(start[size_t(k) + 1]);
    if (a == b) continue;
    const Placed& first = sorted[a];
    const i64 per_block = count(first.corners);
    if (i64(b - a) != per_block) {
      bad = std::max(bad, k);
      continue;
    }
    std::sort(sorted.begin() + std::ptrdiff_t(a), sorted.begin() + std::ptrdiff_t(b),
              [](const Placed& x, const Placed& y) { return x.key < y.key; });
    for (size_t j = a; j < b; ++j)
      global[size_t(sorted[j].local)] = offset[first.corners] + first.block * per_block + i64(j - a);
  }
  SS_REQUIRE(bad < 0, "partition: rank " << rank << " does not hold all the fine " << what << " of its base entity block "
                                         << bad);
}

// The ghosts' global ids from their owners, along the links.
void receive_ids(const std::vector<HaloLink>& links, std::vector<i64>& global, MPI_Comm comm) {
  std::vector<std::vector<i64>> out(links.size()), in(links.size());
  std::vector<MPI_Request> requests;
  for (size_t k = 0; k < links.size(); ++k) {
    in[k].resize(links[k].recv.size());
    for (i32 i : links[k].send) out[k].push_back(global[size_t(i)]);
    requests.emplace_back();
    mpi_check(MPI_Irecv(in[k].data(), int(in[k].size()), MPI_INT64_T, links[k].rank, 31, comm, &requests.back()), "MPI_Irecv");
    requests.emplace_back();
    mpi_check(MPI_Isend(out[k].data(), int(out[k].size()), MPI_INT64_T, links[k].rank, 31, comm, &requests.back()), "MPI_Isend");
  }
  mpi_check(MPI_Waitall(int(requests.size()), requests.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
  for (size_t k = 0; k < links.size(); ++k)
    for (size_t j = 0; j < in[k].size(); ++j) global[size_t(links[k].recv[j])] = in[k][j];
}

}  // namespace

FineCounts refined_entity_counts(const BasePiece& b, int levels) {
  const i64 m = i64(1) << levels;
  FineCounts c;
  c.nodes = refined_node_count(b, levels);
  c.cells = b.base_tets * m * m * m;
  c.faces = b.base_faces * faces_inside(3, m) + b.base_tets * faces_inside(4, m);
  c.edges = b.base_edges * edges_inside(2, m) + b.base_faces * edges_inside(3, m) + b.base_tets * edges_inside(4, m);
  return c;
}

EntityPiece refine_entity_piece(const BasePiece& b, int levels, MPI_Comm comm) {
  int rank = 0;
  mpi_check(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
  const i64 m = i64(1) << levels;

  // 1. Refine; keep the descendants of own base tets and every fine tet sharing a node with one.
  RefiningPiece r = refine_base_levels(b, levels, rank);
  {
    std::vector<char> near(r.mesh.nodes.size(), 0), keep(r.mesh.tets.size(), 0);
    for (size_t t = 0; t < r.mesh.tets.size(); ++t)
      if (r.base[t] < b.owned_tets)
        for (NodeId v : r.mesh.tets[t]) near[size_t(v)] = 1;
    for (size_t t = 0; t < r.mesh.tets.size(); ++t) {
      const Tet& tet = r.mesh.tets[t];
      keep[t] = near[size_t(tet[0])] || near[size_t(tet[1])] || near[size_t(tet[2])] || near[size_t(tet[3])];
    }
    keep_tets(r, keep);
  }
  const BaseEntities entities(b);
  std::vector<i64> node_global;
  std::vector<i32> node_owner;
  fine_node_ids(r, b, entities, levels, rank, node_global, node_owner);

  // 2. Nodes and tets in ascending global id.
  const size_t nn = r.mesh.nodes.size(), nt = r.mesh.tets.size();
  std::vector<i32> node_order(nn), tet_order(nt), local(nn);
  std::iota(node_order.begin(), node_order.end(), 0);
  std::iota(tet_order.begin(), tet_order.end(), 0);
  std::sort(node_order.begin(), node_order.end(), [&](i32 x, i32 y) { return node_global[size_t(x)] < node_global[size_t(y)]; });
  std::sort(tet_order.begin(), tet_order.end(), [&](i32 x, i32 y) { return r.tet_id[size_t(x)] < r.tet_id[size_t(y)]; });
  for (size_t k = 0; k < nn; ++k) local[size_t(node_order[k])] = i32(k);
  EntityPiece p;
  TetMesh& mesh = p.mesh;
  mesh.source = r.mesh.source;
  mesh.surface_group_names = r.mesh.surface_group_names;
  mesh.volume_group_names = r.mesh.volume_group_names;
  mesh.period_offsets = r.mesh.period_offsets;
  std::vector<LatticePoint> point(nn);
  std::vector<i32> owner_of[4];  // nodes, cells, faces, edges
  mesh.nodes.resize(nn);
  p.nodes.global.resize(nn);
  owner_of[0].resize(nn);
  for (size_t k = 0; k < nn; ++k) {
    const size_t v = size_t(node_order[k]);
    mesh.nodes[k] = r.mesh.nodes[v];
    point[k] = r.point[v];
    p.nodes.global[k] = node_global[v];
    owner_of[0][k] = node_owner[v];
  }
  for (i32 t : tet_order) {
    const Tet& tet = r.mesh.tets[size_t(t)];
    mesh.tets.push_back({local[size_t(tet[0])], local[size_t(tet[1])], local[size_t(tet[2])], local[size_t(tet[3])]});
    if (!r.mesh.tet_groups.empty()) mesh.tet_groups.push_back(r.mesh.tet_groups[size_t(t)]);
    if (is_periodic(r.mesh)) mesh.corner_shifts.push_back(r.mesh.corner_shifts[size_t(t)]);
    p.cells.global.push_back(r.tet_id[size_t(t)]);
    owner_of[1].push_back(b.tet_owner[size_t(r.base[size_t(t)])]);
  }
  for (const Triangle& tri : r.mesh.boundary_triangles)
    mesh.boundary_triangles.push_back({local[size_t(tri[0])], local[size_t(tri[1])], local[size_t(tri[2])]});
  mesh.triangle_groups = std::move(r.mesh.triangle_groups);
  r = {};

  // 3. Faces and edges: their smallest base entity gives the owner and the id block.
  const Topology t = build_topology(mesh, TopologyTables::all);
  // Each face or edge placed in parallel (a failure is reported after the loop), the owned kept.
  const auto place = [&](const i32* nodes, int count, Placed& at, const BaseEntities::Entry*& base) {
    LatticePoint points[3], support;
    for (int k = 0; k < count; ++k) {
      points[k] = point[size_t(nodes[k])];
      at.key[size_t(k)] = p.nodes.global[size_t(nodes[k])];
    }
    for (int k = count; k < 3; ++k) at.key[size_t(k)] = -1;
    std::sort(at.key.begin(), at.key.begin() + count);
    base = lattice_support(points, count, support) && support.size >= count ? entities.find(support) : nullptr;
    if (base) at.corners = support.size, at.block = base->global;
  };
  const auto place_all = [&](i32 n, int count, const auto& nodes_of, std::vector<i32>& owner, std::vector<char>& on_boundary,
                             std::vector<Placed>& owned) {
    std::vector<Placed> all(static_cast<size_t>(n));
    owner.resize(size_t(n));
    on_boundary.resize(size_t(n));
    i32 bad = -1;
#pragma omp parallel for schedule(static) reduction(max : bad)
    for (i32 e = 0; e < n; ++e) {
      const BaseEntities::Entry* base = nullptr;
      all[size_t(e)].local = e;
      place(nodes_of(e), count, all[size_t(e)], base);
      if (!base) {
        bad = std::max(bad, e);
        continue;
      }
      owner[size_t(e)] = base->owner;
      on_boundary[size_t(e)] = base->boundary;
    }
    SS_REQUIRE(bad < 0, mesh.source << ": rank " << rank << ": fine " << (count == 3 ? "face " : "edge ") << bad
                                    << " lies in no base entity of its piece");
    for (const Placed& at : all)
      if (owner[size_t(at.local)] == rank) owned.push_back(at);
  };
  std::vector<Placed> owned_faces, owned_edges;
  std::vector<char> face_on_base_boundary, unused;
  place_all(t.num_faces, 3, [&](i32 f) { return t.face_nodes[size_t(f)].data(); }, owner_of[2], face_on_base_boundary,
            owned_faces);
  place_all(t.num_edges, 2, [&](i32 e) { return t.edge_nodes[size_t(e)].data(); }, owner_of[3], unused, owned_edges);
  std::vector<char> cut_face(size_t(t.num_faces), 0);
  for (i32 f : t.boundary_faces) {
    cut_face[size_t(f)] = !face_on_base_boundary[size_t(f)];
    p.cut.push_back(cut_face[size_t(f)]);
  }
  p.faces.global.assign(size_t(t.num_faces), -1);
  p.edges.global.assign(size_t(t.num_edges), -1);
  // Block numbers and id offsets by corner count (faces: base faces, then base tets; edges: base
  // edges, base faces, base tets).
  const i64 face_first[5] = {0, 0, 0, 0, b.base_faces}, face_offset[5] = {0, 0, 0, 0, b.base_faces * faces_inside(3, m)};
  const i64 edge_first[5] = {0, 0, 0, b.base_edges, b.base_edges + b.base_faces};
  const i64 edge_offset[5] = {0, 0, 0, b.base_edges * edges_inside(2, m),
                              b.base_edges * edges_inside(2, m) + b.base_faces * edges_inside(3, m)};
  rank_in_blocks(owned_faces, face_first, b.base_faces + b.base_tets, face_offset,
                 [m](int c) { return faces_inside(c, m); }, p.faces.global, "faces", rank);
  rank_in_blocks(owned_edges, edge_first, b.base_edges + b.base_faces + b.base_tets, edge_offset,
                 [m](int c) { return edges_inside(c, m); }, p.edges.global, "edges", rank);

  // 4. Owned flags, and the halo of every kind paired by key; ghost faces and edges take their id
  //    from their owner. Cut faces receive nothing.
  EntityHalo* kinds[4] = {&p.nodes, &p.cells, &p.faces, &p.edges};
  for (int k = 0; k < 4; ++k) {
    EntityHalo& h = *kinds[k];
    const size_t n = owner_of[k].size();
    std::vector<EntityKey> keys(n);
    std::vector<char> wanted(n);
    h.owned.resize(n);
    for (size_t i = 0; i < n; ++i) {
      h.owned[i] = owner_of[k][i] == rank;
      wanted[i] = !h.owned[i] && !(k == 2 && cut_face[i]);
      if (k < 2) keys[i] = {h.global[i], -1, -1};
      else if (k == 2) keys[i] = {p.nodes.global[size_t(t.face_nodes[i][0])], p.nodes.global[size_t(t.face_nodes[i][1])],
                                  p.nodes.global[size_t(t.face_nodes[i][2])]};
      else keys[i] = {p.nodes.global[size_t(t.edge_nodes[i][0])], p.nodes.global[size_t(t.edge_nodes[i][1])], -1};
      std::sort(keys[i].begin(), keys[i].begin() + (k == 2 ? 3 : k == 3 ? 2 : 1));
    }
    h.links = pair_halo_links(keys, owner_of[k], wanted, comm);
    if (k >= 2) receive_ids(h.links, h.global, comm);
  }
  return p;
}

}  // namespace ss
