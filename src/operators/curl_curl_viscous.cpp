// Host assembly of the curl–curl viscous operator (curl_curl_viscous.hpp), in double.
#include "operators/curl_curl_viscous.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <utility>

#include "mesh/bucket_sort.hpp"

#include <glm/geometric.hpp>

#include "util/error.hpp"

namespace ss {

namespace {

// ∫_K λ_i λ_j dV / V_K.
double barycentric_product(int i, int j) { return i == j ? 0.1 : 0.05; }

// Surface gradient of the face barycentric of vertex a in the triangle (a, b, c).
glm::dvec3 surface_gradient(const glm::dvec3& a, const glm::dvec3& b, const glm::dvec3& c) {
  const glm::dvec3 e = c - b, ab = a - b;
  const glm::dvec3 d = ab - e * (glm::dot(e, ab) / glm::dot(e, e));  // from the opposite edge to a
  return d / glm::dot(d, d);
}

}  // namespace

std::vector<double> lanczos_edge_start(const LoadedMesh& mesh) {
  const Topology& t = mesh.topology;
  std::vector<double> start(size_t(t.num_edges));
  for (std::int32_t e = 0; e < t.num_edges; ++e) {
    const glm::dvec3& a = mesh.mesh.nodes[size_t(t.edge_nodes[size_t(e)][0])];
    const glm::dvec3& b = mesh.mesh.nodes[size_t(t.edge_nodes[size_t(e)][1])];
    const glm::dvec3 mid = 0.5 * (a + b);
    std::uint64_t key = 0;
    for (int k = 0; k < 3; ++k) {  // x, y, z bits mixed in turn (FNV-style)
      std::uint64_t bits = 0;
      std::memcpy(&bits, &mid[k], sizeof bits);
      key = (key ^ bits) * 1099511628211ull;
    }
    const bool ascending = a.x < b.x || (a.x == b.x && (a.y < b.y || (a.y == b.y && a.z < b.z)));
    start[size_t(e)] = ascending ? lanczos_start_value(key) : -lanczos_start_value(key);
  }
  return start;
}

namespace {

// A tet's corners, ∇λ_k = −(outward area vector of the face opposite k)/(3V), volume, centroid and
// spread (1/V)∫|x − x̄|² dV = (1/20) Σ_k |x_k − x̄|².
struct CellShape {
  glm::dvec3 x[4], grad[4], centroid;
  double volume = 0, spread = 0;
};

CellShape cell_shape(const TetMesh& mesh, std::int32_t c) {
  CellShape s;
  corner_positions(mesh, size_t(c), s.x);
  s.volume = glm::dot(glm::cross(s.x[1] - s.x[0], s.x[2] - s.x[0]), s.x[3] - s.x[0]) / 6.0;
  for (int k = 0; k < 4; ++k) {
    const glm::dvec3 &p0 = s.x[kTetFaceNodes[k][0]], &p1 = s.x[kTetFaceNodes[k][1]], &p2 = s.x[kTetFaceNodes[k][2]];
    s.grad[k] = -glm::cross(p1 - p0, p2 - p0) / (6.0 * s.volume);
  }
  s.centroid = 0.25 * (s.x[0] + s.x[1] + s.x[2] + s.x[3]);
  for (int k = 0; k < 4; ++k) s.spread += glm::dot(s.x[k] - s.centroid, s.x[k] - s.centroid) / 20.0;
  return s;
}

// Index of `id` among the first n entries of `ids`.
template <class Ids>
int local_index(const Ids& ids, std::int32_t id) {
  int k = 0;
  while (ids[size_t(k)] != id) ++k;
  return k;
}

}  // namespace

void rt0_face_mass_row(const LoadedMesh& loaded, std::int32_t c, int i, double row[4]) {
  // RT0 φ_k = s_k (x − x_k)/(3V) for the face opposite local node k (flux 1 through it along the
  // global normal): (φ_i, φ_j) = s_i s_j/(9V) [(x̄ − x_i)·(x̄ − x_j) + spread]
  const CellShape s = cell_shape(loaded.mesh, c);
  const auto& signs = loaded.topology.cell_face_signs[size_t(c)];
  for (int j = 0; j < 4; ++j)
    row[j] = double(signs[size_t(i)] * signs[size_t(j)]) / (9.0 * s.volume) *
             (glm::dot(s.centroid - s.x[i], s.centroid - s.x[j]) + s.spread);
}

void n0_edge_mass_row(const LoadedMesh& loaded, std::int32_t c, int a, double row[6]) {
  // N0 N_ij = λ_i∇λ_j − λ_j∇λ_i along the edge's low → high direction:
  // (N_ij, N_kl) = V [⟨λ_iλ_k⟩∇λ_j·∇λ_l − ⟨λ_iλ_l⟩∇λ_j·∇λ_k − ⟨λ_jλ_k⟩∇λ_i·∇λ_l + ⟨λ_jλ_l⟩∇λ_i·∇λ_k]
  const CellShape s = cell_shape(loaded.mesh, c);
  const Tet& tet = loaded.mesh.tets[size_t(c)];
  const int i = kTetEdgeNodes[a][0], j = kTetEdgeNodes[a][1];
  const double sa = tet[size_t(i)] < tet[size_t(j)] ? 1.0 : -1.0;
  for (int b = 0; b < 6; ++b) {
    const int k = kTetEdgeNodes[b][0], l = kTetEdgeNodes[b][1];
    const double sb = tet[size_t(k)] < tet[size_t(l)] ? 1.0 : -1.0;
    const double v = s.volume * (barycentric_product(i, k) * glm::dot(s.grad[j], s.grad[l]) -
                                 barycentric_product(i, l) * glm::dot(s.grad[j], s.grad[k]) -
                                 barycentric_product(j, k) * glm::dot(s.grad[i], s.grad[l]) +
                                 barycentric_product(j, l) * glm::dot(s.grad[i], s.grad[k]));
    row[b] = sa * sb * v;
  }
}

SparseMatrix rt0_face_mass(const LoadedMesh& loaded) {
  const Topology& t = loaded.topology;
  // Row f: the rows of its one or two cells, the lower cell id first (element order).
  return assemble_rows(t.num_faces, t.num_faces, [&](std::int32_t f, RowEntries& entries) {
    std::array<std::int32_t, 2> cells = t.face_cells[size_t(f)];
    if (cells[1] >= 0 && cells[1] < cells[0]) std::swap(cells[0], cells[1]);
    for (const std::int32_t c : cells) {
      if (c < 0) continue;
      const int i = local_index(t.cell_faces[size_t(c)], f);
      double row[4];
      rt0_face_mass_row(loaded, c, i, row);
      for (int j = 0; j < 4; ++j) entries.emplace_back(t.cell_faces[size_t(c)][size_t(j)], row[j]);
    }
  });
}

SparseMatrix n0_edge_mass(const LoadedMesh& loaded) {
  const Topology& t = loaded.topology;
  // The cells around each edge, ascending (a stable counting sort of cell_edges by edge).
  std::vector<std::int32_t> around(size_t(t.num_cells) * 6);
  const std::vector<std::int32_t> start = detail::bucket_scatter<6>(
      t.num_cells, t.num_edges, [&](std::int32_t c, int k) { return t.cell_edges[size_t(c)][size_t(k)]; },
      [&](std::int64_t at, std::int32_t c, int k) { around[size_t(at)] = 6 * c + k; });
  return assemble_rows(t.num_edges, t.num_edges, [&](std::int32_t e, RowEntries& entries) {
    for (std::int32_t at = start[size_t(e)]; at < start[size_t(e) + 1]; ++at) {
      const std::int32_t c = around[size_t(at)] / 6;
      double row[6];
      n0_edge_mass_row(loaded, c, around[size_t(at)] % 6, row);
      for (int b = 0; b < 6; ++b) entries.emplace_back(t.cell_edges[size_t(c)][size_t(b)], row[b]);
    }
  });
}

SparseMatrix curl_incidence_transpose(const Topology& t) {
  // Row e: the faces around e (ascending), each with the sign of e in its node cycle.
  return assemble_rows(t.num_edges, t.num_faces, [&](std::int32_t e, RowEntries& entries) {
    for (std::int32_t k = t.edge_face_offsets[size_t(e)]; k < t.edge_face_offsets[size_t(e) + 1]; ++k) {
      const std::int32_t f = t.edge_faces[size_t(k)];
      const int j = local_index(t.face_edges[size_t(f)], e);
      entries.emplace_back(f, double(t.face_edge_signs[size_t(f)][size_t(j)]));
    }
  });
}

SparseMatrix curl_incidence(const Topology& t) {
  // C: the circulation of an edge field around face f along its node cycle (right-handed about the
  // face normal) = the flux of its curl through f.
  return assemble_rows(t.num_faces, t.num_edges, [&](std::int32_t f, RowEntries& entries) {
    for (int k = 0; k < 3; ++k)
      entries.emplace_back(t.face_edges[size_t(f)][size_t(k)], double(t.face_edge_signs[size_t(f)][size_t(k)]));
  });
}

CurlCurlViscousData build_curl_curl_viscous(const LoadedMesh& loaded, const std::vector<FlowBoundaryKind>& kinds,
                                            double tolerance, const LanczosSpace* edges) {
  const Topology& t = loaded.topology;
  const TetMesh& mesh = loaded.mesh;
  SS_REQUIRE(kinds.size() == t.boundary_faces.size(),
             "curl-curl viscous operator: " << kinds.size() << " boundary kinds for " << t.boundary_faces.size()
                                            << " boundary faces");
  SS_REQUIRE(tolerance > 0 && tolerance < 1, "curl-curl viscous operator: tolerance " << tolerance << " not in (0, 1)");
  const std::int32_t nc = t.num_cells, nf = t.num_faces, ne = t.num_edges;
  std::int32_t bad_cell = nc;  // the first tet with a non-positive volume, if any
#pragma omp parallel for schedule(static) reduction(min : bad_cell) if (nc > 10000)
  for (std::int32_t c = 0; c < nc; ++c) {
    glm::dvec3 x[4];
    corner_positions(mesh, size_t(c), x);
    if (!(glm::dot(glm::cross(x[1] - x[0], x[2] - x[0]), x[3] - x[0]) / 6.0 > 0)) bad_cell = std::min(bad_cell, c);
  }
  if (bad_cell < nc) {
    glm::dvec3 x[4];
    corner_positions(mesh, size_t(bad_cell), x);
    SS_THROW("curl-curl viscous operator: tet " << bad_cell << " has volume "
                                                << glm::dot(glm::cross(x[1] - x[0], x[2] - x[0]), x[3] - x[0]) / 6.0);
  }
  // B = Cᵀ M_f and F = −M_f C: M_f is symmetric bit for bit and both products add the same terms
  // in the same (ascending face) order, so F = −Bᵀ exactly.
  CurlCurlViscousData d;
  {
    const SparseMatrix mf = rt0_face_mass(loaded);
    d.vorticity_source = multiply(curl_incidence_transpose(t), mf);
    d.viscous_force = multiply(mf, curl_incidence(t));
  }
  for (double& v : d.viscous_force.values) v = -v;
  d.edge_mass = n0_edge_mass(loaded);

  // Slip faces hold ω = 0 on their edges (ω × n = 0: no shear).
  std::vector<char> held(size_t(ne), 0);
  for (size_t k = 0; k < kinds.size(); ++k)
    if (kinds[k] == FlowBoundaryKind::slip)
      for (const std::int32_t e : t.face_edges[size_t(t.boundary_faces[k])]) held[size_t(e)] = 1;
  const std::vector<double> edge_diagonal = d.edge_mass.diagonal();
  d.edge_inverse_diagonal.resize(size_t(ne));
  for (std::int32_t e = 0; e < ne; ++e) d.edge_inverse_diagonal[size_t(e)] = held[size_t(e)] ? 0.0 : 1.0 / edge_diagonal[size_t(e)];

  // Chebyshev interval: Lanczos' Ritz values lie inside the spectrum, so widen them (a too-high lower
  // end only costs accuracy at the bottom of the spectrum; the polynomial stays positive below it).
  LanczosSpace space = edges ? *edges : LanczosSpace{};
  space.start = lanczos_edge_start(loaded);
  const EigenRange ritz = estimate_eigen_range(
      [&](const std::vector<double>& x, std::vector<double>& y) { d.edge_mass.multiply(x, y); },
      d.edge_inverse_diagonal, 40, space);
  d.range.lo = 0.8 * ritz.lo, d.range.hi = 1.05 * ritz.hi;
  // Relative error of the degree-m Chebyshev approximation of 1/λ on the interval: ≤ 2ρ^m,
  // ρ = (√κ − 1)/(√κ + 1), κ = hi/lo.
  const double root = std::sqrt(d.range.hi / d.range.lo), rho = (root - 1.0) / (root + 1.0);
  d.degree = std::max(1, int(std::ceil(std::log(2.0 / tolerance) / std::log(1.0 / rho))));

  // diag(F D_e⁻¹ B) = −Σ_e B_ef² / (M_e)_ee, over row f of F = −Bᵀ (edges ascending)
  d.diagonal.assign(size_t(nf), 0.0);
  const SparseMatrix& force = d.viscous_force;
#pragma omp parallel for schedule(static) if (nf > 50000)
  for (std::int32_t f = 0; f < nf; ++f)
    for (std::int32_t k = force.offsets[size_t(f)]; k < force.offsets[size_t(f) + 1]; ++k)
      d.diagonal[size_t(f)] -= force.values[size_t(k)] * force.values[size_t(k)] *
                               d.edge_inverse_diagonal[size_t(force.columns[size_t(k)])];

  // g_e = ∫_f N_e·(n × u_b) dA = (A/3)(∇_Γλ_high − ∇_Γλ_low)·(n × u_b) on velocity faces (N_e is
  // linear on the face: its mean is its value at the centroid, λ = 1/3 there).
  std::vector<Triplet> source;
  for (size_t k = 0; k < kinds.size(); ++k) {
    if (kinds[k] != FlowBoundaryKind::velocity) continue;
    const std::int32_t f = t.boundary_faces[k];
    const auto& fn = t.face_nodes[size_t(f)];
    const double area = loaded.geometry.face_areas[size_t(f)];
    for (int j = 0; j < 3; ++j) {
      const std::int32_t e = t.face_edges[size_t(f)][size_t(j)];
      const std::int32_t low = t.edge_nodes[size_t(e)][0], high = t.edge_nodes[size_t(e)][1];
      const auto gradient_of = [&](std::int32_t node) {
        int a = 0;
        while (fn[size_t(a)] != node) ++a;
        const size_t cell = size_t(t.face_cells[size_t(f)][0]);  // where the face's cell sees it (periodic meshes)
        return surface_gradient(node_position_in_tet(mesh, cell, fn[size_t(a)]),
                                node_position_in_tet(mesh, cell, fn[size_t((a + 1) % 3)]),
                                node_position_in_tet(mesh, cell, fn[size_t((a + 2) % 3)]));
      };
      const glm::dvec3 v = area / 3.0 * (gradient_of(high) - gradient_of(low));
      for (int c = 0; c < 3; ++c) source.push_back({e, std::int32_t(3 * k) + c, v[c]});
    }
  }
  d.boundary_source = from_triplets(ne, std::int32_t(3 * kinds.size()), std::move(source));
  return d;
}

std::vector<double> tangential_boundary_source(const CurlCurlViscousData& data, const LoadedMesh& mesh,
                                               const std::vector<FlowBoundaryKind>& kinds,
                                               const std::vector<double>& bx, const std::vector<double>& by,
                                               const std::vector<double>& bz) {
  const size_t nb = kinds.size();
  SS_REQUIRE(bx.size() == nb && by.size() == nb && bz.size() == nb,
             "curl-curl viscous operator: boundary velocities for " << bx.size() << " faces, expected " << nb);
  std::vector<double> w(3 * nb, 0.0), g;
  for (size_t k = 0; k < nb; ++k) {
    if (kinds[k] != FlowBoundaryKind::velocity) continue;
    const glm::dvec3 n = mesh.geometry.face_normals[size_t(mesh.topology.boundary_faces[k])];  // outward
    const glm::dvec3 nxu = glm::cross(n, glm::dvec3(bx[k], by[k], bz[k]));
    w[3 * k] = nxu.x, w[3 * k + 1] = nxu.y, w[3 * k + 2] = nxu.z;
  }
  data.boundary_source.multiply(w, g);
  return g;
}

}  // namespace ss
