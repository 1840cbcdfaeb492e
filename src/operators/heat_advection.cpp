// The advection tables (edge fluxes E, the CSR's edge of each entry, dual areas, volumes, positions)
// and the CPU twins of the upwind and limited rates and the node gradient.
#include "operators/heat_advection.hpp"

#include <algorithm>
#include <cmath>

#include <glm/geometric.hpp>

#include "util/error.hpp"

namespace ss {

HeatAdvectionData build_heat_advection(const LoadedMesh& mesh) {
  const Topology& t = mesh.topology;
  const Geometry& g = mesh.geometry;
  SS_REQUIRE(!t.node_offsets.empty() && !t.cell_edges.empty() && !g.dual_face_areas.empty(),
             "heat advection: the mesh's assembly tables were released");
  HeatAdvectionData d;
  d.num_nodes = t.num_nodes, d.num_edges = t.num_edges;
  d.offsets = t.node_offsets, d.neighbors = t.node_neighbors;
  d.entry_edges.resize(t.node_neighbors.size());
  for (std::int32_t i = 0; i < t.num_nodes; ++i)
    for (std::int32_t k = t.node_offsets[size_t(i)]; k < t.node_offsets[size_t(i) + 1]; ++k) {
      const std::int32_t e = t.node_edges[size_t(k)];
      d.entry_edges[size_t(k)] = t.edge_nodes[size_t(e)][0] == i ? e + 1 : -(e + 1);
    }
  // F_e = Σ_c u_c · S_e,c, u_c = (1/V_c) Σ_f s_cf U_f (x_f − x_c): entry (e, f) gets
  // s_cf (x_f − x_c) · S_e,c / V_c from every cell c holding both.
  std::vector<Triplet> entries;
  entries.reserve(size_t(t.num_cells) * 24);
  for (std::int32_t c = 0; c < t.num_cells; ++c) {
    const glm::dvec3& xc = g.cell_centroids[size_t(c)];
    const double v = g.cell_volumes[size_t(c)];
    for (int k = 0; k < 6; ++k) {
      const glm::dvec3& s = g.dual_face_areas[size_t(c) * 6 + size_t(k)];
      for (int m = 0; m < 4; ++m) {
        const std::int32_t f = t.cell_faces[size_t(c)][size_t(m)];
        const double w = t.cell_face_signs[size_t(c)][size_t(m)] * glm::dot(face_centroid_seen_from(g, t, f, c) - xc, s) / v;
        entries.push_back({t.cell_edges[size_t(c)][size_t(k)], f, w});
      }
    }
  }
  d.edge_flux = from_triplets(t.num_edges, t.num_faces, std::move(entries));
  for (auto& a : d.dual_area) a.assign(size_t(t.num_edges), 0.0);
  for (std::int32_t c = 0; c < t.num_cells; ++c)
    for (int k = 0; k < 6; ++k) {
      const glm::dvec3& s = g.dual_face_areas[size_t(c) * 6 + size_t(k)];
      const size_t e = size_t(t.cell_edges[size_t(c)][size_t(k)]);
      for (int x = 0; x < 3; ++x) d.dual_area[size_t(x)][e] += s[x];
    }
  d.inverse_volume.resize(size_t(t.num_nodes));
  for (auto& p : d.position) p.resize(size_t(t.num_nodes));
  for (size_t i = 0; i < size_t(t.num_nodes); ++i) {
    d.inverse_volume[i] = 1.0 / g.dual_volumes[i];
    for (int x = 0; x < 3; ++x) d.position[size_t(x)][i] = mesh.mesh.nodes[i][x];
  }
  return d;
}

void upwind_advection(const HeatAdvectionData& d, const std::vector<double>& F, const std::vector<double>& T,
                      std::vector<double>& rate, std::vector<double>& inflow) {
  SS_REQUIRE(std::int64_t(F.size()) == d.num_edges && std::int64_t(T.size()) == d.num_nodes,
             "heat advection: " << F.size() << " edge fluxes and " << T.size() << " temperatures for " << d.num_edges
                                << " edges and " << d.num_nodes << " nodes");
  SS_REQUIRE(&rate != &T && &inflow != &T && &rate != &inflow, "heat advection: outputs must differ from the inputs");
  rate.resize(T.size());
  inflow.resize(T.size());
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < std::int64_t(d.num_nodes); ++i) {
    double r = 0.0, q = 0.0;
    const double ti = T[size_t(i)];
    for (std::int32_t k = d.offsets[size_t(i)]; k < d.offsets[size_t(i) + 1]; ++k) {
      const std::int32_t e = d.entry_edges[size_t(k)];
      const double out = e > 0 ? F[size_t(e - 1)] : -F[size_t(-e - 1)];  // F_ij, from i into j
      const double in = std::max(-out, 0.0);
      r += in * (T[size_t(d.neighbors[size_t(k)])] - ti);
      q += in;
    }
    rate[size_t(i)] = r, inflow[size_t(i)] = q;
  }
}

void node_gradient(const HeatAdvectionData& d, const std::vector<double>& T, std::vector<double>& gx,
                   std::vector<double>& gy, std::vector<double>& gz) {
  SS_REQUIRE(std::int64_t(T.size()) == d.num_nodes,
             "heat advection: " << T.size() << " temperatures for " << d.num_nodes << " nodes");
  const std::array<std::vector<double>*, 3> g{&gx, &gy, &gz};
  for (std::vector<double>* c : g) {
    SS_REQUIRE(c != &T, "heat advection: outputs must differ from the inputs");
    c->resize(T.size());
  }
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < std::int64_t(d.num_nodes); ++i) {
    glm::dvec3 sum(0.0);
    for (std::int32_t k = d.offsets[size_t(i)]; k < d.offsets[size_t(i) + 1]; ++k) {
      const std::int32_t e = d.entry_edges[size_t(k)];
      const size_t edge = size_t(e > 0 ? e - 1 : -e - 1);
      const double w = (e > 0 ? 0.5 : -0.5) * (T[size_t(d.neighbors[size_t(k)])] - T[size_t(i)]);  // ½ (T_j − T_i), S_ij = ±S_e
      for (int x = 0; x < 3; ++x) sum[x] += w * d.dual_area[size_t(x)][edge];
    }
    for (int x = 0; x < 3; ++x) (*g[size_t(x)])[size_t(i)] = sum[x] * d.inverse_volume[size_t(i)];
  }
}

namespace {
// van Leer's limiter in difference form (heat_advection.hpp): (a|Δ| + |a|Δ) / (|a| + |Δ|).
double van_leer(double a, double delta) {
  const double denominator = std::fabs(a) + std::fabs(delta);
  return denominator > 0.0 ? (a * std::fabs(delta) + std::fabs(a) * delta) / denominator : 0.0;
}
}  // namespace

void limited_advection(const HeatAdvectionData& d, const std::vector<double>& F, const std::vector<double>& T,
                       const std::vector<double>& gx, const std::vector<double>& gy, const std::vector<double>& gz,
                       std::vector<double>& rate, std::vector<double>& inflow) {
  SS_REQUIRE(gx.size() == T.size() && gy.size() == T.size() && gz.size() == T.size(),
             "heat advection: a gradient of " << gx.size() << " nodes for " << T.size() << " temperatures");
  upwind_advection(d, F, T, rate, inflow);
  const std::array<const std::vector<double>*, 3> g{&gx, &gy, &gz};
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < std::int64_t(d.num_nodes); ++i) {
    double correction = 0.0;
    for (std::int32_t k = d.offsets[size_t(i)]; k < d.offsets[size_t(i) + 1]; ++k) {
      const std::int32_t e = d.entry_edges[size_t(k)];
      const double out = e > 0 ? F[size_t(e - 1)] : -F[size_t(-e - 1)];  // F_ij, from i into j
      const size_t j = size_t(d.neighbors[size_t(k)]);
      const size_t u = out > 0.0 ? size_t(i) : j, down = out > 0.0 ? j : size_t(i);  // upwind, downwind
      const double delta = T[down] - T[u];
      double extrapolated = 0.0;  // 2 ∇T_u · (x_d − x_u)
      for (int x = 0; x < 3; ++x) extrapolated += 2.0 * (*g[size_t(x)])[u] * (d.position[size_t(x)][down] - d.position[size_t(x)][u]);
      const double flux = 0.5 * std::fabs(out) * van_leer(extrapolated - delta, delta);  // A_e, from u to d
      correction += out > 0.0 ? -flux : flux;
    }
    rate[size_t(i)] += correction;
  }
}

CpuHeatAdvection::CpuHeatAdvection(CpuBackend& cpu, const HeatAdvectionData& data)
    : data_(data), matrix_(cpu, data.edge_flux) {}

void CpuHeatAdvection::edge_fluxes(const Vector& face_flux, Vector& edge_flux) { matrix_.apply(face_flux, edge_flux); }

void CpuHeatAdvection::apply(const Vector& edge_flux, const Vector& temperature, Vector& rate, Vector& inflow) {
  upwind_advection(data_, edge_flux, temperature, rate, inflow);
}

void CpuHeatAdvection::gradient(const Vector& temperature, Vector& gx, Vector& gy, Vector& gz) {
  node_gradient(data_, temperature, gx, gy, gz);
}

void CpuHeatAdvection::apply_limited(const Vector& edge_flux, const Vector& temperature, const Vector& gx,
                                     const Vector& gy, const Vector& gz, Vector& rate, Vector& inflow) {
  limited_advection(data_, edge_flux, temperature, gx, gy, gz, rate, inflow);
}

}  // namespace ss
