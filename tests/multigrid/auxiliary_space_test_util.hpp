#pragma once
// Shared by the auxiliary-space preconditioner tests: an edge system of the streamfunction's kind,
// A = E Cᵀ diag(w) C E + G diag(W) Gᵀ, on a project mesh whose boundary edges are fixed (as a
// cavity's walls fix them), with face weights w in [1, 2] and a gauge weight W that is 1 % of w
// (the exact method's gauge is this small), assembled on the host.
#include <array>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "multigrid/auxiliary_space_setup.hpp"
#include "operators/edge_auxiliary_spaces.hpp"
#include "physics/streamfunction_boundary.hpp"
#include "support/project_mesh.hpp"

namespace ss::test {

struct EdgeSystem {
  const LoadedMesh* mesh = nullptr;
  std::vector<double> free_edge;  // 1 free, 0 fixed (a boundary edge)
  SparseMatrix matrix;            // A (fixed edges: empty rows and columns)
  std::vector<double> l1_inverse;  // 1 / Σ_j |a_ij| on free edges, 0 on fixed ones
  std::vector<double> node_weight;
  AuxiliarySpaceMatrices spaces;
};

// With the face weights w and the node weights W given.
inline EdgeSystem edge_system(const LoadedMesh& mesh, const std::vector<double>& w, const std::vector<double>& node_weight) {
  EdgeSystem s;
  s.mesh = &mesh;
  const Topology& t = s.mesh->topology;
  s.free_edge.assign(size_t(t.num_edges), 1.0);
  for (std::int32_t f : t.boundary_faces)
    for (std::int32_t e : t.face_edges[size_t(f)]) s.free_edge[size_t(e)] = 0.0;
  const SparseMatrix gradient = streamfunction_kernel(t, s.free_edge).gradient;
  s.node_weight = node_weight;
  const SparseMatrix curl = curl_matrix(t);
  std::vector<Triplet> mask, weights, node_weights;
  for (std::int32_t e = 0; e < t.num_edges; ++e) mask.push_back({e, e, s.free_edge[size_t(e)]});
  for (std::int32_t f = 0; f < t.num_faces; ++f) weights.push_back({f, f, w[size_t(f)]});
  for (std::int32_t n = 0; n < t.num_nodes; ++n) node_weights.push_back({n, n, s.node_weight[size_t(n)]});
  const SparseMatrix masked_curl = multiply(curl, from_triplets(t.num_edges, t.num_edges, std::move(mask)));
  const SparseMatrix curl_part = multiply(transpose(masked_curl),
                                          multiply(from_triplets(t.num_faces, t.num_faces, std::move(weights)), masked_curl));
  const SparseMatrix gauge_part = multiply(
      gradient, multiply(from_triplets(t.num_nodes, t.num_nodes, std::move(node_weights)), transpose(gradient)));
  std::vector<Triplet> entries;
  for (const SparseMatrix* m : {&curl_part, &gauge_part})
    for (std::int32_t i = 0; i < m->rows; ++i)
      for (std::int32_t k = m->offsets[size_t(i)]; k < m->offsets[size_t(i) + 1]; ++k)
        entries.push_back({i, m->columns[size_t(k)], m->values[size_t(k)]});
  s.matrix = from_triplets(t.num_edges, t.num_edges, std::move(entries));
  s.l1_inverse.assign(size_t(t.num_edges), 0.0);
  for (std::int32_t e = 0; e < t.num_edges; ++e) {
    double sum = 0;
    for (std::int32_t k = s.matrix.offsets[size_t(e)]; k < s.matrix.offsets[size_t(e) + 1]; ++k)
      sum += std::fabs(s.matrix.values[size_t(k)]);
    if (s.free_edge[size_t(e)] != 0.0) s.l1_inverse[size_t(e)] = 1.0 / sum;
  }
  s.spaces = auxiliary_space_matrices(curl, gradient, nedelec_interpolation(t, s.mesh->mesh.nodes, s.free_edge), w,
                                      s.node_weight);
  return s;
}

// w uniform in [1, 2], W = 0.01.
inline EdgeSystem edge_system(const LoadedMesh& mesh) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(1.0, 2.0);
  std::vector<double> w(size_t(mesh.topology.num_faces));
  for (double& x : w) x = u(rng);
  return edge_system(mesh, w, std::vector<double>(size_t(mesh.topology.num_nodes), 0.01));
}

inline EdgeSystem edge_system(const std::string& file, int refine) { return edge_system(project_mesh(file, refine)); }

// The system's G, C and Π (the auxiliary space's inputs).
struct EdgeOperators {
  SparseMatrix gradient, curl;
  std::array<SparseMatrix, 3> interpolation;
};
inline EdgeOperators edge_operators(const EdgeSystem& s) {
  const Topology& t = s.mesh->topology;
  return {streamfunction_kernel(t, s.free_edge).gradient, curl_matrix(t),
          nedelec_interpolation(t, s.mesh->mesh.nodes, s.free_edge)};
}

// The mixes w_0 + ρ w_1, W_0 + ρ W_1 of the recombination tests: w_0 = 1 (a mass part), w_1 from
// 0.01 to 100 (a viscous part that varies over the mesh), W_0 = 0.01, W_1 = 0.02.
struct WeightMix {
  std::vector<double> w0, w1, big_w0, big_w1;
  std::vector<double> face(double rho) const {
    std::vector<double> w(w0.size());
    for (size_t f = 0; f < w.size(); ++f) w[f] = w0[f] + rho * w1[f];
    return w;
  }
  std::vector<double> node(double rho) const {
    std::vector<double> w(big_w0.size());
    for (size_t n = 0; n < w.size(); ++n) w[n] = big_w0[n] + rho * big_w1[n];
    return w;
  }
};
inline WeightMix weight_mix(const Topology& t) {
  WeightMix m;
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> u(-2.0, 2.0);
  m.w0.assign(size_t(t.num_faces), 1.0);
  for (std::int32_t f = 0; f < t.num_faces; ++f) m.w1.push_back(std::pow(10.0, u(rng)));
  m.big_w0.assign(size_t(t.num_nodes), 0.01);
  m.big_w1.assign(size_t(t.num_nodes), 0.02);
  return m;
}

// Uniform values in [−1, 1] on the free edges, 0 on the fixed ones.
inline std::vector<double> random_free_edges(const EdgeSystem& s, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<double> v(s.free_edge.size());
  for (size_t e = 0; e < v.size(); ++e) v[e] = s.free_edge[e] * u(rng);
  return v;
}

}  // namespace ss::test
