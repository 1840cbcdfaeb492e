#pragma once
// The classical method's momentum solve in its vorticity form (operators/momentum_vorticity_system.hpp),
// with the whole viscous term in the edge equation, θ-weighted:
//   M_e ω = θ B Uⁿ⁺¹ + (1 − θ) B Uⁿ + ḡ,   viscous force −ν Bᵀ ω      (ḡ: the tangential boundary source)
// so with w = Δt D r + (1 − m) r (r: the face right-hand side without viscous terms, U_b on
// prescribed faces) and c = νθΔt:
//   S ω = (M_e + c B D Bᵀ) ω = θ B w + (1 − θ) B Uⁿ + ḡ     (Jacobi-CG on the edges)
//   Uⁿ⁺¹ = w − νΔt D Bᵀ ω                                    (the face fluxes)
// ω here is exact up to the CG tolerance where the face form applies M_e⁻¹ as a Chebyshev
// polynomial (1e-3). The start vector is the extrapolation of the last two steps' ω (the first
// step: the polynomial M̃_e⁻¹ applied to the right-hand side; the second: ωⁿ).
// EdgeVorticityMomentumSolve (below) is this solve as the flow solver's momentum part (momentum_solve.hpp).
#include <memory>
#include <utility>
#include <vector>

#include "operators/curl_curl_viscous.hpp"
#include "operators/momentum_vorticity_system.hpp"
#include "operators/sparse_kernels.hpp"
#include "physics/distributed_traits.hpp"
#include "physics/momentum_operator.hpp"
#include "physics/momentum_solve.hpp"
#include "solver/cg.hpp"
#include "util/error.hpp"

namespace ss {

template <class Backend>
class MomentumVorticitySolve {
public:
  using Vector = typename Backend::Vector;
  using Sparse = typename SparseMatrixOn<Backend>::type;

  // `factors`: the viscous operator whose M_e and B the system shares (system.shares_factors).
  MomentumVorticitySolve(Backend& backend, const MomentumVorticitySystem& system,
                         CurlCurlViscous<Backend>* factors = nullptr)
      : backend_(backend) {
    SS_REQUIRE(!system.shares_factors || factors,
               "momentum vorticity solve: the system shares the viscous operator's M_e, B and F; pass that operator");
    const std::int64_t ne = std::int64_t(system.free_edges.size()), nf = std::int64_t(system.inverse_face_mass.size());
    if (system.shares_factors) {
      mass_ = &factors->edge_mass(), source_ = &factors->vorticity_source(), force_ = &factors->viscous_force();
      std::vector<double> minus_d(system.inverse_face_mass.size());
      for (size_t f = 0; f < minus_d.size(); ++f) minus_d[f] = -system.inverse_face_mass[f];
      minus_inverse_face_mass_ = backend.upload(minus_d);
      force_faces_ = backend.make_vector(nf);
    } else {
      own_mass_ = std::make_unique<Sparse>(backend, system.edge_mass);
      own_source_ = std::make_unique<Sparse>(backend, system.source);
      own_scaled_transpose_ = std::make_unique<Sparse>(backend, system.scaled_transpose);
      mass_ = own_mass_.get(), source_ = own_source_.get();
    }
    mass_diagonal_ = backend.upload(system.mass_diagonal);
    coupling_diagonal_ = backend.upload(system.coupling_diagonal);
    inverse_face_mass_ = backend.upload(system.inverse_face_mass);
    prescribed_ = backend.upload(system.prescribed);
    free_edges_ = backend.upload(system.free_edges);
    ones_ = backend.make_vector(ne);
    backend.fill(ones_, 1.0);
    inverse_diagonal_ = backend.make_vector(ne), b_ = backend.make_vector(ne), edges_ = backend.make_vector(ne);
    omega_ = backend.make_vector(ne), omega_previous_ = backend.make_vector(ne);
    w_ = backend.make_vector(nf), faces_ = backend.make_vector(nf), scale_ = backend.make_vector(nf);
  }

  // U = Uⁿ⁺¹ from r (faces), Uⁿ (`U_old`) and ḡ (`g_bar`, edges), for the step dt after a step of
  // previous_dt (the extrapolation's ratio). `start` gives the polynomial M̃_e⁻¹ for the first step.
  CgResult solve(double dt, double previous_dt, double nu, double theta, const Vector& r, const Vector& U_old,
                 const Vector& g_bar, Vector& U, CurlCurlViscous<Backend>& start, const CgOptions& options) {
    const double c = nu * theta * dt;
    if (dt != dt_ || nu * theta != nu_theta_) {  // w's face scale and S's Jacobi 1 / (diag M_e + c diag B D Bᵀ)
      backend_.linear_combination({dt, 1.0}, {&inverse_face_mass_, &prescribed_}, scale_);
      backend_.linear_combination({1.0, c}, {&mass_diagonal_, &coupling_diagonal_}, edges_);
      backend_.divide(ones_, edges_, inverse_diagonal_);
      dt_ = dt, nu_theta_ = nu * theta;
    }
    // b = θ B w + (1 − θ) B Uⁿ + ḡ, zero on held edges
    backend_.multiply(scale_, r, w_);
    if (theta < 1.0) {
      backend_.linear_combination({theta, 1.0 - theta}, {&w_, &U_old}, faces_);
      source_->apply(faces_, b_);
    } else {
      source_->apply(w_, b_);
    }
    backend_.multiply(free_edges_, g_bar, edges_);
    backend_.axpy(1.0, edges_, b_, b_);

    if (steps_ >= 2) {  // ω ≈ ωⁿ + (Δt/Δtⁿ⁻¹)(ωⁿ − ωⁿ⁻¹); ωⁿ kept in ω_previous_
      const double ratio = dt / previous_dt;
      backend_.linear_combination({1.0 + ratio, -ratio}, {&omega_, &omega_previous_}, edges_);
      std::swap(omega_, omega_previous_);
      std::swap(omega_, edges_);
    } else if (steps_ == 1) {  // ω ≈ ωⁿ
      backend_.copy(omega_, omega_previous_);
    } else {
      start.vorticity(b_, omega_);
    }
    // S ω = M_e ω + c B (D Bᵀ ω); its last step on y is the sum's halo update (halo_last)
    const auto apply = halo_last([&](const Vector& x, Vector& y) {
      scaled_transpose(x, faces_);
      sum_of_products(backend_, *mass_, x, *source_, faces_, c, edges_, y);
    });
    CgResult result = conjugate_gradient(backend_, apply, b_, omega_, &inverse_diagonal_, options);
    // Uⁿ⁺¹ = w − νΔt D Bᵀ ω
    scaled_transpose(omega_, faces_);
    backend_.axpy(-nu * dt, faces_, w_, U);
    ++steps_;
    return result;
  }

  // A state the last solves did not lead to (a start): the next start is the polynomial's.
  void forget_history() { steps_ = 0; }
  // ωⁿ and ωⁿ⁻¹ as far as there are any (a checkpoint's), and back.
  void history(std::vector<double>& omega, std::vector<double>& omega_previous) {
    omega = steps_ >= 1 ? backend_.download(omega_) : std::vector<double>{};
    omega_previous = steps_ >= 2 ? backend_.download(omega_previous_) : std::vector<double>{};
  }
  void restore_history(const std::vector<double>& omega, const std::vector<double>& omega_previous) {
    const size_t ne = size_t(omega_.size());
    steps_ = omega.size() == ne ? (omega_previous.size() == ne ? 2 : 1) : 0;
    if (steps_ >= 1) omega_ = backend_.upload(omega);
    if (steps_ >= 2) omega_previous_ = backend_.upload(omega_previous);
  }

private:
  // faces = D Bᵀ x: its own matrix, or with the viscous operator's factors −D (F x).
  void scaled_transpose(const Vector& x, Vector& faces) {
    if (own_scaled_transpose_) return own_scaled_transpose_->apply(x, faces);
    force_->apply(x, force_faces_);
    backend_.multiply(minus_inverse_face_mass_, force_faces_, faces);
  }

  Backend& backend_;
  std::unique_ptr<Sparse> own_mass_, own_source_, own_scaled_transpose_;  // with held edges: their own
  Sparse* mass_ = nullptr;
  Sparse* source_ = nullptr;
  Sparse* force_ = nullptr;                         // shared: F = −Bᵀ
  Vector minus_inverse_face_mass_, force_faces_;    // shared: −D, F x
  Vector mass_diagonal_, coupling_diagonal_, inverse_face_mass_, prescribed_, free_edges_, ones_;
  Vector inverse_diagonal_, b_, edges_, omega_, omega_previous_, w_, faces_, scale_;
  double dt_ = -1, nu_theta_ = -1;
  int steps_ = 0;  // solves since the history began (the extrapolation needs two)
};

// The momentum part (momentum_solve.hpp) on the edge vorticity: the right-hand side without viscous
// terms and fixed columns (the edge equation takes them), then MomentumVorticitySolve. Over MPI ranks
// the per-entity arrays are right on the ghosts too, as its pointwise steps read them.
template <class Backend, class FlowOps>
class EdgeVorticityMomentumSolve : public MomentumSolve<Backend> {
public:
  using Vector = typename Backend::Vector;

  EdgeVorticityMomentumSolve(Backend& backend, FlowOps& ops, const FlowProblem& problem, const FlowOperatorData& data,
                             MomentumOperator<Backend, FlowOps>& momentum)
      : ops_(ops), problem_(problem), A_(momentum) {
    std::vector<double> face_mass = data.face_mass;
    complete_ghosts<Backend>(ops, face_mass);
    MomentumVorticitySystem system = build_momentum_vorticity_system(momentum.curl_curl_data(), face_mass, data.free_mask);
    for (std::vector<double>* v : {&system.mass_diagonal, &system.coupling_diagonal, &system.free_edges})
      complete_ghosts<Backend>(ops, *v);
    solve_ = std::make_unique<MomentumVorticitySolve<Backend>>(backend, system, momentum.curl_curl());
  }

  void right_hand_side(const MomentumTerms<Vector>& t, Vector& rhs) override {
    ops_.momentum_rhs(1.0 / t.dt, 0.0, t.flux, t.integrated, t.pressure_gradient, A_.fixed_columns(), t.boundary_flux, rhs);
  }
  CgResult solve(const MomentumTerms<Vector>& t, const Vector& rhs, Vector& U) override {
    return solve_->solve(t.dt, t.previous_dt, problem_.viscosity, problem_.theta, rhs, t.flux, A_.g_bar(), U,
                         *A_.curl_curl(), cg_options(problem_.momentum));
  }

  void forget_history() override { solve_->forget_history(); }
  void history(std::vector<double>& omega, std::vector<double>& omega_previous) override {
    solve_->history(omega, omega_previous);
  }
  void restore_history(const std::vector<double>& omega, const std::vector<double>& omega_previous) override {
    solve_->restore_history(omega, omega_previous);
  }

private:
  FlowOps& ops_;
  const FlowProblem& problem_;
  MomentumOperator<Backend, FlowOps>& A_;
  std::unique_ptr<MomentumVorticitySolve<Backend>> solve_;
};

}  // namespace ss
