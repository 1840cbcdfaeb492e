#pragma once
// The auxiliary-space (Hiptmair–Xu) preconditioner for an SPD edge system whose near-kernel is the
// discrete gradients, A = Cᵀ diag(w) C + G diag(W) Gᵀ: a curl–curl operator with a small gauge on
// the gradients (Hiptmair & Xu 2007; hypre's AMS, MFEM's HypreAMS). Jacobi alone needs iterations
// growing like 1/h on it: A's smooth error lives in the gradients (C G = 0) and in the smooth
// vector fields, which local edge updates cannot reach. Node-space corrections reach both, each
// inverse one multigrid V-cycle (multigrid.hpp, algebraic, on the matrices of auxiliary_space_setup.hpp):
//   N r = G L⁻¹ W⁻¹ L⁻¹ Gᵀ r             the gradients: (Gᵀ A G)⁻¹ = (L W L)⁻¹, L = Gᵀ G
//       + σ Π A_Π⁻¹ Πᵀ r                  the vector P1 fields: Π = [Π_x Π_y Π_z],
//                                         A_Π = blockdiag(Π_dᵀ A Π_d), one V-cycle for all three
// between two edge smoothing steps (S = D_l1⁻¹, the l1-Jacobi smoother: D_l1 = Σ_j |a_ij|):
//   z = S r,  z += N (r − A z),  z += S (r − A z).
// Its error propagation (I − S A)(I − N A)(I − S A) is A-symmetric and, with ||I − S A||_A < 1 (l1
// scaling guarantees it) and N SPD (a V-cycle is), the preconditioner is SPD: CG stays valid. The
// caller's A need not be the one CG solves: a sparse approximation of it serves (the
// streamfunction's viscous term enters by its diagonal, exact_fractional_step.hpp). σ lets a
// caller whose w changed by a common factor since A_Π was set up keep it (A_Π scales with w:
// σ = the old factor over the new). The caller's S, W and A are read at every application, so they
// may change in place.
// Over MPI ranks (Backend: a rank's local backend; A, S and r over the ranks) every rank holds the
// node spaces of the whole mesh (distributed/whole_node_spaces.hpp): G and Π have a rank's owned
// edges' rows, with the whole spaces' columns, so Gᵀ r and Πᵀ r (and the weights W, each node's from
// its owner) are each rank's share of the whole vectors; `sum` adds the shares over the ranks, every
// rank runs the same V-cycles on the sums, and G, Π give its owned edges the serial correction N r.
// The preconditioner is the serial one; `complete` brings the ghost edges' entries of N r from their
// owners.
#include <algorithm>
#include <array>
#include <functional>
#include <initializer_list>
#include <memory>
#include <vector>

#include "multigrid/auxiliary_space_setup.hpp"
#include "multigrid/multigrid.hpp"

namespace ss {

template <class Backend>
class AuxiliarySpacePreconditioner {
public:
  using Vector = typename Backend::Vector;
  using Sparse = typename MultigridTypes<Backend>::Sparse;
  using EdgeApply = std::function<void(const Vector&, Vector&)>;
  using EdgeComplete = std::function<void(Vector&)>;
  using RankSum = std::function<void(std::initializer_list<Vector*>)>;

  // `m` from auxiliary_space_setup.hpp; `edge_system` y = A x; `edge_smoother` S (0 on fixed
  // edges) and `node_weight` W (on all nodes) are the caller's and must outlive this object.
  AuxiliarySpacePreconditioner(Backend& backend, const AuxiliarySpaceMatrices& m, EdgeApply edge_system,
                               const Vector& edge_smoother, const Vector& node_weight,
                               EdgeComplete complete = nullptr, RankSum sum = nullptr,
                               const MultigridOptions& options = node_space_options())
      : backend_(backend), edge_system_(std::move(edge_system)), complete_(std::move(complete)), sum_(std::move(sum)),
        edge_smoother_(edge_smoother), node_weight_(node_weight) {
    gradient_ = std::make_unique<Sparse>(backend, m.gradient);
    divergence_ = std::make_unique<Sparse>(backend, transpose(m.gradient));
    gradient_nodes_ = std::make_unique<Sparse>(backend, m.gradient_nodes);
    laplacian_ = std::make_unique<Multigrid<Backend>>(backend, m.laplacian, m.laplacian_singular,
                                                      typename Multigrid<Backend>::LevelApply{}, options);
    interpolation_ = std::make_unique<Sparse>(backend, m.interpolation);
    restriction_ = std::make_unique<Sparse>(backend, transpose(m.interpolation));
    vector_space_ = std::make_unique<Multigrid<Backend>>(backend, m.vector_space, false,
                                                         typename Multigrid<Backend>::LevelApply{}, options);
    vector_n1_ = backend.make_vector(m.interpolation.cols), vector_n2_ = backend.make_vector(m.interpolation.cols);
    const std::int64_t ng = m.gradient.cols, ne = m.gradient.rows;
    n1_ = backend.make_vector(ng), n2_ = backend.make_vector(ng), weight_ = backend.make_vector(ng);
    e1_ = backend.make_vector(ne), e2_ = backend.make_vector(ne);
  }

  // The node multigrids' settings: a small coarsest level, solved by its dense inverse on the
  // backend (a direct solve on the host would read back at each of the three V-cycles of an
  // application), and a strength threshold below the default's: L's couplings are all −1 against
  // a diagonal of ~14, under 0.08 √(a_ii a_jj), so at the default nothing aggregates (cavity, 5,209
  // nodes: coarsened to 4,222 with 131 nonzeros a row, 10× the time of a step at 0.02, which
  // coarsens to 309).
  static MultigridOptions node_space_options() {
    MultigridOptions o = with_dense_coarsest({});
    o.strength_threshold = 0.02;
    return o;
  }

  void set_vector_scale(double sigma) { vector_scale_ = sigma; }

  // The vector space as a family A_Π(ρ) = A_Π(0) + ρ A_1, A_Π(0) the matrix it was set up for
  // (vector_space_matrix: A_Π is linear in the weights): A_1's Galerkin products over its levels
  // are made here, once, for recombine_vector_space.
  bool has_vector_space_parts() const { return !vector_parts_.empty(); }
  void set_vector_space_second_part(SparseMatrix a1) {
    SS_REQUIRE(!has_vector_space_parts(), "auxiliary space: the vector space's second part is set once");
    vector_parts_ = galerkin_parts(vector_space_->setup(), std::move(a1));
  }
  // The vector space's multigrid for A_Π(ρ): its levels recombined, its transfers (the aggregation
  // of the first set-up) kept. The gradient space does not depend on ρ (W is read at each application).
  void recombine_vector_space(double rho) {
    SS_REQUIRE(has_vector_space_parts(), "auxiliary space: recombined before its vector space's second part was set");
    vector_space_->recombine(vector_parts_, rho);
  }

  // z = B r.
  void operator()(const Vector& r, Vector& z) {
    backend_.multiply(edge_smoother_, r, z);
    residual(r, z);
    add_node_corrections(e2_, z);
    residual(r, z);
    backend_.multiply(edge_smoother_, e2_, e1_);
    backend_.axpy(1.0, e1_, z, z);
  }

private:
  // e2 = r − A z
  void residual(const Vector& r, const Vector& z) {
    edge_system_(z, e1_);
    backend_.axpy(-1.0, e1_, r, e2_);
  }

  // z += G L⁻¹ W⁻¹ L⁻¹ Gᵀ r + σ Π A_Π⁻¹ Πᵀ r
  void add_node_corrections(const Vector& r, Vector& z) {
    gradient_nodes_->apply(node_weight_, weight_);
    divergence_->apply(r, n1_);
    restriction_->apply(r, vector_n1_);
    if (sum_) sum_({&weight_, &n1_, &vector_n1_});
    (*laplacian_)(n1_, n2_);
    backend_.divide(n2_, weight_, n1_);
    (*laplacian_)(n1_, n2_);
    gradient_->apply(n2_, e1_);
    backend_.axpy(1.0, e1_, z, z);
    (*vector_space_)(vector_n1_, vector_n2_);
    interpolation_->apply(vector_n2_, e1_);
    backend_.axpy(vector_scale_, e1_, z, z);
    if (complete_) complete_(z);
  }

  Backend& backend_;
  EdgeApply edge_system_;
  EdgeComplete complete_;  // null on one process
  RankSum sum_;            // null on one process
  const Vector& edge_smoother_;
  const Vector& node_weight_;
  std::unique_ptr<Sparse> gradient_, divergence_, gradient_nodes_;
  std::unique_ptr<Sparse> interpolation_, restriction_;
  std::unique_ptr<Multigrid<Backend>> laplacian_;
  std::unique_ptr<Multigrid<Backend>> vector_space_;
  std::vector<std::array<SparseMatrix, 2>> vector_parts_;  // per level of vector_space_ (galerkin_parts)
  Vector n1_, n2_, weight_, e1_, e2_;
  Vector vector_n1_, vector_n2_;
  double vector_scale_ = 1.0;
};

}  // namespace ss
