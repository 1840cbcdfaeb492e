// The upwind advection tables (edge fluxes E, the CSR's edge of each entry) and the CPU twin.
#include "operators/heat_advection.hpp"

#include <algorithm>

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
        const double w = t.cell_face_signs[size_t(c)][size_t(m)] * glm::dot(g.face_centroids[size_t(f)] - xc, s) / v;
        entries.push_back({t.cell_edges[size_t(c)][size_t(k)], f, w});
      }
    }
  }
  d.edge_flux = from_triplets(t.num_edges, t.num_faces, std::move(entries));
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

CpuHeatAdvection::CpuHeatAdvection(CpuBackend& cpu, const HeatAdvectionData& data)
    : data_(data), matrix_(cpu, data.edge_flux) {}

void CpuHeatAdvection::edge_fluxes(const Vector& face_flux, Vector& edge_flux) { matrix_.apply(face_flux, edge_flux); }

void CpuHeatAdvection::apply(const Vector& edge_flux, const Vector& temperature, Vector& rate, Vector& inflow) {
  upwind_advection(data_, edge_flux, temperature, rate, inflow);
}

}  // namespace ss
