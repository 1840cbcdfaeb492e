#pragma once
// The exact method's step (thesis §7.4) as a part of the flow solver: momentum, pressure and
// projection in one solve for the edge streamfunction s, Uⁿ⁺¹ = C s (exact_fractional_step.hpp), with
// the momentum right-hand side without the cell pressures; the pressure is recovered from the
// momentum residual ρ = m(rhs − A Uⁿ⁺¹) = m G p only when the state is asked for: P p = −D(W ρ).
// Over MPI ranks the boundary set-up is the distributed operators' (the boundary tree solved at
// rank 0) and every rank holds the whole mesh's node spaces of the auxiliary-space preconditioner.
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "operators/edge_auxiliary_spaces.hpp"
#include "physics/distributed_traits.hpp"
#include "physics/exact_fractional_step.hpp"
#include "physics/flow_boundary_vectors.hpp"
#include "physics/momentum_operator.hpp"
#include "physics/pressure_projection.hpp"
#include "util/error.hpp"

namespace ss {

template <class Backend, class FlowOps>
class ExactMethod {
public:
  using Vector = typename Backend::Vector;
  using MeshOps = std::remove_reference_t<decltype(std::declval<FlowOps&>().mesh())>;
  using Solve = ExactFractionalStep<Backend, MeshOps>;

  ExactMethod(Backend& backend, FlowOps& ops, const FlowProblem& problem, const LoadedMesh& mesh,
              const FlowOperatorData& data, MomentumOperator<Backend, FlowOps>& momentum)
      : backend_(backend), ops_(ops), problem_(problem), A_(momentum) {
    if constexpr (IsDistributedBackend<Backend>::value) setup_ = ops.streamfunction_setup();
    else setup_ = serial_streamfunction_setup(mesh, problem);
    const StreamfunctionBoundary& boundary = setup_.boundary;
    const Topology& t = mesh.topology;
    const std::int64_t nf = t.num_faces;
    // Jacobi of Â: Σ_{f ∋ e} m_f H_f and Σ_{f ∋ e} m_f (−K_ff) per edge (a ghost edge over MPI ranks
    // may miss some of its faces: from its owner; both face diagonals are right on ghost faces).
    const std::vector<double>& k_diagonal = momentum.viscous_diagonal();
    std::vector<double> mass_sum(size_t(t.num_edges), 0.0), viscous_sum(size_t(t.num_edges), 0.0);
    for (size_t f = 0; f < size_t(nf); ++f)
      for (std::int32_t e : t.face_edges[f]) {
        mass_sum[size_t(e)] += data.free_mask[f] * data.face_mass[f];
        viscous_sum[size_t(e)] -= data.free_mask[f] * k_diagonal[f];
      }
    setup_.complete_edges(mass_sum), setup_.complete_edges(viscous_sum);
    for (size_t e = 0; e < mass_sum.size(); ++e)  // fixed edges: any non-zero (the free-edge mask zeroes 1/d)
      if (boundary.free_edge_mask[e] == 0.0) mass_sum[e] = 1.0, viscous_sum[e] = 0.0;
    if (problem.streamfunction_gauge) kernel_ = streamfunction_kernel(t, boundary.free_edge_mask);
    const StreamfunctionPreconditioner preconditioner = problem.resolved_streamfunction_preconditioner();
    const bool ams = preconditioner == StreamfunctionPreconditioner::ams;
    jacobi_ = preconditioner == StreamfunctionPreconditioner::jacobi;
    if (ams) {  // over MPI ranks each rank's rows: its owned edges' (multigrid/auxiliary_space.hpp)
      auxiliary_.curl = curl_matrix(t);
      auxiliary_.edges = boundary.free_edge_mask;
      for (size_t e = 0; e < auxiliary_.edges.size(); ++e) auxiliary_.edges[e] *= setup_.owned_edge_mask[e];
      auxiliary_.interpolation = nedelec_interpolation(t, mesh.mesh.nodes, auxiliary_.edges);
      auxiliary_.face_mass.resize(size_t(nf)), auxiliary_.face_viscous.resize(size_t(nf));
      for (size_t f = 0; f < size_t(nf); ++f) {
        auxiliary_.face_mass[f] = data.free_mask[f] * data.face_mass[f];
        auxiliary_.face_viscous[f] = -data.free_mask[f] * k_diagonal[f];
      }
    }
    solve_ = std::make_unique<Solve>(backend, ops.mesh(), setup_, data.free_mask, mass_sum, viscous_sum,
                                     problem.streamfunction_gauge ? &kernel_ : nullptr, ams ? &auxiliary_ : nullptr);
    rhs_ = backend.make_vector(nf), product_ = backend.make_vector(nf), masked_ = backend.make_vector(nf);
    scratch_ = backend.make_vector(nf);
    zero_cells_ = backend.make_vector(t.num_cells);
    backend.fill(zero_cells_, 0.0);
    pressure_weight_ = backend.upload(data.pressure_weight);
  }

  // The boundary lift for the prescribed fluxes of this time.
  void set_boundary_flux(const std::vector<double>& face_flux) { solve_->set_boundary_flux(face_flux); }

  // The solve's right-hand side, the momentum residual of Uⁿ = C sⁿ with H Uⁿ/Δt cancelled
  // analytically (H is diagonal): m(rhs − A m Uⁿ) = m(T f − G p_b + νθ K U_b) + νθ m K m Uⁿ.
  // `pressure_gradient` is scratch (the cell pressures do not enter).
  void right_hand_side(const Vector& U, const Vector& integrated, const FlowBoundaryVectors<Backend>& boundary,
                       Vector& pressure_gradient) {
    const double nu_theta = problem_.viscosity * problem_.theta;
    ops_.mesh().gradient(zero_cells_, boundary.pressure(), pressure_gradient);
    ops_.momentum_rhs(0.0, nu_theta, U, integrated, pressure_gradient, A_.fixed_columns(), boundary.flux(), product_);
    masked_momentum(0.0, nu_theta)(U, masked_);
    backend_.axpy(-1.0, masked_, product_, rhs_);
  }

  // U = Uⁿ⁺¹ = C s for the step Δt, from the right-hand side made last.
  typename Solve::Result step(double dt, Vector& U) {
    const double nu_theta = problem_.viscosity * problem_.theta;
    return solve_->solve(1.0 / dt, nu_theta, masked_momentum(1.0 / dt, nu_theta), rhs_, cg_options(problem_.streamfunction),
                         jacobi_, U);
  }

  // U = C s nearest to `target` in the H norm: the exact solve with A = H (Δt = 1, ν = 0) from s = 0.
  // Returns the solve's report (its preconditioner set-ups).
  auto project(const Vector& target, Vector& U, const char* what) {
    solve_->reset();
    backend_.multiply(A_.face_mass(), target, rhs_);
    const auto result = solve_->solve(1.0, 0.0, masked_momentum(1.0, 0.0), rhs_, cg_options(problem_.streamfunction),
                                      jacobi_, U);
    SS_REQUIRE(result.converged, what << " failed: " << result.failure);
    return result;
  }

  // p from the momentum residual of the last step (Δt, Uⁿ → U): ρ = m(rhs − A U) = m G p, so
  // P p = −D(W ρ); ρ = rhs_ − m A m (U − Uⁿ) on free faces. False (reason in pressure.failure())
  // when the pressure CG does not converge.
  bool recover_pressure(const Vector& U, const Vector& U_previous, double dt, PressureProjection<Backend, FlowOps>& pressure,
                        int& iterations) {
    const double nu_theta = problem_.viscosity * problem_.theta;
    backend_.axpy(-1.0, U_previous, U, product_);
    masked_momentum(1.0 / dt, nu_theta)(product_, masked_);
    backend_.multiply(A_.free_mask(), rhs_, product_);
    backend_.axpy(-1.0, masked_, product_, product_);
    backend_.multiply(pressure_weight_, product_, masked_);
    ops_.mesh().divergence(masked_, pressure.right_hand_side());
    backend_.scale(-1.0, pressure.right_hand_side(), pressure.right_hand_side());
    return pressure.solve_system(iterations);
  }

  const Vector& streamfunction() const { return solve_->streamfunction(); }
  void restore(const std::vector<double>& s) { solve_->restore(s); }

private:
  // y = m A m x: the momentum operator on the free faces only.
  typename Solve::MomentumApply masked_momentum(double inv_dt, double nu_theta) {
    return [this, inv_dt, nu_theta](const Vector& x, Vector& y) {
      A_.apply(inv_dt, nu_theta, x, scratch_);
      backend_.multiply(A_.free_mask(), scratch_, y);
    };
  }

  Backend& backend_;
  FlowOps& ops_;
  const FlowProblem& problem_;
  MomentumOperator<Backend, FlowOps>& A_;
  StreamfunctionSetup setup_;
  StreamfunctionKernel kernel_;
  StreamfunctionAuxiliarySpaces auxiliary_;  // with preconditioner = "ams"
  bool jacobi_ = true;                       // preconditioner = "jacobi"
  std::unique_ptr<Solve> solve_;
  Vector rhs_, product_, masked_, scratch_, zero_cells_, pressure_weight_;
};

}  // namespace ss
