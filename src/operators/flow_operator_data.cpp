#include <algorithm>
#include <cmath>

#include <glm/geometric.hpp>

#include "operators/flow_operators.hpp"
#include "util/error.hpp"

namespace ss {

FlowOperatorData build_flow_operator_data(const MeshOperatorTables& t, const std::vector<FlowBoundaryKind>& kinds) {
  SS_REQUIRE(kinds.size() == t.boundary_faces.size(),
             "flow operators: " << kinds.size() << " boundary kinds for " << t.boundary_faces.size() << " boundary faces");
  FlowOperatorData d;
  d.num_cells = t.num_cells;
  d.global_cells = t.num_cells;
  d.num_faces = t.num_faces;
  d.num_boundary_faces = std::int32_t(t.boundary_faces.size());
  const size_t nf = size_t(t.num_faces), nc = size_t(t.num_cells), nb = kinds.size();

  d.area_over_distance = t.face_area_over_distance;
  d.face_mass.resize(nf);
  d.free_mask.assign(nf, 1.0);
  d.dirichlet_velocity.assign(nb, 0.0);
  for (size_t k = 0; k < nb; ++k) {
    const size_t f = size_t(t.boundary_faces[k]);
    if (kinds[k] != FlowBoundaryKind::pressure) d.free_mask[f] = 0.0;
    if (kinds[k] == FlowBoundaryKind::velocity) d.dirichlet_velocity[k] = 1.0;
    if (kinds[k] == FlowBoundaryKind::pressure) d.pressure_fixed = true;
  }
  d.pressure_weight.resize(nf);
#pragma omp parallel for schedule(static) if (nf > 50000)
  for (size_t f = 0; f < nf; ++f) {
    d.face_mass[f] = 1.0 / d.area_over_distance[f];
    d.pressure_weight[f] = d.free_mask[f] * d.area_over_distance[f];
  }
  d.inverse_volume.resize(nc);
  d.pressure_diagonal.assign(nc, 0.0);
  d.inverse_volume_sum.assign(nf, 0.0);
  // B = V Λ₀ (per component): B_cc = −Σ (A/L) over the cell's interior and velocity faces.
  std::vector<double> laplacian_self(nc, 0.0);
#pragma omp parallel for schedule(static) if (nc > 50000)
  for (size_t c = 0; c < nc; ++c) {
    d.inverse_volume[c] = 1.0 / t.cell_volumes[c];
    for (size_t k = 0; k < 4; ++k) {
      const std::int32_t f = decode_index(t.cell_faces[k][c]);
      d.pressure_diagonal[c] += d.pressure_weight[size_t(f)];
      const std::int32_t c1 = t.face_cell1[size_t(f)];
      if (c1 >= 0 || d.dirichlet_velocity[size_t(~c1)] > 0.0) laplacian_self[c] -= d.area_over_distance[size_t(f)];
    }
  }
  // 1/V summed over the face's cells (0 + a + b: the same in either cell order).
#pragma omp parallel for schedule(static) if (nf > 50000)
  for (size_t f = 0; f < nf; ++f) {
    d.inverse_volume_sum[f] = d.inverse_volume[size_t(t.face_cell0[f])];
    if (t.face_cell1[f] >= 0) d.inverse_volume_sum[f] += d.inverse_volume[size_t(t.face_cell1[f])];
  }
  // K_ff = Σ_{c, c' ∋ f} B_cc' I_cf · I_c'f, I_cf = ±(x_f − x_c)/V_c (the interpolation weight).
  std::vector<glm::dvec3> weight0(nf), weight1(nf, glm::dvec3(0.0));
#pragma omp parallel for schedule(static) if (nc > 50000)
  for (size_t c = 0; c < nc; ++c)
    for (size_t k = 0; k < 4; ++k) {
      const std::int32_t code = t.cell_faces[k][c];
      const size_t f = size_t(decode_index(code));
      const glm::dvec3 w = decode_sign(code) *
                           glm::dvec3(t.interpolation[k][0][c], t.interpolation[k][1][c], t.interpolation[k][2][c]);
      if (t.face_cell0[f] == std::int32_t(c)) weight0[f] = w;
      else weight1[f] = w;
    }
  d.laplacian_diagonal.resize(nf);
#pragma omp parallel for schedule(static) if (nf > 50000)
  for (size_t f = 0; f < nf; ++f) {
    const size_t c0 = size_t(t.face_cell0[f]);
    double k = laplacian_self[c0] * glm::dot(weight0[f], weight0[f]);
    if (t.face_cell1[f] >= 0) {
      const size_t c1 = size_t(t.face_cell1[f]);
      k += laplacian_self[c1] * glm::dot(weight1[f], weight1[f]) +
           2.0 * d.area_over_distance[f] * glm::dot(weight0[f], weight1[f]);
    }
    d.laplacian_diagonal[f] = k;
  }
  return d;
}

double smallest_cell_length(const MeshOperatorTables& t) {
  double v = INFINITY;
  for (double volume : t.cell_volumes) v = std::min(v, volume);
  return std::cbrt(v);
}

void use_local_pseudo_time_steps(FlowOperatorData& d, const MeshOperatorTables& t, double min_length) {
  SS_REQUIRE(min_length > 0, "local pseudo-time steps: the smallest cell length " << min_length << " is not positive");
  SS_REQUIRE(d.face_step_scale.empty(), "local pseudo-time steps: the operator data has them already");
  const size_t nf = size_t(d.num_faces), nc = size_t(d.num_cells);
  d.cell_step_scale.resize(nc);
  for (size_t c = 0; c < nc; ++c)
    d.cell_step_scale[c] = std::clamp(std::cbrt(t.cell_volumes[c]) / min_length, 1.0, kMaxLocalStepRatio);
  d.face_step_scale.resize(nf);
  for (size_t f = 0; f < nf; ++f) {
    const std::int32_t c1 = t.face_cell1[f];
    double s = d.cell_step_scale[size_t(t.face_cell0[f])];
    if (c1 >= 0) s = std::min(s, d.cell_step_scale[size_t(c1)]);
    d.face_step_scale[f] = s;
    d.face_mass[f] /= s;
    d.pressure_weight[f] *= s;
  }
  std::fill(d.pressure_diagonal.begin(), d.pressure_diagonal.end(), 0.0);
  for (size_t c = 0; c < nc; ++c)
    for (size_t k = 0; k < 4; ++k) d.pressure_diagonal[c] += d.pressure_weight[size_t(decode_index(t.cell_faces[k][c]))];
}

}  // namespace ss
