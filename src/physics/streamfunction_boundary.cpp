#include "physics/streamfunction_boundary.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <numeric>
#include <sstream>

#include "util/error.hpp"

namespace ss {

namespace {

struct UnionFind {
  std::vector<std::int32_t> up;
  explicit UnionFind(size_t n) : up(n) { std::iota(up.begin(), up.end(), 0); }
  std::int32_t find(std::int32_t a) {
    while (up[size_t(a)] != a) a = up[size_t(a)] = up[size_t(up[size_t(a)])];
    return a;
  }
  bool join(std::int32_t a, std::int32_t b) {  // false when already joined
    a = find(a), b = find(b);
    if (a == b) return false;
    up[size_t(std::max(a, b))] = std::min(a, b);
    return true;
  }
};

std::int8_t sign_of_edge_in_face(const Topology& t, std::int32_t f, std::int32_t e) {
  for (size_t j = 0; j < 3; ++j)
    if (t.face_edges[size_t(f)][j] == e) return std::int8_t(t.face_edge_signs[size_t(f)][j]);
  SS_THROW("streamfunction boundary: edge " << e << " is not an edge of face " << f);
}

// Solves the tree from its leaves for node fluxes `phi`, on top of the link values already in `s`
// (non-tree links: 0 or a generator's preset value). Returns each root's leftover flux.
std::vector<double> solve_tree(const StreamfunctionBoundary& b, const std::vector<double>& phi, std::vector<double>& s,
                               const std::vector<double>& preset_acc) {
  std::vector<double> acc = preset_acc;
  for (size_t i = b.order.size(); i-- > 0;) {
    const std::int32_t n = b.order[i], e = b.parent_edge[size_t(n)];
    if (e < 0) continue;
    s[size_t(e)] = b.sign_in_node[size_t(n)] * (phi[size_t(n)] - acc[size_t(n)]);
    acc[size_t(b.parent[size_t(n)])] += b.sign_in_parent[size_t(n)] * s[size_t(e)];
  }
  std::vector<double> leftover(b.component_closed.size(), 0.0);
  for (std::int32_t n : b.order)
    if (b.parent_edge[size_t(n)] < 0) leftover[size_t(b.component[size_t(n)])] = phi[size_t(n)] - acc[size_t(n)];
  return leftover;
}

}  // namespace

StreamfunctionBoundary build_streamfunction_boundary(const LoadedMesh& mesh, const FlowProblem& problem) {
  const Topology& t = mesh.topology;
  const std::vector<FlowBoundaryKind> kinds = problem.boundary_kinds();
  const size_t nb = t.boundary_faces.size();
  SS_REQUIRE(kinds.size() == nb, "exact method: " << kinds.size() << " boundary kinds for " << nb << " boundary faces");
  StreamfunctionBoundary b;
  b.num_edges = t.num_edges;
  for (const FlowCondition& c : problem.conditions) b.condition_labels.push_back(c.label);

  // Dual nodes: prescribed faces one each, pressure faces merged into patches across shared edges.
  std::vector<std::int32_t> boundary_index(size_t(t.num_faces), -1);
  for (size_t k = 0; k < nb; ++k) boundary_index[size_t(t.boundary_faces[k])] = std::int32_t(k);
  const auto boundary_faces_of = [&](std::int32_t e, std::int32_t out[2]) {
    int count = 0;
    for (std::int32_t i = t.edge_face_offsets[size_t(e)]; i < t.edge_face_offsets[size_t(e) + 1]; ++i) {
      const std::int32_t f = t.edge_faces[size_t(i)];
      if (boundary_index[size_t(f)] < 0) continue;
      if (count < 2) out[count] = f;
      ++count;
    }
    if (count != 2) {
      const auto& n = t.edge_nodes[size_t(e)];
      SS_THROW("exact method: the boundary edge between nodes " << n[0] << " and " << n[1] << " has " << count
                                                                 << " boundary faces; the boundary must be a manifold "
                                                                    "surface (two boundary faces per boundary edge)");
    }
  };
  b.free_edge_mask.assign(size_t(t.num_edges), 1.0);
  std::vector<std::int32_t> node_of(nb, -1);
  for (size_t k = 0; k < nb; ++k)
    if (kinds[k] != FlowBoundaryKind::pressure) {
      node_of[k] = std::int32_t(b.node_face.size());
      b.node_face.push_back(t.boundary_faces[k]);
      for (std::int32_t e : t.face_edges[size_t(t.boundary_faces[k])]) b.free_edge_mask[size_t(e)] = 0.0;
    }
  UnionFind patches(nb);
  std::vector<std::int32_t> boundary_edges;
  for (size_t k = 0; k < nb; ++k)
    for (std::int32_t e : t.face_edges[size_t(t.boundary_faces[k])]) boundary_edges.push_back(e);
  std::sort(boundary_edges.begin(), boundary_edges.end());
  boundary_edges.erase(std::unique(boundary_edges.begin(), boundary_edges.end()), boundary_edges.end());
  for (std::int32_t e : boundary_edges) {
    std::int32_t f[2];
    boundary_faces_of(e, f);
    const std::int32_t k0 = boundary_index[size_t(f[0])], k1 = boundary_index[size_t(f[1])];
    if (kinds[size_t(k0)] == FlowBoundaryKind::pressure && kinds[size_t(k1)] == FlowBoundaryKind::pressure)
      patches.join(k0, k1);
  }
  std::int32_t num_nodes = std::int32_t(b.node_face.size());
  std::vector<bool> is_patch(size_t(num_nodes), false);
  for (size_t k = 0; k < nb; ++k)
    if (kinds[k] == FlowBoundaryKind::pressure && patches.find(std::int32_t(k)) == std::int32_t(k))
      node_of[k] = num_nodes++, is_patch.push_back(true);
  for (size_t k = 0; k < nb; ++k)
    if (kinds[k] == FlowBoundaryKind::pressure) node_of[k] = node_of[size_t(patches.find(std::int32_t(k)))];

  // Links: fixed boundary edges, with their two nodes and signs.
  struct Link {
    std::int32_t edge, node[2];
    std::int8_t sign[2];
  };
  std::vector<Link> links;
  for (std::int32_t e : boundary_edges) {
    if (b.free_edge_mask[size_t(e)] != 0.0) continue;
    std::int32_t f[2];
    boundary_faces_of(e, f);
    Link l{e, {node_of[size_t(boundary_index[size_t(f[0])])], node_of[size_t(boundary_index[size_t(f[1])])]},
           {sign_of_edge_in_face(t, f[0], e), sign_of_edge_in_face(t, f[1], e)}};
    links.push_back(l);
  }
  std::vector<std::int32_t> link_start(size_t(num_nodes) + 1, 0), link_list;
  for (const Link& l : links) ++link_start[size_t(l.node[0]) + 1], ++link_start[size_t(l.node[1]) + 1];
  std::partial_sum(link_start.begin(), link_start.end(), link_start.begin());
  link_list.resize(size_t(link_start.back()));
  {
    std::vector<std::int32_t> fill(link_start.begin(), link_start.end() - 1);
    for (size_t i = 0; i < links.size(); ++i)
      for (int side = 0; side < 2; ++side) link_list[size_t(fill[size_t(links[i].node[side])]++)] = std::int32_t(i);
  }

  // Components (roots: their first pressure patch, else their first face), then breadth-first trees.
  UnionFind components{size_t(num_nodes)};
  for (const Link& l : links) components.join(l.node[0], l.node[1]);
  std::vector<std::int32_t> root_of(size_t(num_nodes), -1);
  for (std::int32_t n = 0; n < num_nodes; ++n) {
    std::int32_t& root = root_of[size_t(components.find(n))];
    if (root < 0 || (is_patch[size_t(n)] && !is_patch[size_t(root)])) root = n;
  }
  b.parent_edge.assign(size_t(num_nodes), -2), b.parent.assign(size_t(num_nodes), -1);
  b.component.assign(size_t(num_nodes), -1);
  b.sign_in_node.assign(size_t(num_nodes), 0), b.sign_in_parent.assign(size_t(num_nodes), 0);
  std::vector<bool> tree_link(links.size(), false);
  for (std::int32_t n = 0; n < num_nodes; ++n) {
    const std::int32_t root = root_of[size_t(n)];
    if (root < 0) continue;  // not a representative
    const std::int32_t id = std::int32_t(b.component_closed.size());
    b.component_closed.push_back(!is_patch[size_t(root)]);
    b.component_groups.emplace_back();
    size_t head = b.order.size();
    b.order.push_back(root), b.parent_edge[size_t(root)] = -1, b.component[size_t(root)] = id;
    while (head < b.order.size()) {
      const std::int32_t u = b.order[head++];
      for (std::int32_t i = link_start[size_t(u)]; i < link_start[size_t(u) + 1]; ++i) {
        const Link& l = links[size_t(link_list[size_t(i)])];
        const int side = l.node[0] == u ? 1 : 0;  // the far end
        const std::int32_t v = l.node[side];
        if (b.parent_edge[size_t(v)] != -2) continue;
        tree_link[size_t(link_list[size_t(i)])] = true;
        b.parent_edge[size_t(v)] = l.edge, b.parent[size_t(v)] = u, b.component[size_t(v)] = id;
        b.sign_in_node[size_t(v)] = l.sign[side], b.sign_in_parent[size_t(v)] = l.sign[1 - side];
        b.order.push_back(v);
        if (is_patch[size_t(v)]) b.extra_patches.push_back(v);
      }
    }
  }
  for (size_t k = 0; k < nb; ++k) {
    auto& groups = b.component_groups[size_t(b.component[size_t(node_of[k])])];
    const std::int32_t g = problem.boundary_condition[k];
    if (std::find(groups.begin(), groups.end(), g) == groups.end()) groups.push_back(g);
  }

  // Generators: non-tree links that close a cycle of a primal tree grown through non-tree links.
  UnionFind vertices{size_t(t.num_nodes)};
  for (size_t i = 0; i < links.size(); ++i) {
    if (tree_link[i]) continue;
    const Link& l = links[i];
    if (!vertices.join(t.edge_nodes[size_t(l.edge)][0], t.edge_nodes[size_t(l.edge)][1]))
      b.generators.push_back({l.edge, l.node[0], l.node[1], l.sign[0], l.sign[1]});
  }

  // The harmonic basis.
  const std::vector<double> no_flux(size_t(num_nodes), 0.0);
  for (std::int32_t p : b.extra_patches) {
    std::vector<double> phi = no_flux, s(size_t(t.num_edges), 0.0);
    phi[size_t(p)] = 1.0;
    solve_tree(b, phi, s, no_flux);
    b.harmonic.push_back(std::move(s));
    b.harmonic_labels.push_back("flux split between pressure boundaries");
  }
  for (const auto& g : b.generators) {
    std::vector<double> s(size_t(t.num_edges), 0.0), acc = no_flux;
    s[size_t(g.edge)] = 1.0;
    acc[size_t(g.node0)] += g.sign0, acc[size_t(g.node1)] += g.sign1;
    solve_tree(b, no_flux, s, acc);
    b.harmonic.push_back(std::move(s));
    b.harmonic_labels.push_back("circulation around a handle of the domain");
  }
  return b;
}

std::vector<double> streamfunction_lift(const StreamfunctionBoundary& b, const std::vector<double>& face_flux,
                                        double balance_tolerance) {
  const size_t num_nodes = b.parent_edge.size(), num_faces_nodes = b.node_face.size();
  std::vector<double> phi(num_nodes, 0.0);
  for (size_t n = 0; n < num_faces_nodes; ++n) phi[n] = face_flux[size_t(b.node_face[n])];
  // Closed surfaces: Σ U_b must vanish; spread a small imbalance in proportion to |U_b|.
  const size_t nc = b.component_closed.size();
  std::vector<double> net(nc, 0.0), total(nc, 0.0);
  for (size_t n = 0; n < num_faces_nodes; ++n) {
    net[size_t(b.component[n])] += phi[n];
    total[size_t(b.component[n])] += std::fabs(phi[n]);
  }
  for (size_t c = 0; c < nc; ++c) {
    if (!b.component_closed[c] || total[c] == 0.0) continue;
    if (std::fabs(net[c]) > balance_tolerance * total[c]) {
      std::ostringstream groups;
      for (size_t i = 0; i < b.component_groups[c].size(); ++i)
        groups << (i ? ", " : "") << "'" << b.condition_labels[size_t(b.component_groups[c][i])] << "'";
      SS_THROW("exact method: the prescribed fluxes through the closed boundary surface of groups "
               << groups.str() << " do not balance: net outflow " << net[c] << " of total |flux| " << total[c]
               << " (incompressible flow needs zero net flux through a surface without a pressure boundary)");
    }
  }
  for (size_t n = 0; n < num_faces_nodes; ++n) {
    const size_t c = size_t(b.component[n]);
    if (b.component_closed[c] && total[c] > 0.0) phi[n] -= net[c] * std::fabs(phi[n]) / total[c];
  }
  std::vector<double> s(size_t(b.num_edges), 0.0);
  solve_tree(b, phi, s, std::vector<double>(num_nodes, 0.0));
  return s;
}

StreamfunctionKernel streamfunction_kernel(const Topology& t, const std::vector<double>& free_edge_mask) {
  const size_t nn = size_t(t.num_nodes), ne = size_t(t.num_edges);
  std::vector<bool> on_fixed_edge(nn, false);  // potential 0: no column entries
  for (size_t e = 0; e < ne; ++e)
    if (free_edge_mask[e] == 0.0) on_fixed_edge[size_t(t.edge_nodes[e][0])] = on_fixed_edge[size_t(t.edge_nodes[e][1])] = true;
  StreamfunctionKernel k;
  std::vector<Triplet> entries;
  k.degree.assign(nn, 0.0);
  for (size_t e = 0; e < ne; ++e)
    for (int end = 0; end < 2; ++end)
      if (const std::int32_t n = t.edge_nodes[e][size_t(end)]; !on_fixed_edge[size_t(n)]) {
        entries.push_back({std::int32_t(e), n, end == 0 ? -1.0 : 1.0});
        k.degree[size_t(n)] += 1.0;
      }
  k.gradient = from_triplets(std::int32_t(ne), t.num_nodes, std::move(entries));
  return k;
}

StreamfunctionSetup serial_streamfunction_setup(const LoadedMesh& mesh, const FlowProblem& problem) {
  StreamfunctionSetup s;
  s.boundary = build_streamfunction_boundary(mesh, problem);
  s.lift = [b = std::make_shared<const StreamfunctionBoundary>(s.boundary)](const std::vector<double>& face_flux) {
    return streamfunction_lift(*b, face_flux);
  };
  s.complete_edges = s.complete_nodes = [](std::vector<double>&) {};
  s.owned_edge_mask.assign(s.boundary.free_edge_mask.size(), 1.0);
  return s;
}

}  // namespace ss
