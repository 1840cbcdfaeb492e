#pragma once
// The momentum operator of both fractional-step methods on the face fluxes, with either viscous
// scheme (operators/flow_operators.hpp, operators/curl_curl_viscous.hpp):
//   A x = (H/Δt − νθ K) x on free faces, x on prescribed ones,
// its Jacobi diagonal, the fixed columns K U_b of the prescribed fluxes, and the viscous part of the
// explicit terms. Two-point K: the flow operators' own, its explicit part ν(1−θ) Λ₀(u) + ν bc comes
// with the cell terms. Curl–curl K x = −F M̃_e⁻¹ B (m x): its explicit part is the face force
// F M̃_e⁻¹(ν(1−θ) B Uⁿ + ν ḡ), ḡ = θ gⁿ⁺¹ + (1−θ) gⁿ the tangential boundary velocity — unless the
// momentum solve takes the whole viscous term on the edges (`viscous_on_edges`, the vorticity
// system), where the fixed columns are zero and it reads ḡ itself.
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "operators/curl_curl_viscous.hpp"
#include "physics/distributed_traits.hpp"
#include "problems/flow_problem.hpp"

namespace ss {

template <class Backend, class FlowOps>
class MomentumOperator {
public:
  using Vector = typename Backend::Vector;

  MomentumOperator(Backend& backend, FlowOps& ops, const FlowProblem& problem, const LoadedMesh& mesh,
                   const FlowOperatorData& data, bool viscous_on_edges)
      : backend_(backend), ops_(ops), problem_(problem), mesh_(mesh), data_(data), viscous_on_edges_(viscous_on_edges) {
    nf_ = mesh.topology.num_faces;
    ones_ = backend.make_vector(nf_);
    backend.fill(ones_, 1.0);
    inverse_diagonal_ = backend.make_vector(nf_);
    face_mass_ = backend.upload(data.face_mass);
    free_mask_ = backend.upload(data.free_mask);
    if (problem.viscous == ViscousScheme::curl_curl) {
      curl_curl_data_ = build_curl_curl_viscous(mesh, problem.boundary_kinds(), kCurlCurlTolerance, data.edge_space.get());
      complete_ghosts<Backend>(ops, curl_curl_data_.diagonal);
      complete_ghosts<Backend>(ops, curl_curl_data_.edge_inverse_diagonal);
      curl_curl_ = std::make_unique<CurlCurlViscous<Backend>>(backend, curl_curl_data_);
      masked_ = backend.make_vector(nf_), lap_ = backend.make_vector(nf_), viscous_force_ = backend.make_vector(nf_);
      g_bar_ = backend.make_vector(curl_curl_data_.edge_mass.rows);
    }
  }

  // y = A x = (H/Δt − νθ K) x on free faces, x on prescribed ones.
  void apply(double inv_dt, double nu_theta, const Vector& x, Vector& y) {
    if (!curl_curl_) return ops_.momentum_apply(inv_dt, nu_theta, x, y);
    backend_.multiply(free_mask_, x, masked_);
    curl_curl_->apply(masked_, lap_);
    ops_.momentum_combine(inv_dt, nu_theta, x, lap_, y);
  }

  // 1 / diag(H/Δt − νθ K), the Jacobi preconditioner (it changes with Δt only).
  const Vector& inverse_diagonal(double dt) {
    if (dt == diagonal_dt_) return inverse_diagonal_;
    const double nu_theta = problem_.viscosity * problem_.theta;
    if (curl_curl_) {
      ops_.momentum_combine(1.0 / dt, nu_theta, ones_, curl_curl_->diagonal(), lap_);  // lap_: scratch here
      backend_.divide(ones_, lap_, inverse_diagonal_);
    } else {
      backend_.divide(ones_, ops_.momentum_diagonal(1.0 / dt, nu_theta), inverse_diagonal_);
    }
    diagonal_dt_ = dt;
    return inverse_diagonal_;
  }

  // The viscosities the cell terms take: (ν(1−θ), ν) for the two-point scheme's explicit part and
  // boundary term; none for curl–curl (add_explicit_viscous_force adds its part).
  std::pair<double, double> cell_term_viscosities() const {
    if (curl_curl_) return {0.0, 0.0};
    return {problem_.viscosity * (1.0 - problem_.theta), problem_.viscosity};
  }

  // After the cell terms are integrated (T f in `integrated`): curl–curl makes this step's ḡ and,
  // unless the solve takes the viscous term on the edges, adds F M̃_e⁻¹(ν(1−θ) B Uⁿ + ν ḡ).
  void add_explicit_viscous_force(const Vector& U, Vector& integrated) {
    if (!curl_curl_) return;
    const double nu = problem_.viscosity, theta = problem_.theta;
    backend_.linear_combination({theta, 1.0 - theta}, {&g_, &g_previous_}, g_bar_);
    if (viscous_on_edges_) return;
    curl_curl_->force(nu * (1.0 - theta), U, nu, g_bar_, viscous_force_);
    backend_.axpy(1.0, viscous_force_, integrated, integrated);
  }

  // New boundary values: the fixed columns K U_b and (curl–curl) the tangential boundary velocity
  // gⁿ⁺¹, gⁿ kept for the θ-weighted explicit part.
  void set_boundary(const FlowBoundaryValues& b, const Vector& boundary_flux) {
    if (!curl_curl_) return ops_.viscous_apply(boundary_flux, fixed_columns_);
    fixed_columns_ = backend_.make_vector(nf_);
    if (viscous_on_edges_) backend_.fill(fixed_columns_, 0.0);  // the vorticity system takes U_b on its edges
    else curl_curl_->apply(boundary_flux, fixed_columns_);
    std::vector<double> g = tangential_boundary_source(curl_curl_data_, mesh_, problem_.boundary_kinds(), b.bx, b.by, b.bz);
    complete_ghosts<Backend>(ops_, g);  // the vorticity system's right-hand side reads g on the ghost edges too
    if (g_.size() == 0) g_ = backend_.upload(g);
    std::swap(g_previous_, g_);
    g_ = backend_.upload(g);
  }

  const Vector& fixed_columns() const { return fixed_columns_; }
  const Vector& face_mass() const { return face_mass_; }  // H
  const Vector& free_mask() const { return free_mask_; }  // m
  // Curl–curl only (null for two-point): the operator, its data and this step's ḡ.
  CurlCurlViscous<Backend>* curl_curl() { return curl_curl_.get(); }
  const CurlCurlViscousData& curl_curl_data() const {
    SS_REQUIRE(!factors_released_, "the curl-curl factors' host copies were released after the set-up");
    return curl_curl_data_;
  }
  // After the set-up: the host copies of M_e, B and F go (the backend holds its own); the boundary
  // source and the diagonals stay.
  void release_host_factors() {
    curl_curl_data_.edge_mass = SparseMatrix{};
    curl_curl_data_.vorticity_source = SparseMatrix{};
    curl_curl_data_.viscous_force = SparseMatrix{};
    factors_released_ = true;
  }
  const Vector& g_bar() const { return g_bar_; }
  // diag K per face on the host (≤ 0), right on the ghosts too (the exact method's preconditioners).
  const std::vector<double>& viscous_diagonal() const {
    return curl_curl_ ? curl_curl_data_.diagonal : data_.laplacian_diagonal;
  }

private:
  Backend& backend_;
  FlowOps& ops_;
  const FlowProblem& problem_;
  const LoadedMesh& mesh_;
  const FlowOperatorData& data_;
  const bool viscous_on_edges_;
  std::int64_t nf_ = 0;
  Vector ones_, inverse_diagonal_, face_mass_, free_mask_, fixed_columns_;
  double diagonal_dt_ = -1;  // the Δt inverse_diagonal_ was made for
  CurlCurlViscousData curl_curl_data_;
  bool factors_released_ = false;
  std::unique_ptr<CurlCurlViscous<Backend>> curl_curl_;
  Vector masked_, lap_, viscous_force_, g_, g_previous_, g_bar_;
};

}  // namespace ss
