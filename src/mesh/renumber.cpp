#include "mesh/renumber.hpp"

#include <algorithm>
#include <chrono>
#include <numeric>

#include "mesh/bucket_sort.hpp"
#include "util/error.hpp"

namespace ss {
namespace {

using i32 = std::int32_t;

// Node graph as CSR (no self loops) from the tets' edges.
struct NodeGraph {
  std::vector<i32> offsets;  // n + 1
  std::vector<i32> adj;
};

// Every tet scatters its 12 directed edges into buckets by source node (reading the tets in order:
// the file's tet order may have poor locality, and scattered writes are cheaper than scattered
// reads); each bucket is then made unique with a per-thread marker array (no sorting; neighbour
// order is unspecified).
NodeGraph node_graph(const TetMesh& mesh) {
  const i32 nn = static_cast<i32>(mesh.nodes.size()), nc = static_cast<i32>(mesh.tets.size());
  const Tet* tets = mesh.tets.data();
  auto pairs_owner = detail::uninitialized_array<i32>(static_cast<std::size_t>(nc) * 12);
  i32* pairs = pairs_owner.get();
  // Item k of a tet: source local node k / 3, target the (k % 3)-th other local node.
  static constexpr int kOther[4][3] = {{1, 2, 3}, {0, 2, 3}, {0, 1, 3}, {0, 1, 2}};
  const std::vector<i32> start = detail::bucket_scatter<12>(
      nc, nn, [tets](i32 c, int k) { return tets[c][k / 3]; },
      [tets, pairs](i32 pos, i32 c, int k) { pairs[pos] = tets[c][kOther[k / 3][k % 3]]; });
  std::vector<i32> count(static_cast<std::size_t>(nn));
  NodeGraph g;
  g.offsets.resize(static_cast<std::size_t>(nn) + 1);
  bool out_of_memory = false;  // a thread's marks could not be had (reported after the region)
#pragma omp parallel if (nn > 20000)
  {
    std::vector<i32> mark;
    const bool ok = detail::allocating([&] { mark.assign(static_cast<std::size_t>(nn), -1); }, out_of_memory);
    // Unique neighbours compacted to the front of each bucket.
#pragma omp for schedule(dynamic, 2048)
    for (i32 u = 0; u < nn; ++u) {
      if (!ok) continue;
      i32 n = start[u];
      for (i32 k = start[u]; k < start[u + 1]; ++k) {
        const i32 v = pairs[k];
        if (mark[v] != u) mark[v] = u, pairs[n++] = v;
      }
      count[u] = n - start[u];
    }
#pragma omp single
    if (!out_of_memory) {
      g.offsets[0] = 0;
      for (i32 u = 0; u < nn; ++u) g.offsets[u + 1] = g.offsets[u] + count[u];
      detail::allocating([&] { g.adj.resize(static_cast<std::size_t>(g.offsets[nn])); }, out_of_memory);
    }
    bool failed;
#pragma omp atomic read
    failed = out_of_memory;
#pragma omp for schedule(static)
    for (i32 u = 0; u < nn; ++u)
      if (!failed) std::copy_n(pairs + start[u], count[u], g.adj.begin() + g.offsets[u]);
  }
  if (out_of_memory) throw std::bad_alloc();
  return g;
}

// Bandwidth and profile of a CSR graph of nn nodes under the numbering new_id (identity when empty).
GraphBandwidth bandwidth_of(i32 nn, const i32* offsets, const i32* adj, const std::vector<NodeId>& new_id) {
  std::int64_t bw = 0, profile = 0;
#pragma omp parallel for schedule(static) reduction(max : bw) reduction(+ : profile) if (nn > 50000)
  for (i32 u = 0; u < nn; ++u) {
    const i32 i = new_id.empty() ? u : new_id[u];
    i32 lo = i;
    for (i32 k = offsets[u]; k < offsets[u + 1]; ++k) {
      const i32 j = new_id.empty() ? adj[k] : new_id[adj[k]];
      bw = std::max<std::int64_t>(bw, j > i ? j - i : i - j);
      lo = std::min(lo, j);
    }
    profile += i - lo;
  }
  return {bw, profile};
}

GraphBandwidth bandwidth_of(const NodeGraph& g, const std::vector<NodeId>& new_id) {
  return bandwidth_of(static_cast<i32>(g.offsets.size()) - 1, g.offsets.data(), g.adj.data(), new_id);
}

// Breadth-first search from `root` within unvisited nodes (mark != stamp); returns the depth
// and leaves the last level in `last`.
int bfs_levels(const NodeGraph& g, i32 root, std::vector<i32>& mark, i32 stamp, const std::vector<char>& done,
               std::vector<i32>& queue, std::vector<i32>& last) {
  queue.clear();
  queue.push_back(root);
  mark[root] = stamp;
  std::size_t level_begin = 0;
  int depth = 0;
  while (true) {
    const std::size_t level_end = queue.size();
    for (std::size_t q = level_begin; q < level_end; ++q) {
      const i32 u = queue[q];
      for (i32 k = g.offsets[u]; k < g.offsets[u + 1]; ++k) {
        const i32 v = g.adj[k];
        if (mark[v] != stamp && !done[v]) mark[v] = stamp, queue.push_back(v);
      }
    }
    if (queue.size() == level_end) {
      last.assign(queue.begin() + static_cast<std::ptrdiff_t>(level_begin), queue.end());
      return depth;
    }
    level_begin = level_end;
    ++depth;
  }
}

std::vector<NodeId> rcm(const NodeGraph& g, i32* components) {
  const i32 nn = static_cast<i32>(g.offsets.size()) - 1;
  auto degree = [&](i32 u) { return g.offsets[u + 1] - g.offsets[u]; };
  std::vector<i32> order;
  order.reserve(static_cast<std::size_t>(nn));
  std::vector<char> done(static_cast<std::size_t>(nn), 0);
  std::vector<i32> mark(static_cast<std::size_t>(nn), -1), queue, last, nbrs;
  i32 stamp = 0, ncomp = 0;
  // Components in order of their lowest-degree node (ties: lowest id).
  std::vector<i32> by_degree(static_cast<std::size_t>(nn));
  std::iota(by_degree.begin(), by_degree.end(), 0);
  std::stable_sort(by_degree.begin(), by_degree.end(), [&](i32 a, i32 b) { return degree(a) < degree(b); });
  for (i32 seed : by_degree) {
    if (done[seed]) continue;
    ++ncomp;
    // Pseudo-peripheral root (George & Liu): hop to a min-degree node of the last BFS level while
    // the eccentricity grows.
    i32 root = seed;
    int depth = bfs_levels(g, root, mark, stamp++, done, queue, last);
    for (int iter = 0; iter < 8; ++iter) {
      const i32 cand = *std::min_element(last.begin(), last.end(), [&](i32 a, i32 b) {
        return degree(a) != degree(b) ? degree(a) < degree(b) : a < b;
      });
      if (cand == root) break;
      const int d = bfs_levels(g, cand, mark, stamp++, done, queue, last);
      if (d <= depth) break;
      root = cand, depth = d;
    }
    // Cuthill–McKee: BFS, unvisited neighbours by ascending degree.
    const std::size_t begin = order.size();
    order.push_back(root);
    done[root] = 1;
    for (std::size_t q = begin; q < order.size(); ++q) {
      const i32 u = order[q];
      nbrs.clear();
      for (i32 k = g.offsets[u]; k < g.offsets[u + 1]; ++k)
        if (!done[g.adj[k]]) nbrs.push_back(g.adj[k]), done[g.adj[k]] = 1;
      std::sort(nbrs.begin(), nbrs.end(),
                [&](i32 a, i32 b) { return degree(a) != degree(b) ? degree(a) < degree(b) : a < b; });
      order.insert(order.end(), nbrs.begin(), nbrs.end());
    }
  }
  if (components) *components = ncomp;
  std::vector<NodeId> new_id(static_cast<std::size_t>(nn));
  for (i32 k = 0; k < nn; ++k) new_id[order[k]] = nn - 1 - k;  // reversed
  return new_id;
}

// Stable counting sort of `count` items by key in [0, nn): returns the item order.
template <class Key>
std::vector<i32> order_by_key(i32 count, i32 nn, Key key) {
  std::vector<i32> order(static_cast<std::size_t>(count));
  i32* out = order.data();
  detail::bucket_scatter<1>(count, nn, [&key](i32 i, int) { return key(i); }, [out](i32 pos, i32 i, int) { out[pos] = i; });
  return order;
}

template <class T>
void permute(std::vector<T>& v, const std::vector<i32>& order) {
  if (v.size() != order.size()) return;  // absent (e.g. no tags): nothing to permute
  std::vector<T> out(v.size());
#pragma omp parallel for schedule(static) if (order.size() > 100000)
  for (i32 k = 0; k < static_cast<i32>(order.size()); ++k) out[k] = v[order[k]];
  v = std::move(out);
}

}  // namespace

GraphBandwidth node_graph_bandwidth(const TetMesh& mesh) { return bandwidth_of(node_graph(mesh), {}); }

GraphBandwidth node_graph_bandwidth(const std::vector<std::int32_t>& offsets, const std::vector<std::int32_t>& neighbors) {
  SS_REQUIRE(!offsets.empty() && size_t(offsets.back()) == neighbors.size(), "node graph: inconsistent CSR");
  return bandwidth_of(static_cast<i32>(offsets.size()) - 1, offsets.data(), neighbors.data(), {});
}

std::vector<NodeId> reverse_cuthill_mckee(const TetMesh& mesh, std::int32_t* components) {
  return rcm(node_graph(mesh), components);
}

RenumberReport renumber_for_locality(TetMesh& mesh) {
  const auto t0 = std::chrono::steady_clock::now();
  SS_REQUIRE(mesh.nodes.size() < (1u << 31) && mesh.tets.size() < (1u << 31),
             mesh.source << ": mesh too large for 32-bit ids");
  RenumberReport report;
  const i32 nn = static_cast<i32>(mesh.nodes.size());
  const NodeGraph g = node_graph(mesh);
  report.before = bandwidth_of(g, {});
  const std::vector<NodeId> new_id = rcm(g, &report.components);
  report.after = bandwidth_of(g, new_id);

  // Nodes: coordinates and tags to their new places.
  std::vector<i32> node_order(static_cast<std::size_t>(nn));
  for (i32 u = 0; u < nn; ++u) node_order[new_id[u]] = u;
  permute(mesh.nodes, node_order);
  permute(mesh.node_tags, node_order);

  // Tets: relabel, then order by smallest new node (stable: ties keep their previous order).
  const i32 nc = static_cast<i32>(mesh.tets.size());
#pragma omp parallel for schedule(static) if (nc > 100000)
  for (i32 c = 0; c < nc; ++c)
    for (NodeId& v : mesh.tets[c]) v = new_id[v];
  auto tet_min = [&](i32 c) { const Tet& t = mesh.tets[c]; return std::min(std::min(t[0], t[1]), std::min(t[2], t[3])); };
  const std::vector<i32> tet_order = order_by_key(nc, nn, tet_min);
  permute(mesh.tets, tet_order);
  permute(mesh.tet_groups, tet_order);
  permute(mesh.tet_tags, tet_order);
  permute(mesh.corner_shifts, tet_order);

  // Boundary triangles likewise.
  const i32 nt = static_cast<i32>(mesh.boundary_triangles.size());
  for (i32 i = 0; i < nt; ++i)
    for (NodeId& v : mesh.boundary_triangles[i]) {
      SS_REQUIRE(v >= 0 && v < nn, mesh.source << ": " << triangle_label(mesh, i) << " refers to node #" << v
                                               << " (0-based) but there are " << nn << " nodes");
      v = new_id[v];
    }
  auto tri_min = [&](i32 i) { const Triangle& t = mesh.boundary_triangles[i]; return std::min(t[0], std::min(t[1], t[2])); };
  const std::vector<i32> tri_order = order_by_key(nt, nn, tri_min);
  permute(mesh.boundary_triangles, tri_order);
  permute(mesh.triangle_groups, tri_order);
  permute(mesh.triangle_tags, tri_order);
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return report;
}

}  // namespace ss
