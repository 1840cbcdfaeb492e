#include "operators/momentum_vorticity_system.hpp"

#include "util/error.hpp"

namespace ss {

MomentumVorticitySystem build_momentum_vorticity_system(const CurlCurlViscousData& viscous,
                                                        const std::vector<double>& face_mass,
                                                        const std::vector<double>& free_mask) {
  const SparseMatrix& b = viscous.vorticity_source;
  const std::int32_t ne = b.rows, nf = b.cols;
  SS_REQUIRE(face_mass.size() == size_t(nf) && free_mask.size() == size_t(nf),
             "momentum vorticity system: " << face_mass.size() << " face masses for " << nf << " faces");
  const auto held = [&](std::int32_t e) { return viscous.edge_inverse_diagonal[size_t(e)] == 0.0; };

  MomentumVorticitySystem s;
  s.inverse_face_mass.resize(size_t(nf));
  s.prescribed.resize(size_t(nf));
  for (std::int32_t f = 0; f < nf; ++f) {
    s.inverse_face_mass[size_t(f)] = free_mask[size_t(f)] / face_mass[size_t(f)];
    s.prescribed[size_t(f)] = 1.0 - free_mask[size_t(f)];
  }

  // With held edges, rows of M_e and B (no list of entries): a held edge's row of M_e is the
  // identity and its columns are dropped; its row of B is empty. D Bᵀ over the faces is −F with the
  // held edges dropped, scaled by D = m/H (F = −Bᵀ exactly: curl_curl_viscous.cpp).
  const SparseMatrix& me = viscous.edge_mass;
  bool any_held = false;
#pragma omp parallel for schedule(static) reduction(|| : any_held) if (ne > 50000)
  for (std::int32_t e = 0; e < ne; ++e) any_held = any_held || held(e);
  s.shares_factors = !any_held;
  if (any_held) s.edge_mass = assemble_rows(ne, ne, [&](std::int32_t e, RowEntries& entries) {
    if (held(e)) {
      entries.emplace_back(e, 1.0);
      return;
    }
    for (std::int32_t k = me.offsets[size_t(e)]; k < me.offsets[size_t(e) + 1]; ++k)
      if (!held(me.columns[size_t(k)])) entries.emplace_back(me.columns[size_t(k)], me.values[size_t(k)]);
  });
  if (any_held) s.source = assemble_rows(ne, nf, [&](std::int32_t e, RowEntries& entries) {
    if (held(e)) return;
    for (std::int32_t k = b.offsets[size_t(e)]; k < b.offsets[size_t(e) + 1]; ++k)
      entries.emplace_back(b.columns[size_t(k)], b.values[size_t(k)]);
  });
  const SparseMatrix& force = viscous.viscous_force;
  if (any_held) s.scaled_transpose = assemble_rows(nf, ne, [&](std::int32_t f, RowEntries& entries) {
    for (std::int32_t k = force.offsets[size_t(f)]; k < force.offsets[size_t(f) + 1]; ++k)
      if (!held(force.columns[size_t(k)]))
        entries.emplace_back(force.columns[size_t(k)], -force.values[size_t(k)] * s.inverse_face_mass[size_t(f)]);
  });

  s.free_edges.resize(size_t(ne));
  for (std::int32_t e = 0; e < ne; ++e) s.free_edges[size_t(e)] = held(e) ? 0.0 : 1.0;
  const SparseMatrix& mass = any_held ? s.edge_mass : me;
  const SparseMatrix& source = any_held ? s.source : b;
  s.mass_diagonal = mass.diagonal();
  s.coupling_diagonal.assign(size_t(ne), 0.0);  // (B D Bᵀ)_ee = Σ_f B_ef² D_f
#pragma omp parallel for schedule(static) if (ne > 50000)
  for (std::int32_t e = 0; e < ne; ++e)
    for (std::int32_t k = source.offsets[size_t(e)]; k < source.offsets[size_t(e) + 1]; ++k)
      s.coupling_diagonal[size_t(e)] +=
          source.values[size_t(k)] * source.values[size_t(k)] * s.inverse_face_mass[size_t(source.columns[size_t(k)])];
  return s;
}

}  // namespace ss
