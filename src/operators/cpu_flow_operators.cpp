#include <cmath>

#include "operators/flow_operators.hpp"
#include "util/error.hpp"

namespace ss {

CpuFlowOperators::CpuFlowOperators(CpuMeshOperators& mesh_ops, FlowOperatorData data)
    : mesh_(mesh_ops), data_(std::move(data)) {
  SS_REQUIRE(data_.num_faces == mesh_.num_faces() && data_.num_cells == mesh_.num_cells(),
             "flow operators: coefficients do not match the mesh");
  boundary_zero_.assign(size_t(data_.num_boundary_faces), 0.0);
}

void CpuFlowOperators::cell_terms(Convection conv, double a, double b, const Vector& U, const Vector& ux,
                                  const Vector& uy, const Vector& uz, const Vector& bx, const Vector& by,
                                  const Vector& bz, Vector& fx, Vector& fy, Vector& fz) {
  const MeshOperatorTables& t = mesh_.tables();
  const std::int64_t nc = data_.num_cells;
  fx.resize(size_t(nc)), fy.resize(size_t(nc)), fz.resize(size_t(nc));
#pragma omp parallel for schedule(static)
  for (std::int64_t c = 0; c < nc; ++c) {
    const double uc[3] = {ux[size_t(c)], uy[size_t(c)], uz[size_t(c)]};
    double sum[3] = {0, 0, 0};
    for (size_t k = 0; k < 4; ++k) {
      const std::int32_t code = t.cell_faces[k][size_t(c)];
      const size_t f = size_t(decode_index(code));
      const double sign = decode_sign(code);
      const std::int32_t nb = sign > 0 ? t.face_cell1[f] : t.face_cell0[f];
      // Neighbour value in Λ₀ (0 on velocity faces, u_c on zero-gradient faces) and the face value
      // convection uses on the boundary (u_b on velocity faces, u_c elsewhere).
      double un[3], ub[3];
      bool dirichlet = false;
      if (nb >= 0) {
        un[0] = ux[size_t(nb)], un[1] = uy[size_t(nb)], un[2] = uz[size_t(nb)];
      } else {
        const size_t kb = size_t(~nb);
        dirichlet = data_.dirichlet_velocity[kb] > 0.0;
        const double bv[3] = {bx[kb], by[kb], bz[kb]};
        for (int d = 0; d < 3; ++d) {
          un[d] = dirichlet ? 0.0 : uc[d];
          ub[d] = dirichlet ? bv[d] : uc[d];
        }
      }
      const double w = data_.area_over_distance[f];
      const double outward = sign * U[f];
      for (int d = 0; d < 3; ++d) {
        double term = a * w * (un[d] - uc[d]) + (dirichlet ? b * w * ub[d] : 0.0);
        if (conv != Convection::none) {
          double face_value;
          if (nb < 0) face_value = ub[d];
          else if (conv == Convection::central) face_value = 0.5 * (uc[d] + un[d]);
          else face_value = outward > 0 ? uc[d] : un[d];
          term -= outward * face_value;
        }
        sum[d] += term;
      }
    }
    const double iv = data_.inverse_volume[size_t(c)];
    fx[size_t(c)] = sum[0] * iv, fy[size_t(c)] = sum[1] * iv, fz[size_t(c)] = sum[2] * iv;
  }
}

void CpuFlowOperators::momentum_apply(double inv_dt, double s, const Vector& x, Vector& y) {
  const size_t nf = size_t(data_.num_faces);
  masked_.resize(nf);
  for (size_t f = 0; f < nf; ++f) masked_[f] = data_.free_mask[f] * x[f];
  viscous_apply(masked_, lap_);
  momentum_combine(inv_dt, s, x, lap_, y);
}

void CpuFlowOperators::momentum_combine(double inv_dt, double s, const Vector& x, const Vector& lap, Vector& y) {
  const size_t nf = size_t(data_.num_faces);
  SS_REQUIRE(x.size() == nf && lap.size() == nf && &y != &x && &y != &lap, "momentum operator: bad vectors");
  y.resize(nf);
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < std::int64_t(nf); ++i) {
    const size_t f = size_t(i);
    const double m = data_.free_mask[f];
    y[f] = m * (inv_dt * data_.face_mass[f] * x[f] - s * lap[f]) + (1.0 - m) * x[f];
  }
}

void CpuFlowOperators::viscous_apply(const Vector& x, Vector& y) {
  // K x = T Λ₀ I x
  mesh_.interpolate(x, ux_, uy_, uz_);
  cell_terms(Convection::none, 1.0, 0.0, x, ux_, uy_, uz_, boundary_zero_, boundary_zero_, boundary_zero_, lx_, ly_, lz_);
  mesh_.integrate(lx_, ly_, lz_, y);
}

CpuFlowOperators::Vector CpuFlowOperators::momentum_diagonal(double inv_dt, double s) {
  Vector d(size_t(data_.num_faces));
  for (size_t f = 0; f < d.size(); ++f) {
    const double m = data_.free_mask[f];
    d[f] = m * (inv_dt * data_.face_mass[f] - s * data_.laplacian_diagonal[f]) + (1.0 - m);
  }
  return d;
}

void CpuFlowOperators::momentum_rhs(double inv_dt, double s, const Vector& U, const Vector& TF, const Vector& Gp,
                                    const Vector& Y, const Vector& Ub, Vector& out) {
  const size_t nf = size_t(data_.num_faces);
  out.resize(nf);
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < std::int64_t(nf); ++i) {
    const size_t f = size_t(i);
    const double m = data_.free_mask[f];
    out[f] = m * (inv_dt * data_.face_mass[f] * U[f] + TF[f] - Gp[f] + s * Y[f]) + (1.0 - m) * Ub[f];
  }
}

double CpuFlowOperators::pressure_at(std::int64_t c, const Vector& x) const {
  const MeshOperatorTables& t = mesh_.tables();
  double sum = 0.0;
  for (size_t k = 0; k < 4; ++k) {
    const std::int32_t code = t.cell_faces[k][size_t(c)];
    const size_t f = size_t(decode_index(code));
    const std::int32_t nb = decode_sign(code) > 0 ? t.face_cell1[f] : t.face_cell0[f];
    sum += data_.pressure_weight[f] * (x[size_t(c)] - (nb >= 0 ? x[size_t(nb)] : 0.0));
  }
  return sum;
}

void CpuFlowOperators::pressure_apply(const Vector& x, Vector& y) {
  const std::int64_t nc = data_.num_cells;
  y.resize(size_t(nc));
#pragma omp parallel for schedule(static)
  for (std::int64_t c = 0; c < nc; ++c) y[size_t(c)] = pressure_at(c, x);
}

void CpuFlowOperators::pressure_rows(const std::vector<std::int32_t>& rows, const Vector& x, Vector& y) {
  y.resize(rows.size());
  for (size_t k = 0; k < rows.size(); ++k) {
    SS_REQUIRE(rows[k] >= 0 && rows[k] < data_.num_cells, "pressure operator: row " << rows[k] << " of "
                                                                                     << data_.num_cells << " cells");
    y[k] = pressure_at(rows[k], x);
  }
}

void CpuFlowOperators::project(const Vector& Ustar, const Vector& phi, double dt, Vector& U) {
  const MeshOperatorTables& t = mesh_.tables();
  const size_t nf = size_t(data_.num_faces);
  U.resize(nf);
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < std::int64_t(nf); ++i) {
    const size_t f = size_t(i);
    const std::int32_t c1 = t.face_cell1[f];
    const double gradient = (c1 >= 0 ? phi[size_t(c1)] : 0.0) - phi[size_t(t.face_cell0[f])];
    U[f] = Ustar[f] - dt * data_.pressure_weight[f] * gradient;
  }
}

void CpuFlowOperators::courant(const Vector& U, Vector& out) {
  const MeshOperatorTables& t = mesh_.tables();
  const std::int64_t nc = data_.num_cells;
  out.resize(size_t(nc));
#pragma omp parallel for schedule(static)
  for (std::int64_t c = 0; c < nc; ++c) {
    double sum = 0.0;
    for (size_t k = 0; k < 4; ++k) sum += std::fabs(U[size_t(decode_index(t.cell_faces[k][size_t(c)]))]);
    out[size_t(c)] = 0.5 * sum * data_.inverse_volume[size_t(c)];
  }
}

}  // namespace ss
