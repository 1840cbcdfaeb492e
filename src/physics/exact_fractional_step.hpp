#pragma once
// The exact fractional-step solve (thesis §7.4, eq. 7.17; Chang, Giraldo & Perot 2002): the new
// face fluxes are the discrete curl of an edge streamfunction, U = C s, so D U = D C s = 0 holds
// algebraically whatever the solver tolerance, and the pressure drops out of the momentum
// equation (Cᵀ G p = −(D C)ᵀ p = 0). With A the momentum operator of the classical scheme
// (H/Δt − νθK, flow_operators.hpp), m the free-face mask and r the momentum right-hand side
// without the cell pressures, the flux minimises ½ Uᵀ m A m U − Uᵀ m r over
//   s = s_b + Σ_k α_k h_k + s_f,
// s_b the boundary lift (streamfunction_boundary.hpp), h_k the harmonic basis and s_f free on the
// edges not on a prescribed face (E: the free-edge mask). With Â = E Cᵀ m A m C E (CG, preconditioned
// by the auxiliary-space preconditioner or Jacobi), v_k = h_k − w_k and Â w_k = E Cᵀ m A m C h_k
// (once per operator), Â v_k = 0 and the α_k solve a k×k system S α = ...,
// S_jk = (C v_j)ᵀ m A m (C v_k). Each step solves for the change from the previous s (an increment,
// so that nothing large cancels in float32):
//   s = sⁿ + Δs_b + δ + Σ β_k v_k,   ρ = m (r − A m C (sⁿ + Δs_b)),
//   Â δ = E Cᵀ ρ   (δ₀ = 0; tolerance relative to ||E Cᵀ m (r − A m C s_b)||),
//   S β = (C v_j)ᵀ (ρ − m A m C δ),
// where the caller forms m (r − A m C sⁿ) = m (r − A m Uⁿ) with r's H Uⁿ/Δt cancelled analytically.
// Â is only semi-definite: C vanishes on node gradients (C G = 0). The right-hand side lies in
// the range of Cᵀ, but rounding puts a little of it in the kernel, where CG cannot reduce it and,
// in float32, then diverges; the grad–div gauge (build_gauge, default) adds G W Gᵀ on the kernel
// so the operator is definite; the gradient part of s it leaves does not change U = C s
// (docs/validation.md, *The exact method*, has the measured iterations and the drift without it).
#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

#include "multigrid/auxiliary_space.hpp"
#include "operators/sparse_kernels.hpp"
#include "physics/streamfunction_boundary.hpp"
#include "solver/cg.hpp"
#include "util/error.hpp"

namespace ss {

// What the auxiliary-space preconditioner of Â needs (multigrid/auxiliary_space.hpp): C, the Nédélec
// interpolations Π_d (operators/edge_auxiliary_spaces.hpp) and, per face, m_f H_f and m_f (−K_ff), so
// that Cᵀ diag(a/Δt + νθ b) C + G W Gᵀ is the sparse edge system its node matrices come from (the
// viscous K approximated by its diagonal: exact for the dominant H/Δt part at the usual steps).
// `edges`: the edges whose rows Π_d has (and G gets): the free ones, over MPI ranks those this rank
// owns (each rank's rows of the whole mesh's node spaces, auxiliary_space.hpp).
struct StreamfunctionAuxiliarySpaces {
  SparseMatrix curl;
  std::array<SparseMatrix, 3> interpolation;
  std::vector<double> face_mass, face_viscous;
  std::vector<double> edges;
};

// The backend a rank's own vectors live on: Backend itself, or a distributed backend's local one.
template <class Backend, class = void>
struct LocalBackendOf {
  using type = Backend;
  static Backend& of(Backend& b) { return b; }
};
template <class Backend>
struct LocalBackendOf<Backend, std::void_t<decltype(Backend::distributed)>> {
  using type = std::remove_reference_t<decltype(std::declval<Backend&>().local())>;
  static type& of(Backend& b) { return b.local(); }
};

template <class Backend, class MeshOps>
class ExactFractionalStep {
public:
  using Vector = typename Backend::Vector;
  // y = m A m x on the faces for the current operator (x, y: faces; y must not be x).
  using MomentumApply = std::function<void(const Vector& x, Vector& y)>;

  struct Result {
    bool converged = true;
    std::string failure;
    int iterations = 0;           // streamfunction CG iterations of this solve
    int harmonic_iterations = 0;  // of which spent on the harmonic responses w_k (operator changed)
    int preconditioner_setups = 0;  // the auxiliary-space preconditioner made (once a run)
    double preconditioner_setup_seconds = 0;
    int preconditioner_updates = 0;  // its vector space recombined (νθΔt in a new class)
    double preconditioner_update_seconds = 0;
  };

  // `a` and `b`: per edge, Σ over its free faces of H_f and of −K_ff, so Σ_f m_f A_ff on an edge is
  // a/Δt + νθ b (the Jacobi preconditioner).
  // (Right on every edge of the mesh, ghosts included over MPI ranks.)
  // `kernel`: the grad–div gauge's gradients (null: no gauge). `auxiliary`: with the gauge, CG is
  // preconditioned by the auxiliary-space preconditioner of Â (null: by Jacobi or not at all, the
  // solve's `jacobi`).
  ExactFractionalStep(Backend& backend, MeshOps& mesh_ops, const StreamfunctionSetup& setup,
                      const std::vector<double>& free_face_mask, const std::vector<double>& edge_mass_sum,
                      const std::vector<double>& edge_viscous_sum, const StreamfunctionKernel* kernel,
                      const StreamfunctionAuxiliarySpaces* auxiliary = nullptr)
      : backend_(backend), mesh_(mesh_ops), setup_(setup), boundary_(setup.boundary), auxiliary_(auxiliary) {
    SS_REQUIRE(!auxiliary || kernel, "the auxiliary-space preconditioner of the streamfunction needs the grad-div gauge");
    const std::int64_t ne = boundary_.num_edges, nf = std::int64_t(free_face_mask.size());
    edge_free_ = backend.upload(boundary_.free_edge_mask);
    face_free_ = backend.upload(free_face_mask);
    edge_mass_sum_ = backend.upload(edge_mass_sum), edge_viscous_sum_ = backend.upload(edge_viscous_sum);
    inverse_diagonal_ = backend.make_vector(ne), diagonal_ = backend.make_vector(ne);
    s_ = backend.make_vector(ne), delta_ = backend.make_vector(ne), lift_ = backend.make_vector(ne);
    applied_lift_ = backend.make_vector(ne);
    reset();
    e1_ = backend.make_vector(ne), e2_ = backend.make_vector(ne);
    f1_ = backend.make_vector(nf), f2_ = backend.make_vector(nf), f3_ = backend.make_vector(nf);
    if (kernel) build_gauge(*kernel, edge_mass_sum, edge_viscous_sum);
    for (const auto& h : boundary_.harmonic) {
      harmonic_.push_back(backend.upload(h));
      response_.push_back(backend.make_vector(ne));
      combined_.push_back(backend.make_vector(ne));
    }
  }

  // The boundary lift s_b for the prescribed fluxes of this time (one value per mesh face); the
  // next solve moves the held s's fixed edges to it.
  void set_boundary_flux(const std::vector<double>& face_flux) {
    lift_ = backend_.upload(setup_.lift(face_flux));
    lift_changed_ = true;
  }

  // Forgets s (s = 0, no lift applied): the next solve's `residual` is m r itself.
  void reset() {
    backend_.fill(s_, 0.0);
    backend_.fill(applied_lift_, 0.0);
    lift_changed_ = true;
  }

  // Solves for the new s with the momentum operator `apply` (made for inv_dt, nu_theta), given the
  // momentum residual of the s held, `residual` = r − A m C sⁿ (faces; read on free faces), and
  // sets U = C s. The solve is for the increment, s = sⁿ + Δs_b + δ + Σ β_k v_k (Δs_b: the lift's
  // change), so nothing large cancels in float32: the caller forms r − A m Uⁿ with the H Uⁿ/Δt
  // terms cancelled analytically, and δ's right-hand side is the step's change, not the whole
  // right-hand side. The tolerance stays relative to ||E Cᵀ m (r − A m C s_b)||, the right-hand
  // side of the whole s_f (as when s_f itself was solved for, warm-started).
  Result solve(double inv_dt, double nu_theta, const MomentumApply& apply, const Vector& residual, const CgOptions& options,
               bool jacobi, Vector& U) {
    Result result;
    if (inv_dt != operator_inv_dt_ || nu_theta != operator_nu_theta_) {
      update_preconditioner(inv_dt, nu_theta);
      if (auxiliary_) update_auxiliary_space(inv_dt, nu_theta, result);
      if (!update_harmonic_responses(apply, options, jacobi, result)) return result;
      operator_inv_dt_ = inv_dt, operator_nu_theta_ = nu_theta;
    }
    backend_.multiply(face_free_, residual, f3_);  // f3 = m (r − A m C s)
    // 1. The lift's change: s ← s + Δs_b, f3 ← f3 − A m C Δs_b.
    if (lift_changed_) {
      backend_.axpy(-1.0, applied_lift_, lift_, e1_);
      backend_.axpy(1.0, e1_, s_, s_);
      mesh_.curl(e1_, f1_);
      apply(f1_, f2_);
      backend_.axpy(-1.0, f2_, f3_, f3_);
      backend_.copy(lift_, applied_lift_);
      lift_changed_ = false;
    }
    // 2. The scale: ||E Cᵀ m (r − A m C s_b)||, the right-hand side of s_f's equation (header),
    //    m (r − A m C s_b) = f3 + m A m C (s − s_b).
    backend_.axpy(-1.0, lift_, s_, e1_);
    mesh_.curl(e1_, f1_);
    apply(f1_, f2_);
    backend_.axpy(1.0, f2_, f3_, f1_);
    to_edges(f1_, e1_);
    double scale = std::sqrt(backend_.norm2(e1_));
    // 3. Â δ = E Cᵀ f3, δ₀ = 0, to `tolerance` of the scale; s ← s + δ.
    to_edges(f3_, e1_);
    const double increment = std::sqrt(backend_.norm2(e1_));
    if (scale == 0.0) scale = increment;  // s_f = 0 solves it: the increment is relative to itself
    if (increment > 0.0) {
      CgOptions step_options = options;
      step_options.tolerance = std::min(0.5, options.tolerance * scale / increment);
      backend_.fill(delta_, 0.0);
      CgResult r = cg(apply, e1_, delta_, step_options, jacobi);
      result.iterations += r.iterations;
      if (!r.converged) {
        r.relative_residual *= increment / scale;
        return fail(result, "streamfunction: " + describe_stop(r, options.tolerance));
      }
      backend_.axpy(1.0, delta_, s_, s_);
      mesh_.curl(delta_, f1_);
      apply(f1_, f2_);
      backend_.axpy(-1.0, f2_, f3_, f3_);  // f3 = m (r − A m C s) of the new s
    }
    // 4. The harmonic coefficients' change β from the momentum residual: S β = (C v_j)ᵀ f3.
    if (!harmonic_.empty()) {
      const size_t k_count = harmonic_.size();
      std::vector<double> rhs_beta(k_count);
      for (size_t j = 0; j < k_count; ++j) {
        mesh_.curl(combined_[j], f2_);
        rhs_beta[j] = backend_.dot(f2_, f3_);
      }
      const std::vector<double> beta = solve_small(harmonic_matrix_, rhs_beta);
      for (size_t k = 0; k < k_count; ++k) backend_.axpy(beta[k], combined_[k], s_, s_);
    }
    mesh_.curl(s_, U);
    return result;
  }

  const Vector& streamfunction() const { return s_; }
  // Restores s (a checkpoint's, whose fixed edges hold the current lift).
  void restore(const std::vector<double>& s) {
    s_ = backend_.upload(s);
    backend_.copy(lift_, applied_lift_);
    lift_changed_ = false;
  }

private:
  // Edges of the face field x, masked: y = E Cᵀ x.
  void to_edges(const Vector& x, Vector& y) {
    mesh_.rotation(x, e2_);
    backend_.multiply(edge_free_, e2_, y);
  }

  CgResult cg(const MomentumApply& apply, const Vector& b, Vector& x, const CgOptions& options, bool jacobi) {
    // y = (E Cᵀ m A m C + G W Gᵀ) s (s zero on fixed edges; the second term only with the gauge)
    const auto apply_edges = [&](const Vector& s, Vector& y) {
      mesh_.curl(s, f1_);
      apply(f1_, f2_);
      to_edges(f2_, y);
      if (!gradient_) return;
      divergence_->apply(s, n1_);
      backend_.multiply(potential_weight_, n1_, n2_);
      gradient_->apply(n2_, y, nullptr, &y);
    };
    if constexpr (kAuxiliarySpace)
      if (auxiliary_space_) return preconditioned_conjugate_gradient(backend_, apply_edges, b, x, *auxiliary_space_, options);
    return conjugate_gradient(backend_, apply_edges, b, x, jacobi ? &inverse_diagonal_ : nullptr, options);
  }

  // The auxiliary-space preconditioner's node matrices come from the face weights
  // w = (1/Δt)(m H + ρ m (−K_ff)), ρ = νθΔt, and the gauge's W (linear in them alike):
  // A(1/Δt, ρ) = (1/Δt)(A_m + ρ A_v). Another Δt only scales A by 1/Δt; another ρ changes the mix
  // of its mass and viscous parts, measured by x = ρ ℓ_v / ℓ_m (ℓ_m, ℓ_v: the sums of the edge
  // system's l1 row sums of each part, over all ranks — the diagonal's viscous-to-mass ratio). So
  // the preconditioner of one ρ serves every ρ of a class of x, used as c A(1, ρ_k) with
  // c = (1 + x)/(1 + x_k):
  //   x < kMassDominated: one class, ρ_k = 0 (the mass part: the usual unsteady step, and the
  //                       initial projection at ν = 0);
  //   otherwise:          x rounded to a power of kClassRatio, ρ_k = x_k ℓ_m / ℓ_v.
  // It is set up once, for ρ = 0 (its aggregation and transfers, the gradient space); a class of
  // ρ_k > 0 recombines the vector space's levels for A_Π(ρ_k) = A_Π(0) + ρ_k A_Π,v over the same
  // transfers (auxiliary_space.hpp). The levels in use depend on the current ρ only, whatever came
  // before, so a restarted run uses the preconditioner of the uninterrupted one.
  static constexpr double kMassDominated = 0.25, kClassRatio = 4.0;
  static constexpr int kMassClass = std::numeric_limits<int>::min();
  void update_auxiliary_space(double inv_dt, double nu_theta, Result& result) {
    if constexpr (kAuxiliarySpace) {
      backend_.linear_combination({inv_dt, nu_theta}, {&face_mass_, &face_viscous_}, face_weight_);
      backend_.linear_combination({inv_dt, nu_theta}, {&l1_mass_, &l1_viscous_}, l1_);
      backend_.divide(edge_free_, l1_, l1_inverse_);
      const double rho = nu_theta / inv_dt;
      const double x = l1_mass_total_ > 0 ? rho * l1_viscous_total_ / l1_mass_total_ : 0.0;
      const int key = x < kMassDominated ? kMassClass : int(std::lround(std::log(x) / std::log(kClassRatio)));
      const double x_k = key == kMassClass ? 0.0 : std::pow(kClassRatio, key);
      const auto seconds_since = [](std::chrono::steady_clock::time_point t0) {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      };
      if (!auxiliary_space_) {
        const auto t0 = std::chrono::steady_clock::now();
        auxiliary_space_ = set_up_auxiliary_space();
        auxiliary_key_ = kMassClass;
        result.preconditioner_setups += 1;
        result.preconditioner_setup_seconds += seconds_since(t0);
      }
      if (auxiliary_key_ != key) {
        const auto t0 = std::chrono::steady_clock::now();
        if (!auxiliary_space_->has_vector_space_parts()) auxiliary_space_->set_vector_space_second_part(viscous_vector_space());
        auxiliary_space_->recombine_vector_space(x_k * l1_mass_total_ / l1_viscous_total_);
        auxiliary_key_ = key;
        result.preconditioner_updates += 1;
        result.preconditioner_update_seconds += seconds_since(t0);
      }
      auxiliary_space_->set_vector_scale((1.0 + x_k) / ((1.0 + x) * inv_dt));
    }
  }

  // y = (E Cᵀ diag(w) C E + G W Gᵀ) x: the sparse edge system the preconditioner is made for.
  void apply_sparse_edge_system(const Vector& x, Vector& y) {
    mesh_.curl(x, fa_);
    backend_.multiply(face_weight_, fa_, fb_);
    mesh_.rotation(fb_, ea_);
    backend_.multiply(edge_free_, ea_, y);
    divergence_->apply(x, na_);
    backend_.multiply(potential_weight_, na_, nb_);
    gradient_->apply(nb_, y, nullptr, &y);
  }

  // The auxiliary space's per-face weights and the l1 row sums of its sparse edge system, per unit
  // of 1/Δt and of νθ: Σ_{e'} |a_ee'| ≤ 3 Σ_{f ∋ e} w_f + Σ_{n ∈ e} W_n deg(n) (3 edges a face).
  void build_auxiliary_vectors(const std::vector<double>& edge_mass_sum, const std::vector<double>& edge_viscous_sum) {
    const StreamfunctionAuxiliarySpaces& a = *auxiliary_;
    face_mass_ = backend_.upload(a.face_mass), face_viscous_ = backend_.upload(a.face_viscous);
    const std::int64_t ne = boundary_.num_edges, nf = std::int64_t(a.face_mass.size()), nn = gradient_host_.cols;
    std::vector<double> l1_mass(static_cast<size_t>(ne)), l1_viscous(static_cast<size_t>(ne));
    for (size_t e = 0; e < size_t(ne); ++e) {
      l1_mass[e] = 3.0 * edge_mass_sum[e], l1_viscous[e] = 3.0 * edge_viscous_sum[e];
      for (std::int32_t k = gradient_host_.offsets[e]; k < gradient_host_.offsets[e + 1]; ++k) {
        const size_t p = size_t(gradient_host_.columns[size_t(k)]);
        l1_mass[e] += potential_mass_host_[p] * degree_host_[p];
        l1_viscous[e] += potential_viscous_host_[p] * degree_host_[p];
      }
    }
    setup_.complete_edges(l1_mass), setup_.complete_edges(l1_viscous);  // a ghost edge's nodes may miss edges
    l1_mass_ = backend_.upload(l1_mass), l1_viscous_ = backend_.upload(l1_viscous);
    l1_mass_total_ = backend_.dot(l1_mass_, edge_free_), l1_viscous_total_ = backend_.dot(l1_viscous_, edge_free_);
    l1_ = backend_.make_vector(ne), l1_inverse_ = backend_.make_vector(ne), face_weight_ = backend_.make_vector(nf);
    fa_ = backend_.make_vector(nf), fb_ = backend_.make_vector(nf), ea_ = backend_.make_vector(ne);
    na_ = backend_.make_vector(nn), nb_ = backend_.make_vector(nn);
  }
  // The preconditioner for ρ = 0: w = m H and W = its mass part (1/Δt = 1). Over MPI ranks its node
  // spaces are the whole mesh's on every rank (setup_.whole_node_spaces), A_Π's viscous part made
  // with them (collective: every rank sets up at the same step).
  auto set_up_auxiliary_space() {
    const StreamfunctionAuxiliarySpaces& a = *auxiliary_;
    AuxiliarySpaceMatrices m;
    typename AuxiliarySpace::EdgeComplete complete;
    typename AuxiliarySpace::RankSum sum;
    if constexpr (!std::is_same_v<LocalBackend, Backend>) {
      SS_REQUIRE(setup_.whole_node_spaces, "exact method over MPI ranks: no whole node spaces for the auxiliary space");
      WholeNodeSpaces whole = setup_.whole_node_spaces(NodeSpaceParts{a.curl, gradient_host_, boundary_.free_edge_mask,
                                                                      a.interpolation, a.face_mass, a.face_viscous,
                                                                      potential_mass_host_, potential_viscous_host_});
      m = std::move(whole.matrices), whole_viscous_vector_space_ = std::move(whole.viscous_vector_space);
      complete = [this](Vector& z) { backend_.update_ghosts(z); };
      sum = [this](std::initializer_list<Vector*> xs) { backend_.sum_over_ranks(xs); };
    } else {
      m = auxiliary_space_matrices(a.curl, auxiliary_gradient(gradient_host_, a.edges), a.interpolation, a.face_mass,
                                   potential_mass_host_);
    }
    return std::make_unique<AuxiliarySpace>(
        LocalBackendOf<Backend>::of(backend_), m, [this](const Vector& x, Vector& y) { apply_sparse_edge_system(x, y); },
        l1_inverse_, potential_weight_, std::move(complete), std::move(sum));
  }

  // A_Π(ρ) = A_Π(0) + ρ A_Π,v: A_Π,v from the weights' viscous parts.
  SparseMatrix viscous_vector_space() const {
    if constexpr (!std::is_same_v<LocalBackend, Backend>) {
      return whole_viscous_vector_space_;
    } else {
      const StreamfunctionAuxiliarySpaces& a = *auxiliary_;
      return vector_space_matrix(a.curl, auxiliary_gradient(gradient_host_, a.edges), a.interpolation, a.face_viscous,
                                 potential_viscous_host_);
    }
  }

  // Jacobi: 1 / Σ_{f ∋ e} m_f (H_f/Δt − νθ K_ff) on free edges, 0 on fixed ones.
  void update_preconditioner(double inv_dt, double nu_theta) {
    backend_.linear_combination({inv_dt, nu_theta}, {&edge_mass_sum_, &edge_viscous_sum_}, diagonal_);
    backend_.divide(edge_free_, diagonal_, inverse_diagonal_);
    if (gradient_)
      backend_.linear_combination({inv_dt, nu_theta}, {&potential_mass_, &potential_viscous_}, potential_weight_);
  }

  // The grad–div gauge: CG on Â + G W Gᵀ, G the kernel's gradients (streamfunction_boundary.hpp).
  // C G = 0, so G W Gᵀ's range is Â's kernel, orthogonal to Â's range: the solution's curl U = C s
  // is the same, but the operator is definite, and CG no longer diverges along the kernel once
  // rounding has put a little of the right-hand side there (float32: the pressure-driven duct's
  // residual fell to 6e-6, then grew to 1e3). W per potential is kGaugeWeight × the mean of its
  // edges' Jacobi diagonals (Â's), linear in (1/Δt, νθ) like the diagonal itself: so small that
  // the kernel sits below Â's spectrum and CG hardly spends iterations on it (duct, 3.4K cells,
  // iterations of its second step: double 347 without the gauge, 356 / 351 / 363 / 388 / 497 at
  // weights 0.001 / 0.005 / 0.01 / 0.05 / 0.5, no convergence at 5; float32 359 at 0.005).
  static constexpr double kGaugeWeight = 0.005;
  void build_gauge(const StreamfunctionKernel& kernel, const std::vector<double>& edge_mass_sum,
                   const std::vector<double>& edge_viscous_sum) {
    const SparseMatrix& g = kernel.gradient;
    gradient_ = std::make_unique<Sparse>(backend_, g);
    divergence_ = std::make_unique<Sparse>(backend_, transpose(g));
    std::vector<double> mass(size_t(g.cols), 0.0), viscous(size_t(g.cols), 0.0);
    for (std::int32_t e = 0; e < g.rows; ++e)
      for (std::int32_t k = g.offsets[size_t(e)]; k < g.offsets[size_t(e) + 1]; ++k) {
        const size_t p = size_t(g.columns[size_t(k)]);
        mass[p] += kGaugeWeight * edge_mass_sum[size_t(e)] / kernel.degree[p];
        viscous[p] += kGaugeWeight * edge_viscous_sum[size_t(e)] / kernel.degree[p];
      }
    setup_.complete_nodes(mass), setup_.complete_nodes(viscous);  // a ghost node may miss some of its edges
    for (size_t p = 0; p < mass.size(); ++p)  // no potential (G has no column): any W > 0 (never used by G W Gᵀ)
      if (kernel.degree[p] == 0.0) mass[p] = 1.0;
    potential_mass_ = backend_.upload(mass), potential_viscous_ = backend_.upload(viscous);
    if (auxiliary_) {
      gradient_host_ = g, potential_mass_host_ = mass, potential_viscous_host_ = viscous, degree_host_ = kernel.degree;
      build_auxiliary_vectors(edge_mass_sum, edge_viscous_sum);
    }
    potential_weight_ = backend_.make_vector(g.cols);
    n1_ = backend_.make_vector(g.cols), n2_ = backend_.make_vector(g.cols);
  }

  // w_k (Â w_k = E Cᵀ m A m C h_k, from the previous w_k), v_k = h_k − w_k and the matrix
  // S_jk = (C v_j)ᵀ m A m (C v_k).
  bool update_harmonic_responses(const MomentumApply& apply, const CgOptions& options, bool jacobi, Result& result) {
    const size_t k_count = harmonic_.size();
    for (size_t k = 0; k < k_count; ++k) {
      mesh_.curl(harmonic_[k], f1_);
      apply(f1_, f2_);
      to_edges(f2_, e1_);
      const CgResult r = cg(apply, e1_, response_[k], options, jacobi);
      result.iterations += r.iterations, result.harmonic_iterations += r.iterations;
      if (!r.converged) {
        fail(result, "streamfunction (" + boundary_.harmonic_labels[k] + "): " + describe_stop(r, options.tolerance));
        return false;
      }
      backend_.axpy(-1.0, response_[k], harmonic_[k], combined_[k]);
    }
    harmonic_matrix_.assign(k_count * k_count, 0.0);
    for (size_t k = 0; k < k_count; ++k) {
      mesh_.curl(combined_[k], f1_);
      apply(f1_, f2_);
      for (size_t j = 0; j < k_count; ++j) {
        mesh_.curl(combined_[j], f3_);
        harmonic_matrix_[j * k_count + k] = backend_.dot(f3_, f2_);
      }
    }
    return true;
  }

  // Gaussian elimination with partial pivoting of the small symmetric system; a direction with no
  // energy (a basis field the free edges already span) gets α = 0.
  static std::vector<double> solve_small(std::vector<double> a, std::vector<double> b) {
    const size_t n = b.size();
    double scale = 0;
    for (size_t i = 0; i < n; ++i) scale = std::max(scale, std::fabs(a[i * n + i]));
    std::vector<double> x(n, 0.0);
    std::vector<bool> dropped(n, false);
    for (size_t c = 0; c < n; ++c) {
      size_t p = c;
      for (size_t r = c + 1; r < n; ++r)
        if (std::fabs(a[r * n + c]) > std::fabs(a[p * n + c])) p = r;
      if (std::fabs(a[p * n + c]) <= 1e-9 * scale) {
        dropped[c] = true;
        continue;
      }
      for (size_t k = 0; k < n; ++k) std::swap(a[c * n + k], a[p * n + k]);
      std::swap(b[c], b[p]);
      for (size_t r = 0; r < n; ++r) {
        if (r == c) continue;
        const double factor = a[r * n + c] / a[c * n + c];
        for (size_t k = 0; k < n; ++k) a[r * n + k] -= factor * a[c * n + k];
        b[r] -= factor * b[c];
      }
    }
    for (size_t c = 0; c < n; ++c) x[c] = dropped[c] ? 0.0 : b[c] / a[c * n + c];
    return x;
  }

  Result fail(Result& r, const std::string& why) {
    r.converged = false;
    r.failure = why;
    return r;
  }

  Backend& backend_;
  MeshOps& mesh_;
  const StreamfunctionSetup& setup_;
  const StreamfunctionBoundary& boundary_;
  Vector edge_free_, face_free_, edge_mass_sum_, edge_viscous_sum_, diagonal_, inverse_diagonal_;
  Vector s_, delta_, lift_, applied_lift_, e1_, e2_, f1_, f2_, f3_;
  bool lift_changed_ = true;  // lift_ is not yet in s_
  std::vector<Vector> harmonic_, response_, combined_;  // h_k, w_k, v_k = h_k − w_k
  using Sparse = typename SparseMatrixOn<Backend>::type;
  std::unique_ptr<Sparse> gradient_, divergence_;  // the gauge's G and Gᵀ (null: no gauge)
  Vector potential_mass_, potential_viscous_, potential_weight_, n1_, n2_;
  std::vector<double> harmonic_matrix_;
  double operator_inv_dt_ = -1, operator_nu_theta_ = -1;
  // The auxiliary-space preconditioner (null: Jacobi or none) and what it is set up from; its node
  // spaces live on the rank's local backend.
  using LocalBackend = typename LocalBackendOf<Backend>::type;
  static constexpr bool kAuxiliarySpace =
      std::is_same_v<LocalBackend, CpuBackend> || std::is_same_v<LocalBackend, GpuBackend>;
  struct NoAuxiliarySpace {
    using EdgeComplete = std::function<void(Vector&)>;
  };
  const StreamfunctionAuxiliarySpaces* auxiliary_;
  using AuxiliarySpace =
      std::conditional_t<kAuxiliarySpace, AuxiliarySpacePreconditioner<LocalBackend>, NoAuxiliarySpace>;
  std::unique_ptr<AuxiliarySpace> auxiliary_space_;
  int auxiliary_key_ = kMassClass;  // the class of ρ its vector space is combined for (update_auxiliary_space)
  SparseMatrix gradient_host_;  // G
  SparseMatrix whole_viscous_vector_space_;  // over MPI ranks: the whole A_Π's viscous part
  std::vector<double> potential_mass_host_, potential_viscous_host_, degree_host_;
  Vector face_mass_, face_viscous_, face_weight_, l1_mass_, l1_viscous_, l1_, l1_inverse_, fa_, fb_, ea_, na_, nb_;
  double l1_mass_total_ = 0, l1_viscous_total_ = 0;  // ℓ_m, ℓ_v (update_auxiliary_space)
};

}  // namespace ss
