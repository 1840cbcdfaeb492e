#pragma once
// The exact fractional-step solve (thesis §7.4, eq. 7.17; Chang, Giraldo & Perot 2002): the new
// face fluxes are the discrete curl of an edge streamfunction, U = C s, so D U = D C s = 0 holds
// algebraically whatever the solver tolerance, and the pressure drops out of the momentum
// equation (Cᵀ G p = −(D C)ᵀ p = 0). With A the momentum operator of the classical scheme
// (H/Δt − νθK, flow_operators.hpp), m the free-face mask and r the momentum right-hand side
// without the cell pressures, the flux minimises ½ Uᵀ m A m U − Uᵀ m r over
//   s = s_b + Σ_k α_k h_k + s_f,
// s_b the boundary lift (streamfunction_boundary.hpp), h_k the harmonic basis and s_f free on the
// edges not on a prescribed face (E: the free-edge mask). That is
//   Â s_f = E Cᵀ m (r − A m C s_b − Σ α_k A m C h_k),   Â = E Cᵀ m A m C E      (CG, Jacobi)
// and, for the few α_k, with v_k = h_k − w_k, Â w_k = E Cᵀ m A m C h_k (once per operator):
//   Σ_k (C v_j)ᵀ m A m (C v_k) α_k = (C v_j)ᵀ m (r − A m C (s_b + s₁)),   Â s₁ = E Cᵀ m (r − A m C s_b).
// Â is only semi-definite: C vanishes on node gradients (C G = 0). The right-hand side lies in
// the range of Cᵀ, so CG converges in that range; the gradient part of s that rounding feeds in
// does not change U = C s (README, *Flow: the exact method*, has the measured iterations and drift).
#include <algorithm>
#include <cmath>
#include <functional>
#include <vector>

#include "physics/streamfunction_boundary.hpp"
#include "solver/cg.hpp"
#include "util/error.hpp"

namespace ss {

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
  };

  // `a` and `b`: per edge, Σ over its free faces of H_f and of −K_ff, so Σ_f m_f A_ff on an edge is
  // a/Δt + νθ b (the Jacobi preconditioner).
  ExactFractionalStep(Backend& backend, MeshOps& mesh_ops, const StreamfunctionBoundary& boundary,
                      const std::vector<double>& free_face_mask, const std::vector<double>& edge_mass_sum,
                      const std::vector<double>& edge_viscous_sum)
      : backend_(backend), mesh_(mesh_ops), boundary_(boundary) {
    const std::int64_t ne = boundary.num_edges, nf = std::int64_t(free_face_mask.size());
    edge_free_ = backend.upload(boundary.free_edge_mask);
    face_free_ = backend.upload(free_face_mask);
    edge_mass_sum_ = backend.upload(edge_mass_sum), edge_viscous_sum_ = backend.upload(edge_viscous_sum);
    inverse_diagonal_ = backend.make_vector(ne), diagonal_ = backend.make_vector(ne);
    s_ = backend.make_vector(ne), s_free_ = backend.make_vector(ne), lift_ = backend.make_vector(ne);
    e1_ = backend.make_vector(ne), e2_ = backend.make_vector(ne);
    f1_ = backend.make_vector(nf), f2_ = backend.make_vector(nf), f3_ = backend.make_vector(nf);
    for (const auto& h : boundary.harmonic) {
      harmonic_.push_back(backend.upload(h));
      response_.push_back(backend.make_vector(ne));
      combined_.push_back(backend.make_vector(ne));
    }
  }

  // The boundary lift s_b for the prescribed fluxes of this time (one value per mesh face).
  void set_boundary_flux(const std::vector<double>& face_flux) {
    lift_ = backend_.upload(streamfunction_lift(boundary_, face_flux));
  }

  // Solves for s with the momentum operator `apply` (made for inv_dt, nu_theta) and the momentum
  // right-hand side `rhs` (faces; read on free faces), then sets U = C s.
  Result solve(double inv_dt, double nu_theta, const MomentumApply& apply, const Vector& rhs, const CgOptions& options,
               bool jacobi, Vector& U) {
    Result result;
    if (inv_dt != operator_inv_dt_ || nu_theta != operator_nu_theta_) {
      update_preconditioner(inv_dt, nu_theta);
      if (!update_harmonic_responses(apply, options, jacobi, result)) return result;
      operator_inv_dt_ = inv_dt, operator_nu_theta_ = nu_theta;
    }
    // 1. Â s₁ = E Cᵀ m (r − A m C s_b), from the previous s₁.
    backend_.multiply(face_free_, rhs, f3_);  // f3 = m r
    mesh_.curl(lift_, f1_);
    apply(f1_, f2_);
    backend_.axpy(-1.0, f2_, f3_, f1_);
    to_edges(f1_, e1_);
    const CgResult r = cg(apply, e1_, s_free_, options, jacobi);
    result.iterations += r.iterations;
    if (!r.converged) return fail(result, "streamfunction: " + describe_stop(r, options.tolerance));
    backend_.axpy(1.0, s_free_, lift_, s_);  // s = s_b + s₁
    // 2. The harmonic coefficients α from the momentum residual of s_b + s₁.
    if (!harmonic_.empty()) {
      mesh_.curl(s_, f1_);
      apply(f1_, f2_);
      backend_.axpy(-1.0, f2_, f3_, f1_);  // f1 = m (r − A m C s)
      const size_t k_count = harmonic_.size();
      std::vector<double> rhs_alpha(k_count);
      for (size_t j = 0; j < k_count; ++j) {
        mesh_.curl(combined_[j], f2_);
        rhs_alpha[j] = backend_.dot(f2_, f1_);
      }
      const std::vector<double> alpha = solve_small(harmonic_matrix_, rhs_alpha);
      for (size_t k = 0; k < k_count; ++k) backend_.axpy(alpha[k], combined_[k], s_, s_);
      last_alpha_ = alpha;
    }
    mesh_.curl(s_, U);
    return result;
  }

  const Vector& streamfunction() const { return s_; }
  // Restores s (a checkpoint's): its free part becomes the next solve's starting guess.
  void restore(const std::vector<double>& s) {
    s_ = backend_.upload(s);
    backend_.axpy(-1.0, lift_, s_, s_free_);
    backend_.multiply(edge_free_, s_free_, e1_);
    backend_.copy(e1_, s_free_);
  }
  const std::vector<double>& harmonic_coefficients() const { return last_alpha_; }

private:
  // Edges of the face field x, masked: y = E Cᵀ x.
  void to_edges(const Vector& x, Vector& y) {
    mesh_.rotation(x, e2_);
    backend_.multiply(edge_free_, e2_, y);
  }

  CgResult cg(const MomentumApply& apply, const Vector& b, Vector& x, const CgOptions& options, bool jacobi) {
    const auto apply_edges = [&](const Vector& s, Vector& y) {  // y = E Cᵀ m A m C s (s zero on fixed edges)
      mesh_.curl(s, f1_);
      apply(f1_, f2_);
      to_edges(f2_, y);
    };
    return conjugate_gradient(backend_, apply_edges, b, x, jacobi ? &inverse_diagonal_ : nullptr, options);
  }

  // Jacobi: 1 / Σ_{f ∋ e} m_f (H_f/Δt − νθ K_ff) on free edges, 0 on fixed ones.
  void update_preconditioner(double inv_dt, double nu_theta) {
    backend_.linear_combination({inv_dt, nu_theta}, {&edge_mass_sum_, &edge_viscous_sum_}, diagonal_);
    backend_.divide(edge_free_, diagonal_, inverse_diagonal_);
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
  const StreamfunctionBoundary& boundary_;
  Vector edge_free_, face_free_, edge_mass_sum_, edge_viscous_sum_, diagonal_, inverse_diagonal_;
  Vector s_, s_free_, lift_, e1_, e2_, f1_, f2_, f3_;
  std::vector<Vector> harmonic_, response_, combined_;  // h_k, w_k, v_k = h_k − w_k
  std::vector<double> harmonic_matrix_, last_alpha_;
  double operator_inv_dt_ = -1, operator_nu_theta_ = -1;
};

}  // namespace ss
