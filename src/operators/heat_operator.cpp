// Median-dual assembly of the node-based heat operator (thesis §6.1) and the Dirichlet
// elimination, in double; both backends upload these tables.
#include "operators/heat_operator.hpp"

#include <algorithm>
#include <cmath>

#include <glm/geometric.hpp>

#include "mesh/bucket_sort.hpp"
#include "util/error.hpp"

namespace ss {

HeatOperatorData assemble_heat_operator(const LoadedMesh& loaded, const std::vector<double>& conductivity,
                                        HeatTables tables) {
  const TetMesh& mesh = loaded.mesh;
  const Topology& topo = loaded.topology;
  const Geometry& geo = loaded.geometry;
  const std::int32_t nc = topo.num_cells, nn = topo.num_nodes;
  SS_REQUIRE(std::int64_t(conductivity.size()) == nc,
             "heat operator: " << conductivity.size() << " conductivities for " << nc << " cells");
  std::int32_t bad = nc;
#pragma omp parallel for schedule(static) reduction(min : bad)
  for (std::int32_t c = 0; c < nc; ++c)
    if (!(std::isfinite(conductivity[size_t(c)]) && conductivity[size_t(c)] > 0)) bad = std::min(bad, c);
  SS_REQUIRE(bad == nc, "heat operator: conductivity of cell " << bad << " is " << conductivity[size_t(bad)] << " (must be > 0)");

  HeatOperatorData d;
  d.num_nodes = nn;
  d.num_cells = nc;
  d.mass = geo.dual_volumes;
  const bool cell_tables = tables != HeatTables::operator_only;
  if (cell_tables) {
    d.cell_nodes.resize(size_t(nc) * 4);
    for (auto& g : d.grad_lambda) g.resize(size_t(nc) * 4);
  }
  // The symmetrised contribution K^c_ab of cell c to each of its six edges (kTetEdgeNodes order),
  // and its ∇λ (eq. 6.2).
  const auto cell_coefficients = [&](std::int32_t c, double coefficient[6], glm::dvec3 grad[4]) {
    const Tet& tet = mesh.tets[size_t(c)];
    glm::dvec3 p[4];
    corner_positions(mesh, size_t(c), p);
    tet_lambda_gradients(p, geo.cell_volumes[size_t(c)], grad);
    // S_out(a): the cell's median-dual faces of the three edges at local node a, oriented away
    // from a (the dual faces run from the global low node to the high one).
    glm::dvec3 dual[6];
    tet_dual_face_areas(p, tet, dual);
    glm::dvec3 away[4] = {glm::dvec3(0.0), glm::dvec3(0.0), glm::dvec3(0.0), glm::dvec3(0.0)};
    for (int k = 0; k < 6; ++k) {
      const int a = kTetEdgeNodes[k][0], b = kTetEdgeNodes[k][1];
      const bool a_low = tet[size_t(a)] < tet[size_t(b)];
      away[a] += a_low ? dual[k] : -dual[k];
      away[b] += a_low ? -dual[k] : dual[k];
    }
    // Flux out of a's dual cell through its faces in c: -k ∇T·S_out(a); the coefficient of T_b
    // is K^c_ab = -k ∇λ_b·S_out(a) (= k V ∇λ_a·∇λ_b). Symmetrised so K is exactly symmetric.
    const double k_c = conductivity[size_t(c)];
    for (int k = 0; k < 6; ++k) {
      const int a = kTetEdgeNodes[k][0], b = kTetEdgeNodes[k][1];
      const double kab = -k_c * glm::dot(grad[b], away[a]);
      const double kba = -k_c * glm::dot(grad[a], away[b]);
      coefficient[k] = 0.5 * (kab + kba);
    }
  };
  if (cell_tables) {
#pragma omp parallel for schedule(static)
    for (std::int32_t c = 0; c < nc; ++c) {
      double coefficient[6];
      glm::dvec3 grad[4];
      cell_coefficients(c, coefficient, grad);
      const Tet& tet = mesh.tets[size_t(c)];
      for (int m = 0; m < 4; ++m) {
        d.cell_nodes[size_t(c) * 4 + size_t(m)] = tet[size_t(m)];
        for (int x = 0; x < 3; ++x) d.grad_lambda[x][size_t(c) * 4 + size_t(m)] = grad[m][x];
      }
    }
  }
  // K_ab = Σ over the cells around edge ab in cell order: the cells around the low node a
  // (node→cells, a stable scatter: ascending), each adding its share to the edges whose low node
  // is a. One thread per node writes them, so the sums are the same for any number of threads; a
  // cell's contributions are recomputed for each of its (at most three) low nodes rather than
  // stored (48 bytes per tet).
  {
    std::vector<std::int32_t> node_cells(size_t(nc) * 4);
    const Tet* tets = mesh.tets.data();
    const std::vector<std::int32_t> start = detail::bucket_scatter<4>(
        nc, nn, [tets](std::int32_t c, int k) { return tets[c][size_t(k)]; },
        [&node_cells](std::int32_t pos, std::int32_t c, int) { node_cells[size_t(pos)] = c; });
    d.edge_coefficients.assign(size_t(topo.num_edges), 0.0);
#pragma omp parallel for schedule(dynamic, 4096)
    for (std::int32_t a = 0; a < nn; ++a) {
      for (std::int32_t i = start[size_t(a)]; i < start[size_t(a) + 1]; ++i) {
        const std::int32_t c = node_cells[size_t(i)];
        const Tet& tet = tets[c];
        if (a == std::max(std::max(tet[0], tet[1]), std::max(tet[2], tet[3]))) continue;  // low node of none
        double coefficient[6];
        glm::dvec3 grad[4];
        cell_coefficients(c, coefficient, grad);
        for (int k = 0; k < 6; ++k)
          if (std::min(tet[size_t(kTetEdgeNodes[k][0])], tet[size_t(kTetEdgeNodes[k][1])]) == a)
            d.edge_coefficients[size_t(topo.cell_edges[size_t(c)][size_t(k)])] += coefficient[k];
      }
    }
  }

  d.offsets = topo.node_offsets;
  d.neighbors = topo.node_neighbors;
  d.coefficients.resize(d.neighbors.size());
  d.diagonal.assign(size_t(nn), 0.0);
#pragma omp parallel for schedule(static)
  for (std::int32_t i = 0; i < nn; ++i) {
    double row = 0;
    for (std::int32_t k = d.offsets[size_t(i)]; k < d.offsets[size_t(i) + 1]; ++k) {
      const double value = d.edge_coefficients[size_t(topo.node_edges[size_t(k)])];
      d.coefficients[size_t(k)] = value;
      row += value;
    }
    d.diagonal[size_t(i)] = -row;
  }

  if (tables != HeatTables::all) return d;
  // Node -> cells: for each cell around node i, the row K^c_{i m}, m = 0..3 (0 for m = i).
  d.node_cell_offsets.assign(size_t(nn) + 1, 0);
  for (std::int32_t c = 0; c < nc; ++c)
    for (int m = 0; m < 4; ++m) ++d.node_cell_offsets[size_t(mesh.tets[size_t(c)][size_t(m)]) + 1];
  for (std::int32_t i = 0; i < nn; ++i) d.node_cell_offsets[size_t(i) + 1] += d.node_cell_offsets[size_t(i)];
  d.node_cells.resize(size_t(nc) * 4);
  d.node_cell_coefficients.assign(size_t(nc) * 16, 0.0);
  std::vector<std::int32_t> fill(d.node_cell_offsets.begin(), d.node_cell_offsets.end() - 1);
  for (std::int32_t c = 0; c < nc; ++c) {
    double coefficient[6];
    glm::dvec3 grad[4];
    cell_coefficients(c, coefficient, grad);
    for (int m = 0; m < 4; ++m) {
      const std::int32_t entry = fill[size_t(mesh.tets[size_t(c)][size_t(m)])]++;
      d.node_cells[size_t(entry)] = c;
      for (int k = 0; k < 6; ++k) {
        const int a = kTetEdgeNodes[k][0], b = kTetEdgeNodes[k][1];
        const double value = coefficient[k];
        if (a == m) d.node_cell_coefficients[size_t(entry) * 4 + size_t(b)] = value;
        if (b == m) d.node_cell_coefficients[size_t(entry) * 4 + size_t(a)] = value;
      }
    }
  }
  return d;
}

std::vector<glm::dvec3> cell_heat_flux(const LoadedMesh& loaded, const std::vector<double>& temperature,
                                       const std::vector<double>& conductivity) {
  const TetMesh& mesh = loaded.mesh;
  const std::int64_t nc = std::int64_t(mesh.tets.size());
  SS_REQUIRE(temperature.size() == mesh.nodes.size() && std::int64_t(conductivity.size()) == nc,
             "heat flux: " << temperature.size() << " temperatures and " << conductivity.size() << " conductivities for "
                           << mesh.nodes.size() << " nodes and " << nc << " cells");
  std::vector<glm::dvec3> q(static_cast<size_t>(nc));
#pragma omp parallel for schedule(static)
  for (std::int64_t c = 0; c < nc; ++c) {
    const Tet& tet = mesh.tets[size_t(c)];
    glm::dvec3 p[4];
    corner_positions(mesh, size_t(c), p);
    glm::dvec3 grad[4];
    tet_lambda_gradients(p, loaded.geometry.cell_volumes[size_t(c)], grad);
    // ∇T = Σ_m (T_m - T_0) ∇λ_m (Σ ∇λ = 0), the form of CpuHeatOperator::cell_gradient.
    const double t0 = temperature[size_t(tet[0])];
    glm::dvec3 g(0.0);
    for (int m = 1; m < 4; ++m) g += (temperature[size_t(tet[size_t(m)])] - t0) * grad[m];
    q[size_t(c)] = -conductivity[size_t(c)] * g;
  }
  return q;
}

bool eliminates(const HeatDirichletData& e, std::int32_t num_nodes, const std::vector<std::int32_t>& fixed_nodes) {
  if (e.fixed.size() != size_t(num_nodes)) return false;  // no elimination made yet
  std::vector<std::int32_t> set = fixed_nodes;
  std::sort(set.begin(), set.end());
  set.erase(std::unique(set.begin(), set.end()), set.end());
  return set == e.nodes;
}

HeatDirichletData eliminate_dirichlet(const HeatOperatorData& data, const std::vector<std::int32_t>& fixed_nodes) {
  HeatDirichletData e;
  const std::int32_t nn = data.num_nodes;
  e.fixed.assign(size_t(nn), 0.0);
  for (std::int32_t i : fixed_nodes) {
    SS_REQUIRE(i >= 0 && i < nn, "Dirichlet node " << i << " out of range (mesh has " << nn << " nodes)");
    e.fixed[size_t(i)] = 1.0;
  }
  for (std::int32_t i = 0; i < nn; ++i)
    if (e.fixed[size_t(i)] != 0) e.nodes.push_back(i);
  // Row lengths, their prefix sum, then the rows (both passes parallel over rows).
  e.offsets.resize(size_t(nn) + 1);
  e.offsets[0] = 0;
#pragma omp parallel for schedule(static)
  for (std::int32_t i = 0; i < nn; ++i) {
    std::int32_t free_neighbors = 0;
    if (e.fixed[size_t(i)] == 0)
      for (std::int32_t k = data.offsets[size_t(i)]; k < data.offsets[size_t(i) + 1]; ++k)
        free_neighbors += e.fixed[size_t(data.neighbors[size_t(k)])] == 0;
    e.offsets[size_t(i) + 1] = free_neighbors;
  }
  for (std::int32_t i = 0; i < nn; ++i) e.offsets[size_t(i) + 1] += e.offsets[size_t(i)];
  e.neighbors.resize(size_t(e.offsets[size_t(nn)]));
  e.coefficients.resize(e.neighbors.size());
  e.shift.resize(size_t(nn));
#pragma omp parallel for schedule(static)
  for (std::int32_t i = 0; i < nn; ++i) {
    double shift = 0.0;
    std::int32_t out = e.offsets[size_t(i)];
    if (e.fixed[size_t(i)] == 0) {
      for (std::int32_t k = data.offsets[size_t(i)]; k < data.offsets[size_t(i) + 1]; ++k) {
        const std::int32_t j = data.neighbors[size_t(k)];
        if (e.fixed[size_t(j)] != 0) {
          shift -= data.coefficients[size_t(k)];
        } else {
          e.neighbors[size_t(out)] = j;
          e.coefficients[size_t(out)] = data.coefficients[size_t(k)];
          ++out;
        }
      }
    }
    e.shift[size_t(i)] = shift;
  }
  return e;
}

std::vector<double> eliminated_system_residual(const HeatOperatorData& data, const std::vector<std::int32_t>& fixed_nodes,
                                               double a, double s, const std::vector<double>& b,
                                               const std::vector<double>& T) {
  const std::int32_t nn = data.num_nodes;
  SS_REQUIRE(b.size() == size_t(nn) && T.size() == size_t(nn),
             "heat residual: " << b.size() << " right-hand sides and " << T.size() << " values for " << nn << " nodes");
  std::vector<char> fixed(size_t(nn), 0);
  for (std::int32_t i : fixed_nodes) {
    SS_REQUIRE(i >= 0 && i < nn, "Dirichlet node " << i << " out of range (mesh has " << nn << " nodes)");
    fixed[size_t(i)] = 1;
  }
  std::vector<double> r(static_cast<size_t>(nn));
#pragma omp parallel for schedule(static)
  for (std::int32_t i = 0; i < nn; ++i) {
    if (fixed[size_t(i)]) {
      r[size_t(i)] = b[size_t(i)] - T[size_t(i)];
      continue;
    }
    const double ti = T[size_t(i)];
    double flux = 0, coupling = 0;
    for (std::int32_t k = data.offsets[size_t(i)]; k < data.offsets[size_t(i) + 1]; ++k) {
      const std::int32_t j = data.neighbors[size_t(k)];
      flux += data.coefficients[size_t(k)] * (T[size_t(j)] - ti);
      if (fixed[size_t(j)]) coupling += data.coefficients[size_t(k)] * T[size_t(j)];
    }
    r[size_t(i)] = b[size_t(i)] - (a * data.mass[size_t(i)] * ti + s * flux - s * coupling);
  }
  return r;
}

std::vector<std::int32_t> boundary_group_nodes(const LoadedMesh& mesh, const std::vector<std::int32_t>& groups) {
  const Topology& topo = mesh.topology;
  std::vector<char> on(size_t(topo.num_nodes), 0);
  for (std::int32_t f : topo.boundary_faces)
    if (std::find(groups.begin(), groups.end(), topo.face_groups[size_t(f)]) != groups.end())
      for (std::int32_t n : topo.face_nodes[size_t(f)]) on[size_t(n)] = 1;
  std::vector<std::int32_t> nodes;
  for (std::int32_t i = 0; i < topo.num_nodes; ++i)
    if (on[size_t(i)]) nodes.push_back(i);
  return nodes;
}

}  // namespace ss
