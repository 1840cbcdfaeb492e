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
// The CG's preconditioner: Jacobi, or (`chebyshev_start` given) the Chebyshev polynomial of it,
//   z = p(D⁻¹S) D⁻¹ r,  p of odd degree k ([solver.momentum] chebyshev_degree, 3 by default) on
//   [λ/kMomentumChebyshevRatio, λ],
// λ = 1.1 × λmax(D⁻¹S) by CG-Lanczos (from chebyshev_start; again when c = νθΔt moves by a fifth).
// p(λ) = (1 − q(λ))/λ with q the scaled Chebyshev residual polynomial: 0 < q < 1 below the interval,
// |q| < 1 on it and q < 0 above it for an odd degree, so p > 0 on every λ > 0 and z = M⁻¹ r is SPD
// whatever the estimate. It makes about 1/k of Jacobi's iterations (reductions) for k products an
// iteration. Over MPI ranks the polynomial is the rank's block's, S_oo (D⁻¹ is 0 on the ghosts, the
// products exchange nothing), then z's ghosts come from their owners: one halo round trip a CG
// iteration, in the preconditioner, and the CG's product is the piece's own (its owned rows are
// right: its input p = z + βp is right on the ghosts, and nothing reads the output's ghosts). The
// blocks are principal submatrices, so p > 0 on their spectra too (Cauchy interlacing); they cost
// iterations (a quarter more on two ranks). Jacobi stays the default: docs/performance.md's
// figures show where each is faster.
// EdgeVorticityMomentumSolve (below) is this solve as the flow solver's momentum part (momentum_solve.hpp).
#include <cmath>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "operators/curl_curl_viscous.hpp"
#include "operators/eigen_estimate.hpp"
#include "operators/momentum_vorticity_system.hpp"
#include "operators/sparse_kernels.hpp"
#include "physics/distributed_traits.hpp"
#include "physics/momentum_operator.hpp"
#include "physics/momentum_solve.hpp"
#include "solver/cg.hpp"
#include "util/error.hpp"

namespace ss {

inline constexpr double kMomentumChebyshevRatio = 30.0;

template <class Backend>
class MomentumVorticitySolve {
public:
  using Vector = typename Backend::Vector;
  using Sparse = typename SparseMatrixOn<Backend>::type;

  // `factors`: the viscous operator whose M_e and B the system shares (system.shares_factors).
  // `chebyshev_start`: the Chebyshev preconditioner, its Lanczos start vector (one entry per edge,
  // lanczos_edge_start), and `chebyshev_degree` its odd degree; none: Jacobi.
  MomentumVorticitySolve(Backend& backend, const MomentumVorticitySystem& system,
                         CurlCurlViscous<Backend>* factors = nullptr,
                         std::optional<std::vector<double>> chebyshev_start = std::nullopt, int chebyshev_degree = 3)
      : backend_(backend), chebyshev_start_(std::move(chebyshev_start)), chebyshev_degree_(chebyshev_degree) {
    SS_REQUIRE(chebyshev_degree_ >= 1 && chebyshev_degree_ % 2 == 1,
               "momentum vorticity solve: the Chebyshev degree must be odd and positive (got " << chebyshev_degree_ << ")");
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
    if (chebyshev_start_) {
      SS_REQUIRE(std::int64_t(chebyshev_start_->size()) == ne,
                 "momentum vorticity solve: the Chebyshev start vector has " << chebyshev_start_->size() << " entries for "
                                                                               << ne << " edges");
      chebyshev_ax_ = backend.make_vector(ne), chebyshev_d_ = backend.make_vector(ne);
      if constexpr (kOverRanks) block_inverse_diagonal_ = backend.make_vector(ne), block_faces_ = backend.make_vector(nf);
    }
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
    const auto apply = halo_last([&](const Vector& x, Vector& y) { apply_system(c, x, y); });
    CgResult result = chebyshev_start_ ? chebyshev_cg(c, options)
                                       : conjugate_gradient(backend_, apply, b_, omega_, &inverse_diagonal_, options);
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
  static constexpr bool kOverRanks = IsDistributedBackend<Backend>::value;

  // y = S x = M_e x + c B (D Bᵀ x), y right on its ghosts
  void apply_system(double c, const Vector& x, Vector& y) {
    scaled_transpose(x, faces_);
    sum_of_products(backend_, *mass_, x, *source_, faces_, c, edges_, y);
  }
  // y = S x from the piece alone (no exchange): right on the owned rows when x is right on their
  // columns; serially S x.
  void apply_on_rank(double c, const Vector& x, Vector& y) {
    if constexpr (!kOverRanks) return apply_system(c, x, y);
    else {
      if (own_scaled_transpose_) {
        own_scaled_transpose_->apply_on_rank(x, block_faces_);
      } else {
        force_->apply_on_rank(x, force_faces_);
        backend_.multiply(minus_inverse_face_mass_, force_faces_, block_faces_);
      }
      source_->apply_on_rank(block_faces_, edges_);
      mass_->apply_on_rank(x, y);
      backend_.axpy(c, edges_, y, y);
    }
  }

  // CG with the Chebyshev preconditioner (the top of this file) on S ω = b.
  CgResult chebyshev_cg(double c, const CgOptions& options) {
    if (!(chebyshev_c_ >= 0) || std::fabs(c - chebyshev_c_) > 0.2 * chebyshev_c_) {
      const double lambda = estimate_lambda_max_on<Backend>(
          backend_, [&](const Vector& x, Vector& y) { apply_system(c, x, y); }, inverse_diagonal_, kLanczosSteps,
          &*chebyshev_start_);
      chebyshev_hi_ = 1.1 * lambda;
      chebyshev_c_ = c;
    }
    if constexpr (kOverRanks) {
      if (block_diagonal_c_ != c) {  // D⁻¹ on the rank's own edges (0 on the ghosts: S_oo's block)
        backend_.multiply(backend_.owner_marker(std::int64_t(inverse_diagonal_.size())), inverse_diagonal_,
                          block_inverse_diagonal_);
        block_diagonal_c_ = c;
      }
    }
    const Vector& block_inverse_diagonal = kOverRanks ? block_inverse_diagonal_ : inverse_diagonal_;
    const double hi = chebyshev_hi_, lo = hi / kMomentumChebyshevRatio;
    const auto on_rank = [&](const Vector& x, Vector& y) { apply_on_rank(c, x, y); };
    const auto precondition = [&](const Vector& r, Vector& z) {
      chebyshev_smooth(backend_, on_rank, r, block_inverse_diagonal, 0.5 * (hi + lo), 0.5 * (hi - lo),
                       chebyshev_degree_, true, z, chebyshev_ax_, chebyshev_d_);
      if constexpr (kOverRanks) backend_.update_ghosts(z);
    };
    return preconditioned_conjugate_gradient(backend_, on_rank, b_, omega_, precondition, options);
  }

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
  // The Chebyshev preconditioner: its Lanczos start, interval end and the c it was estimated at,
  // over MPI ranks the block's D⁻¹ (made at block_diagonal_c_) and faces, and scratch
  static constexpr int kLanczosSteps = 20;
  std::optional<std::vector<double>> chebyshev_start_;
  int chebyshev_degree_ = 3;
  double chebyshev_hi_ = 1, chebyshev_c_ = -1, block_diagonal_c_ = -1;
  Vector block_inverse_diagonal_, chebyshev_ax_, chebyshev_d_, block_faces_;
};

// The momentum part (momentum_solve.hpp) on the edge vorticity: the right-hand side without viscous
// terms and fixed columns (the edge equation takes them), then MomentumVorticitySolve. Over MPI ranks
// the per-entity arrays are right on the ghosts too, as its pointwise steps read them.
template <class Backend, class FlowOps>
class EdgeVorticityMomentumSolve : public MomentumSolve<Backend> {
public:
  using Vector = typename Backend::Vector;

  EdgeVorticityMomentumSolve(Backend& backend, FlowOps& ops, const FlowProblem& problem, const LoadedMesh& mesh,
                             const FlowOperatorData& data, MomentumOperator<Backend, FlowOps>& momentum)
      : ops_(ops), problem_(problem), A_(momentum) {
    std::vector<double> face_mass = data.face_mass;
    complete_ghosts<Backend>(ops, face_mass);
    MomentumVorticitySystem system = build_momentum_vorticity_system(momentum.curl_curl_data(), face_mass, data.free_mask);
    for (std::vector<double>* v : {&system.mass_diagonal, &system.coupling_diagonal, &system.free_edges})
      complete_ghosts<Backend>(ops, *v);
    std::optional<std::vector<double>> chebyshev_start;
    if (problem.momentum.chebyshev) chebyshev_start = lanczos_edge_start(mesh);
    solve_ = std::make_unique<MomentumVorticitySolve<Backend>>(backend, system, momentum.curl_curl(),
                                                               std::move(chebyshev_start), problem.momentum.chebyshev_degree);
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
