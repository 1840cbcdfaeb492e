#include "mesh/topology.hpp"

#include <algorithm>
#include <limits>
#include <new>
#include <optional>
#include <set>
#include <sstream>

#include "mesh/bucket_sort.hpp"
#include "util/error.hpp"

namespace ss {
namespace {

using i32 = std::int32_t;

// One occurrence of a face (or edge) in a tet, bucketed by its smallest node.
struct FaceEntry {
  i32 b, c;            // the two larger nodes, b < c
  std::uint32_t code;  // ((tet * 4 + local face) << 1) | 1 if the tet's outward order is an odd cycle of (a, b, c)
};
struct EdgeEntry {
  i32 high;
  i32 code;  // tet * 6 + local edge
};

void sort3(i32& a, i32& b, i32& c) {
  if (a > b) std::swap(a, b);
  if (b > c) std::swap(b, c);
  if (a > b) std::swap(a, b);
}

// Parity of the cyclic order (p0, p1, p2) relative to ascending order: true if it is an even
// rotation of (min, mid, max).
// Local edge index (kTetEdgeNodes) of local nodes i != j.
constexpr int kLocalEdge[4][4] = {{-1, 0, 1, 2}, {0, -1, 3, 4}, {1, 3, -1, 5}, {2, 4, 5, -1}};

bool is_even_cycle(i32 p0, i32 p1, i32 p2) {
  // rotate so the smallest is first, then even iff the next is the middle one
  if (p1 < p0 && p1 < p2) return p2 < p0;
  if (p2 < p0 && p2 < p1) return p0 < p1;
  return p1 < p2;
}

// Stable sort of a small bucket (typically 10-60 entries): insertion sort, std::stable_sort for
// big ones. Stable, so equal keys stay in tet order (buckets are filled tet by tet).
template <typename It, typename Less>
void sort_bucket(It first, It last, Less less) {
  if (last - first > 64) return std::stable_sort(first, last, less);
  for (It i = first + (first != last); i < last; ++i) {
    auto v = *i;
    It j = i;
    for (; j > first && less(v, *(j - 1)); --j) *j = *(j - 1);
    *j = v;
  }
}

// Exclusive prefix sum in place; returns the total.
i32 exclusive_scan(std::vector<i32>& v) {
  i32 sum = 0;
  for (auto& x : v) {
    i32 t = x;
    x = sum;
    sum += t;
  }
  return sum;
}

// Edge id of (low, high) among the edges of `low`, sorted by high node; -1 if none.
i32 edge_in_bucket(const Topology& topo, i32 low, i32 high) {
  auto first = topo.edge_nodes.begin() + topo.edge_offsets_by_low_node[low];
  auto last = topo.edge_nodes.begin() + topo.edge_offsets_by_low_node[low + 1];
  auto it = std::lower_bound(first, last, high, [](const std::array<i32, 2>& e, i32 v) { return e[1] < v; });
  return it != last && (*it)[1] == high ? static_cast<i32>(it - topo.edge_nodes.begin()) : -1;
}

// Unique edges: counting sort of the 6 edge occurrences per tet on their low node, then the
// distinct high nodes of each bucket. Edge ids follow (low, high) order.
// `scratch` holds at least 6 * num_cells EdgeEntry (shared with build_faces: one allocation, so
// its pages are faulted in once).
void build_edges(const TetMesh& mesh, Topology& topo, void* scratch) {
  const i32 nn = topo.num_nodes, nc = topo.num_cells;
  EdgeEntry* entries = static_cast<EdgeEntry*>(scratch);
  const Tet* tets = mesh.tets.data();
  const std::vector<i32> start = detail::bucket_scatter<6>(
      nc, nn,
      [tets](i32 c, int k) { return std::min(tets[c][kTetEdgeNodes[k][0]], tets[c][kTetEdgeNodes[k][1]]); },
      [tets, entries](i32 pos, i32 c, int k) {
        entries[pos] = EdgeEntry{std::max(tets[c][kTetEdgeNodes[k][0]], tets[c][kTetEdgeNodes[k][1]]), c * 6 + k};
      });
  // Per bucket, the distinct high nodes via a marker array (no sort of the ~35 occurrences; only
  // the ~7 distinct ones are sorted). Counted first, then numbered after the prefix sum.
  std::vector<i32> per_node(nn, 0);
  auto distinct_highs = [&](i32 n, std::vector<i32>& mark, std::vector<i32>& uniq) {
    uniq.clear();
    for (i32 i = start[n]; i < start[n + 1]; ++i) {
      const i32 h = entries[i].high;
      if (mark[h] != n) mark[h] = n, uniq.push_back(h);
    }
  };
  bool out_of_memory = false;  // a thread's tables could not be had (reported after the regions)
#pragma omp parallel if (nn > 20000)
  {
    std::vector<i32> mark, uniq;
    bool ok = detail::allocating([&] { mark.assign(size_t(nn), -1); }, out_of_memory);
#pragma omp for schedule(dynamic, 4096)
    for (i32 n = 0; n < nn; ++n) {
      ok = ok && detail::allocating([&] { distinct_highs(n, mark, uniq); }, out_of_memory);
      per_node[n] = static_cast<i32>(uniq.size());
    }
  }
  if (out_of_memory) throw std::bad_alloc();
  topo.edge_offsets_by_low_node = per_node;
  topo.edge_offsets_by_low_node.push_back(0);
  topo.num_edges = exclusive_scan(topo.edge_offsets_by_low_node);
  topo.edge_nodes.resize(topo.num_edges);
  topo.cell_edges.resize(nc);
#pragma omp parallel if (nn > 20000)
  {
    std::vector<i32> mark, uniq, id;
    bool ok = detail::allocating([&] { mark.assign(size_t(nn), -1), id.resize(size_t(nn)); }, out_of_memory);
#pragma omp for schedule(dynamic, 4096)
    for (i32 n = 0; n < nn; ++n) {
      ok = ok && detail::allocating([&] { distinct_highs(n, mark, uniq); }, out_of_memory);
      if (!ok) continue;
      sort_bucket(uniq.begin(), uniq.end(), std::less<i32>());
      const i32 e0 = topo.edge_offsets_by_low_node[n];
      for (std::size_t k = 0; k < uniq.size(); ++k) {
        id[uniq[k]] = e0 + static_cast<i32>(k);
        topo.edge_nodes[e0 + k] = {n, uniq[k]};
      }
      for (i32 i = start[n]; i < start[n + 1]; ++i)
        topo.cell_edges[entries[i].code / 6][entries[i].code % 6] = id[entries[i].high];
    }
  }
  if (out_of_memory) throw std::bad_alloc();
}

// The file's triangles by their smallest node, as sorted (middle, largest) pairs: the interior faces
// TopologyTables::boundary keeps besides the boundary.
struct ListedFaces {
  std::vector<i32> start;  // CSR over the smallest node
  std::vector<std::array<i32, 2>> rest;

  ListedFaces(const TetMesh& mesh, i32 nn) {
    const Triangle* tris = mesh.boundary_triangles.data();
    const i32 nt = static_cast<i32>(mesh.boundary_triangles.size());
    std::vector<std::array<i32, 3>> sorted(static_cast<size_t>(nt));
    for (i32 t = 0; t < nt; ++t) {
      i32 a = tris[t][0], b = tris[t][1], c = tris[t][2];
      // out-of-range triangles are reported by assign_face_groups; keep them out of the buckets
      if (std::min({a, b, c}) < 0 || std::max({a, b, c}) >= nn) a = b = c = 0;
      sort3(a, b, c);
      sorted[size_t(t)] = {a, b, c};
    }
    rest.resize(static_cast<size_t>(nt));
    start = detail::bucket_scatter<1>(
        nt, nn, [&](i32 t, int) { return sorted[size_t(t)][0]; },
        [&](i32 pos, i32 t, int) { rest[size_t(pos)] = {sorted[size_t(t)][1], sorted[size_t(t)][2]}; });
    for (i32 n = 0; n < nn; ++n) std::sort(rest.begin() + start[n], rest.begin() + start[n + 1]);
  }
  bool contains(i32 a, i32 b, i32 c) const {
    return std::binary_search(rest.begin() + start[a], rest.begin() + start[a + 1], std::array<i32, 2>{b, c});
  }
};

// A face problem found in bucket `node`: kind 1 = shared by > 2 tets, 2 = both tets on the same
// side, 3 = a face edge missing from the edge table (cannot happen for faces of tets); `entry` =
// the face's first occurrence in the sorted entries.
struct FaceProblem {
  int kind = 0;
  i32 entry = 0;
};

[[noreturn]] void throw_face_problem(const TetMesh& mesh, i32 a, const FaceProblem& p, const FaceEntry* entries,
                                     const std::vector<i32>& start) {
  const FaceEntry& first = entries[p.entry];
  const i32 b = first.b, c = first.c;
  const bool tagged = !mesh.tet_tags.empty();
  if (p.kind == 1) {
    std::vector<std::int64_t> ids_of_cells;
    for (i32 j = start[a]; j < start[a + 1]; ++j) {
      if (entries[j].b != b || entries[j].c != c) continue;
      const i32 cell = i32(entries[j].code >> 3);
      ids_of_cells.push_back(tagged ? mesh.tet_tags[cell] : std::int64_t{cell});
    }
    std::sort(ids_of_cells.begin(), ids_of_cells.end());
    std::ostringstream cells;
    for (std::size_t k = 0; k < ids_of_cells.size(); ++k) cells << (k ? ", " : "") << (tagged ? "" : "#") << ids_of_cells[k];
    NodeId ids[3] = {a, b, c};  // listed in ascending file tags
    if (mesh.node_tags.size() == mesh.nodes.size())
      std::sort(ids, ids + 3, [&](NodeId x, NodeId y) { return mesh.node_tags[x] < mesh.node_tags[y]; });
    SS_THROW(mesh.source << ": face (" << nodes_label(mesh, ids, 3) << ") is shared by more than two tets (tets "
                         << cells.str() << (tagged ? ")" : ", 0-based)"));
  }
  // The face in its first tet's outward order, rotated to start at a.
  const NodeId nodes[3] = {a, (first.code & 1) ? c : b, (first.code & 1) ? b : c};
  if (p.kind == 2)
    SS_THROW(mesh.source << ": " << tet_label(mesh, i32(first.code >> 3)) << " and " << tet_label(mesh, i32(entries[p.entry + 1].code >> 3))
                         << " lie on the same side of their shared face (" << nodes_label(mesh, nodes, 3)
                         << "): overlapping tets");
  SS_THROW(mesh.source << ": internal error: an edge of face (" << nodes_label(mesh, nodes, 3) << ") is not in the edge table");
}

// Unique faces, the same way on the smallest node, plus face -> cells, cell -> faces and
// face -> edges (needs the edges). A face's node order is the outward order of its first tet,
// rotated to start at its smallest node: (a, b, c) or (a, c, b). With TopologyTables::boundary only
// the boundary faces and the file's triangles get rows (and no cell_faces or face_edges).
void build_faces(const TetMesh& mesh, Topology& topo, void* scratch) {
  const i32 nn = topo.num_nodes, nc = topo.num_cells;
  const bool all = topo.tables == TopologyTables::all;
  FaceEntry* entries = static_cast<FaceEntry*>(scratch);
  const Tet* tets = mesh.tets.data();
  const std::vector<i32> start = detail::bucket_scatter<4>(
      nc, nn,
      [tets](i32 c, int k) {
        const Tet& t = tets[c];
        return std::min(t[kTetFaceNodes[k][0]], std::min(t[kTetFaceNodes[k][1]], t[kTetFaceNodes[k][2]]));
      },
      [tets, entries](i32 pos, i32 c, int k) {
        const Tet& t = tets[c];
        i32 a = t[kTetFaceNodes[k][0]], b = t[kTetFaceNodes[k][1]], cc = t[kTetFaceNodes[k][2]];
        const i32 odd = is_even_cycle(a, b, cc) ? 0 : 1;
        sort3(a, b, cc);
        entries[pos] = FaceEntry{b, cc, ((std::uint32_t(c) * 4 + std::uint32_t(k)) << 1) | std::uint32_t(odd)};
      });
  std::optional<ListedFaces> listed;
  if (!all) listed.emplace(mesh, nn);
  // [i, j): the occurrences of one face in a sorted bucket of node a.
  const auto keep = [&](i32 a, i32 i, i32 j) {
    return all || j - i == 1 || listed->contains(a, entries[i].b, entries[i].c);
  };
  // Sort each bucket on (b, c) (stable: equal faces stay in tet order), count its kept faces and
  // check every face (first problem per node).
  std::vector<i32> faces_per_node(nn, 0);
  std::vector<FaceProblem> problem(nn);
  std::int64_t mesh_faces = 0, boundary = 0;
  bool any_problem = false;
#pragma omp parallel for schedule(dynamic, 4096) reduction(+ : mesh_faces, boundary) reduction(|| : any_problem) if (nn > 20000)
  for (i32 a = 0; a < nn; ++a) {
    FaceEntry *first = entries + start[a], *last = entries + start[a + 1];
    sort_bucket(first, last, [](const FaceEntry& x, const FaceEntry& y) {
      return x.b != y.b ? x.b < y.b : x.c < y.c;
    });
    i32 kept = 0;
    for (i32 i = start[a], j; i < start[a + 1]; i = j) {
      j = i + 1;
      while (j < start[a + 1] && entries[j].b == entries[i].b && entries[j].c == entries[i].c) ++j;
      ++mesh_faces;
      boundary += j - i == 1;
      kept += keep(a, i, j);
      if (problem[a].kind != 0) continue;
      if (j - i > 2) problem[a] = {1, i}, any_problem = true;
      // Two tets on opposite sides see the face with opposite orientations.
      else if (j - i == 2 && (entries[i].code & 1) == (entries[i + 1].code & 1)) problem[a] = {2, i}, any_problem = true;
    }
    faces_per_node[a] = kept;
  }
  if (any_problem)
    for (i32 a = 0; a < nn; ++a)
      if (problem[a].kind != 0) throw_face_problem(mesh, a, problem[a], entries, start);
  topo.mesh_faces = mesh_faces;
  topo.mesh_boundary_faces = boundary;
  topo.face_offsets_by_min_node = std::move(faces_per_node);
  topo.face_offsets_by_min_node.push_back(0);
  topo.num_faces = exclusive_scan(topo.face_offsets_by_min_node);
  const i32 nf = topo.num_faces;
  topo.face_nodes.resize(nf);
  topo.face_cells.resize(nf);
  if (all) {
    topo.face_edges.resize(nf);
    topo.face_edge_signs.resize(nf);
    topo.cell_faces.resize(nc);
    topo.cell_face_signs.resize(nc);
  }
#pragma omp parallel for schedule(dynamic, 4096) reduction(|| : any_problem) if (nn > 20000)
  for (i32 a = 0; a < nn; ++a) {
    i32 f = topo.face_offsets_by_min_node[a];
    for (i32 i = start[a], j; i < start[a + 1]; i = j) {
      const i32 b = entries[i].b, c = entries[i].c;
      j = i + 1;
      while (j < start[a + 1] && entries[j].b == b && entries[j].c == c) ++j;
      if (!keep(a, i, j)) continue;
      const std::uint32_t code0 = entries[i].code;
      const i32 c0 = i32(code0 >> 3), k0 = i32((code0 >> 1) & 3);
      const bool odd = code0 & 1;
      const i32 c1 = j - i >= 2 ? i32(entries[i + 1].code >> 3) : -1;
      topo.face_nodes[f] = odd ? std::array<i32, 3>{a, c, b} : std::array<i32, 3>{a, b, c};
      topo.face_cells[f] = {c0, c1};
      if (all) {
        topo.cell_faces[c0][k0] = f;
        topo.cell_face_signs[c0][k0] = 1;
        if (c1 >= 0) {
          const i32 k1 = i32((entries[i + 1].code >> 1) & 3);
          topo.cell_faces[c1][k1] = f;
          topo.cell_face_signs[c1][k1] = -1;
        }
        // Edges of the cycle: (a, b, c) -> ab, bc, ca;  (a, c, b) -> ac, cb, ba. Taken from the first
        // tet's cell_edges (no search): the face's three local edges, told apart by their nodes.
        i32 ab = -1, ac = -1, bc = -1;
        const Tet& t = mesh.tets[c0];
        const auto& fl = kTetFaceNodes[k0];
        for (int q = 0; q < 3; ++q) {
          const int li = fl[q], lj = fl[(q + 1) % 3];
          const i32 e = topo.cell_edges[c0][kLocalEdge[li][lj]];
          const i32 x = std::min(t[li], t[lj]), y = std::max(t[li], t[lj]);
          (x == a ? (y == b ? ab : ac) : bc) = e;
        }
        if ((ab < 0 || ac < 0 || bc < 0) && problem[a].kind == 0) problem[a] = {3, i}, any_problem = true;
        topo.face_edges[f] = odd ? std::array<i32, 3>{ac, bc, ab} : std::array<i32, 3>{ab, bc, ac};
        topo.face_edge_signs[f] = odd ? std::array<i32, 3>{1, -1, -1} : std::array<i32, 3>{1, 1, -1};
      }
      ++f;
    }
  }
  if (any_problem)
    for (i32 a = 0; a < nn; ++a)
      if (problem[a].kind != 0) throw_face_problem(mesh, a, problem[a], entries, start);
}

// Node -> neighbour CSR from the edge list. Edges are sorted by (low, high), so appending each edge
// to both of its nodes in edge order leaves every node's list sorted by neighbour id.
void build_node_tables(Topology& topo) {
  const std::array<i32, 2>* edges = topo.edge_nodes.data();
  topo.node_neighbors.resize(2 * static_cast<size_t>(topo.num_edges));
  topo.node_edges.resize(topo.node_neighbors.size());
  i32* nbr = topo.node_neighbors.data();
  i32* ned = topo.node_edges.data();
  topo.node_offsets = detail::bucket_scatter<2>(
      topo.num_edges, topo.num_nodes, [edges](i32 e, int k) { return edges[e][k]; },
      [edges, nbr, ned](i32 pos, i32 e, int k) { nbr[pos] = edges[e][1 - k], ned[pos] = e; });
}

// Edge -> faces CSR, the inverse of face_edges (faces ascending: stable scatter in face order).
void build_edge_faces(Topology& topo) {
  const std::array<i32, 3>* fe = topo.face_edges.data();
  topo.edge_faces.resize(3 * static_cast<size_t>(topo.num_faces));
  i32* out = topo.edge_faces.data();
  topo.edge_face_offsets = detail::bucket_scatter<3>(
      topo.num_faces, topo.num_edges, [fe](i32 f, int k) { return fe[f][k]; },
      [out](i32 pos, i32 f, int) { out[pos] = f; });
}

void assign_face_groups(const TetMesh& mesh, Topology& topo) {
  topo.face_groups.assign(topo.num_faces, 0);
  SS_REQUIRE(mesh.triangle_groups.size() == mesh.boundary_triangles.size(),
             mesh.source << ": " << mesh.boundary_triangles.size() << " boundary triangles but "
                         << mesh.triangle_groups.size() << " triangle groups");
  const i32 nt = static_cast<i32>(mesh.boundary_triangles.size());
  std::vector<i32> tri_face(nt);
#pragma omp parallel for schedule(static)
  for (i32 t = 0; t < nt; ++t) {
    const Triangle& tri = mesh.boundary_triangles[t];
    tri_face[t] = topo.find_face(tri[0], tri[1], tri[2]);
  }
  for (i32 t = 0; t < nt; ++t) {
    const Triangle& tri = mesh.boundary_triangles[t];
    SS_REQUIRE(tri_face[t] >= 0, mesh.source << ": " << triangle_label(mesh, t) << " (" << nodes_label(mesh, tri.data(), 3)
                                             << ", " << surface_group_label(mesh, mesh.triangle_groups[t])
                                             << ") is not a face of any tet");
    topo.face_groups[tri_face[t]] = mesh.triangle_groups[t];
  }
  topo.boundary_faces.clear();
  topo.unassigned_faces = 0;
  for (i32 f = 0; f < topo.num_faces; ++f)
    if (topo.face_cells[f][1] < 0) {
      topo.boundary_faces.push_back(f);
      if (topo.face_groups[f] == 0) ++topo.unassigned_faces;
    }
  topo.unassigned_group = 0;
  if (topo.unassigned_faces > 0) {
    topo.unassigned_group = fresh_group_id(mesh);
    for (i32 f : topo.boundary_faces)
      if (topo.face_groups[f] == 0) topo.face_groups[f] = topo.unassigned_group;
  }
}

}  // namespace

std::int32_t Topology::find_edge(std::int32_t a, std::int32_t b) const {
  if (a > b) std::swap(a, b);
  if (a < 0 || b >= num_nodes) return -1;
  return edge_in_bucket(*this, a, b);
}

std::int32_t Topology::find_face(std::int32_t a, std::int32_t b, std::int32_t c) const {
  sort3(a, b, c);
  if (a < 0 || c >= num_nodes) return -1;
  // Faces of bucket a start at their smallest node a; the other two in either order.
  for (i32 f = face_offsets_by_min_node[a]; f < face_offsets_by_min_node[a + 1]; ++f) {
    const i32 y = face_nodes[f][1], z = face_nodes[f][2];
    if (std::min(y, z) == b && std::max(y, z) == c) return f;
  }
  return -1;
}

std::int32_t fresh_group_id(const TetMesh& mesh) {
  i32 id = 0;
  for (const auto& [key, name] : mesh.surface_group_names) id = std::max(id, key);
  for (i32 g : mesh.triangle_groups) id = std::max(id, g);
  if (id < std::numeric_limits<i32>::max()) return id + 1;
  // The file uses group 2^31 - 1 (found by fuzzing: max + 1 overflowed): the smallest free positive number.
  std::set<i32> used(mesh.triangle_groups.begin(), mesh.triangle_groups.end());
  for (const auto& [key, name] : mesh.surface_group_names) used.insert(key);
  i32 free_id = 1;
  for (auto it = used.lower_bound(1); it != used.end() && *it == free_id; ++it) ++free_id;
  return free_id;
}

Topology build_topology(const TetMesh& mesh, TopologyTables tables) {
  Topology topo;
  topo.tables = tables;
  SS_REQUIRE(mesh.nodes.size() < (1u << 31) && std::int64_t(mesh.tets.size()) <= kMaxTets,
             mesh.source << ": mesh too large for 32-bit ids (" << mesh.nodes.size() << " nodes, "
                         << mesh.tets.size() << " tets)");
  topo.num_nodes = static_cast<i32>(mesh.nodes.size());
  topo.num_cells = static_cast<i32>(mesh.tets.size());
  // Node ids in range and distinct: checked in parallel, the first bad tet reported.
  const i32 nc = topo.num_cells, nn = topo.num_nodes;
  i32 first_bad = nc;
#pragma omp parallel for schedule(static) reduction(min : first_bad) if (nc > 65536)
  for (i32 c = 0; c < nc; ++c) {
    const Tet& t = mesh.tets[c];
    bool ok = true;
    for (int i = 0; i < 4; ++i) {
      ok = ok && t[i] >= 0 && t[i] < nn;
      for (int j = 0; j < i; ++j) ok = ok && t[i] != t[j];
    }
    if (!ok) first_bad = std::min(first_bad, c);
  }
  if (first_bad < nc) {
    const Tet& t = mesh.tets[first_bad];
    for (int i = 0; i < 4; ++i) {
      SS_REQUIRE(t[i] >= 0 && t[i] < nn, mesh.source << ": " << tet_with_nodes(mesh, first_bad) << " refers to node #" << t[i]
                                                     << " (0-based) but there are " << nn << " nodes");
      for (int j = 0; j < i; ++j)
        SS_REQUIRE(t[i] != t[j], mesh.source << ": " << tet_with_nodes(mesh, first_bad) << " has a repeated node");
    }
  }
  {
    static_assert(sizeof(EdgeEntry) * 6 >= sizeof(FaceEntry) * 4 && alignof(EdgeEntry) == alignof(FaceEntry));
    auto scratch = detail::uninitialized_array<EdgeEntry>(static_cast<size_t>(topo.num_cells) * 6);
    build_edges(mesh, topo, scratch.get());
    if (tables != TopologyTables::edges) build_faces(mesh, topo, scratch.get());
  }
  build_node_tables(topo);
  if (tables == TopologyTables::all) build_edge_faces(topo);
  if (tables != TopologyTables::edges) assign_face_groups(mesh, topo);
  return topo;
}

}  // namespace ss
