#include "operators/edge_auxiliary_spaces.hpp"

#include "util/error.hpp"

namespace ss {

SparseMatrix curl_matrix(const Topology& t) {
  SS_REQUIRE(t.face_edges.size() == size_t(t.num_faces), "curl matrix: the topology has no face edges");
  std::vector<Triplet> entries;
  entries.reserve(3 * size_t(t.num_faces));
  for (std::int32_t f = 0; f < t.num_faces; ++f)
    for (size_t j = 0; j < 3; ++j)
      entries.push_back({f, t.face_edges[size_t(f)][j], double(t.face_edge_signs[size_t(f)][j])});
  return from_triplets(t.num_faces, t.num_edges, std::move(entries));
}

std::array<SparseMatrix, 3> nedelec_interpolation(const Topology& t, const std::vector<glm::dvec3>& nodes,
                                                  const std::vector<double>& free_edge_mask) {
  SS_REQUIRE(free_edge_mask.size() == size_t(t.num_edges), "Nedelec interpolation: the edge mask has "
                                                               << free_edge_mask.size() << " values for "
                                                               << t.num_edges << " edges");
  std::array<SparseMatrix, 3> pi;
  for (int d = 0; d < 3; ++d) {
    std::vector<Triplet> entries;
    entries.reserve(2 * size_t(t.num_edges));
    for (std::int32_t e = 0; e < t.num_edges; ++e) {
      if (free_edge_mask[size_t(e)] == 0.0) continue;
      const auto [a, b] = t.edge_nodes[size_t(e)];
      const double half_tangent = 0.5 * (nodes[size_t(b)][d] - nodes[size_t(a)][d]);
      if (half_tangent == 0.0) continue;  // an edge across axis d: no entries (no empty column kept)
      entries.push_back({e, a, half_tangent});
      entries.push_back({e, b, half_tangent});
    }
    pi[size_t(d)] = from_triplets(t.num_edges, std::int32_t(nodes.size()), std::move(entries));
  }
  return pi;
}

}  // namespace ss
