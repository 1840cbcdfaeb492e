#include "operators/implicit_momentum_matrix.hpp"

#include <algorithm>
#include <limits>
#include <utility>

#include "util/error.hpp"

namespace ss {

namespace {

std::int32_t face_of(const MeshOperatorTables& t, std::int32_t c, int k) { return decode_index(t.cell_faces[size_t(k)][size_t(c)]); }

// The value index of column `col` in row `row` of m (the pattern holds it).
std::int32_t position(const SparseMatrix& m, std::int32_t row, std::int32_t col) {
  const auto first = m.columns.begin() + m.offsets[size_t(row)], last = m.columns.begin() + m.offsets[size_t(row) + 1];
  const auto it = std::lower_bound(first, last, col);
  SS_REQUIRE(it != last && *it == col, "implicit momentum matrix: (" << row << ", " << col << ") is not in the pattern");
  return std::int32_t(it - m.columns.begin());
}

}  // namespace

ImplicitMomentumMatrix::ImplicitMomentumMatrix(MeshOperatorTables tables, const FlowOperatorData& data)
    : tables_(std::move(tables)), data_(data) {
  const std::int32_t nc = tables_.num_cells, nf = tables_.num_faces;
  SS_REQUIRE(data.num_cells == nc && data.num_faces == nf, "implicit momentum matrix: coefficients do not match the mesh");
  SS_REQUIRE(std::int64_t(nc) * kSlots * 16 <= std::numeric_limits<std::int32_t>::max(),
             "implicit momentum matrix: " << nc << " cells is more than its contribution indices hold ("
                                          << std::numeric_limits<std::int32_t>::max() / (kSlots * 16) << ")");
  // The pattern: every face's diagonal, and on free rows the faces of c against the free faces of c'.
  std::vector<Triplet> entries;
  entries.reserve(size_t(nf) + size_t(nc) * kSlots * 16);
  for (std::int32_t f = 0; f < nf; ++f) entries.push_back({f, f, 0.0});
  for (std::int32_t c = 0; c < nc; ++c)
    for_each_free_pair(c, [&](size_t, std::int32_t f, std::int32_t g) { entries.push_back({f, g, 0.0}); });
  matrix_ = from_triplets(nf, nf, std::move(entries));
  diagonal_.resize(size_t(nf));
  for (std::int32_t f = 0; f < nf; ++f) diagonal_[size_t(f)] = position(matrix_, f, f);
  // Per value, its contributions (cell, slot, k, l) in cell order: assemble() sums them value by value
  // in parallel, in the order a cell-by-cell pass would (the same sums for any thread count).
  std::vector<std::int32_t> position_of(size_t(nc) * kSlots * 16, -1);
#pragma omp parallel for schedule(static)
  for (std::int32_t c = 0; c < nc; ++c)
    for_each_free_pair(c, [&](size_t at, std::int32_t f, std::int32_t g) { position_of[at] = position(matrix_, f, g); });
  contribution_first_.assign(matrix_.values.size() + 1, 0);
  for (std::int32_t v : position_of)
    if (v >= 0) ++contribution_first_[size_t(v) + 1];
  for (size_t v = 0; v < matrix_.values.size(); ++v) contribution_first_[v + 1] += contribution_first_[v];
  contributions_.resize(size_t(contribution_first_.back()));
  std::vector<std::int32_t> next(contribution_first_.begin(), contribution_first_.end() - 1);
  for (size_t at = 0; at < position_of.size(); ++at)
    if (position_of[at] >= 0) contributions_[size_t(next[size_t(position_of[at])]++)] = std::int32_t(at);
}

template <class Visit>
void ImplicitMomentumMatrix::for_each_free_pair(std::int32_t c, Visit&& visit) const {
  for (int slot = 0; slot < kSlots; ++slot) {
    const std::int32_t other = slot == 0 ? c : neighbour(c, slot - 1);
    if (other < 0) continue;
    for (int k = 0; k < 4; ++k)
      for (int l = 0; l < 4; ++l) {
        const std::int32_t f = face_of(tables_, c, k), g = face_of(tables_, other, l);
        if (data_.free_mask[size_t(f)] > 0 && data_.free_mask[size_t(g)] > 0)
          visit((size_t(c) * kSlots + size_t(slot)) * 16 + size_t(k * 4 + l), f, g);
      }
  }
}

std::int32_t ImplicitMomentumMatrix::neighbour(std::int32_t c, int k) const {
  const std::int32_t code = tables_.cell_faces[size_t(k)][size_t(c)];
  const size_t f = size_t(decode_index(code));
  return decode_sign(code) > 0 ? tables_.face_cell1[f] : tables_.face_cell0[f];
}

double ImplicitMomentumMatrix::coupling(std::int32_t c, int slot, int k, int l) const {
  const std::int32_t code_f = tables_.cell_faces[size_t(k)][size_t(c)];
  const size_t f = size_t(decode_index(code_f));
  const auto& integration = decode_sign(code_f) > 0 ? tables_.integration0 : tables_.integration1;  // c is cell 0 or 1 of f
  const std::int32_t other = slot == 0 ? c : neighbour(c, slot - 1);
  const std::int32_t code_g = tables_.cell_faces[size_t(l)][size_t(other)];
  double sum = 0;
  for (size_t d = 0; d < 3; ++d) sum += integration[d][f] * tables_.interpolation[size_t(l)][d][size_t(other)];
  return sum * decode_sign(code_g);
}

const SparseMatrix& ImplicitMomentumMatrix::assemble(Convection convection, const std::vector<double>& U, double inv_dt,
                                                     double nu_theta) {
  const std::int32_t nc = tables_.num_cells, nf = tables_.num_faces;
  SS_REQUIRE(std::int32_t(U.size()) == nf, "implicit momentum matrix: " << U.size() << " fluxes for " << nf << " faces");
  std::vector<double>& values = matrix_.values;
  std::fill(values.begin(), values.end(), 0.0);
  for (std::int32_t f = 0; f < nf; ++f) {
    const double m = data_.free_mask[size_t(f)];
    values[size_t(diagonal_[size_t(f)])] = m * inv_dt * data_.face_mass[size_t(f)] + (1.0 - m);
  }
  // F_cc' · V_c per cell and slot (slot 0: c' = c), then each value's contributions − F_cc' / V_c · coupling.
  flux_coefficients_.assign(size_t(nc) * kSlots, 0.0);
#pragma omp parallel for schedule(static)
  for (std::int32_t c = 0; c < nc; ++c) {
    double* F = &flux_coefficients_[size_t(c) * kSlots];
    for (int k = 0; k < 4; ++k) {
      const std::int32_t code = tables_.cell_faces[size_t(k)][size_t(c)];
      const size_t f = size_t(decode_index(code));
      const std::int32_t nb = neighbour(c, k);
      const double outward = decode_sign(code) * U[f], w = nu_theta * data_.area_over_distance[f];
      if (nb >= 0) {
        F[0] -= w, F[k + 1] += w;
        if (convection == Convection::central) F[0] -= 0.5 * outward, F[k + 1] -= 0.5 * outward;
        else if (convection == Convection::upwind) (outward > 0 ? F[0] : F[k + 1]) -= outward;
      } else if (data_.dirichlet_velocity[size_t(~nb)] > 0) {
        F[0] -= w;  // u_nb = 0 in Λ₀, u_f = 0 in the convection
      } else if (convection != Convection::none) {
        F[0] -= outward;  // zero gradient: u_f = u_c
      }
    }
  }
  const std::int64_t nv = std::int64_t(values.size());
#pragma omp parallel for schedule(static)
  for (std::int64_t v = 0; v < nv; ++v)
    for (std::int32_t e = contribution_first_[size_t(v)]; e < contribution_first_[size_t(v) + 1]; ++e) {
      const std::int32_t at = contributions_[size_t(e)];
      const std::int32_t c = at / (kSlots * 16), slot = (at / 16) % kSlots, kl = at % 16;
      const double F = flux_coefficients_[size_t(c) * kSlots + size_t(slot)];
      if (F != 0.0) values[size_t(v)] -= F * data_.inverse_volume[size_t(c)] * coupling(c, slot, kl / 4, kl % 4);
    }
  return matrix_;
}

const SparseMatrix& ImplicitMomentumMatrix::add_grad_div(double scale, const std::vector<double>& cell_weight) {
  SS_REQUIRE(std::int64_t(cell_weight.size()) == std::int64_t(data_.inverse_volume.size()),
             "implicit momentum matrix: " << cell_weight.size() << " grad-div weights for " << data_.inverse_volume.size()
                                          << " cells");
  std::vector<double>& values = matrix_.values;
  const std::int64_t nv = std::int64_t(values.size());
#pragma omp parallel for schedule(static)
  for (std::int64_t v = 0; v < nv; ++v)
    for (std::int32_t e = contribution_first_[size_t(v)]; e < contribution_first_[size_t(v) + 1]; ++e) {
      const std::int32_t at = contributions_[size_t(e)];
      const std::int32_t c = at / (kSlots * 16), slot = (at / 16) % kSlots, k = (at % 16) / 4, l = at % 4;
      if (slot != 0) continue;  // the term couples the faces of one cell only
      const std::int32_t code_f = tables_.cell_faces[size_t(k)][size_t(c)], code_g = tables_.cell_faces[size_t(l)][size_t(c)];
      values[size_t(v)] += scale * cell_weight[size_t(c)] * decode_sign(code_f) * decode_sign(code_g);
    }
  return matrix_;
}

}  // namespace ss
