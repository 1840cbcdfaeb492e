#pragma once
// The implicit momentum operator of the face fluxes (flow_operators.hpp) assembled as a sparse matrix,
// the matrix the implicit systems' preconditioners are built from:
//   Â = m H/Δt + (1 − m) − m T F(Uⁿ) I m
// with F the linear part of the cell terms per velocity component,
//   (F u)_c = (1/V_c) Σ_f [νθ (A_f/L_f)(u_nb − u_c) − F_cf u_f],   F_cf = ±Uⁿ_f outward,
// u_f = ½(u_c + u_nb) (central) or the upwind cell, boundary velocities 0, zero-gradient faces u_c.
// With the two-point viscous scheme Â is the matrix-free operator (H/Δt + C − νθ K) exactly; with
// curl–curl the two-point K stands in for the curl–curl one (a preconditioner only needs it close).
//
// Â_fg = Σ_{cells c ∋ f} Σ_{c' ∈ {c, neighbours of c}} F_cc' Σ_d T_d[f, c] I_d[c', g]: the sparsity
// pattern (the faces of c against the faces of c and of its neighbours) and each contribution's place
// in it are found once; assemble() then only recomputes F and sums.
#include <array>
#include <cstdint>
#include <vector>

#include "operators/flow_operators.hpp"
#include "operators/mesh_operator_tables.hpp"
#include "operators/sparse_matrix.hpp"

namespace ss {

class ImplicitMomentumMatrix {
public:
  ImplicitMomentumMatrix(MeshOperatorTables tables, const FlowOperatorData& data);

  // Â for the convecting fluxes U (one per face), 1/Δt, νθ and the convection scheme.
  const SparseMatrix& assemble(Convection convection, const std::vector<double>& U, double inv_dt, double nu_theta);
  // Adds steady mode's grad–div term (physics/grad_div_term.hpp) to the last assembly:
  //   Â_fg += scale · Σ_{c ∋ f, g} s_cf w_c s_cg   on free rows and columns
  // (γ m Dᵀ w D m, D_cf = s_cf = ±1 the outward sign), w_c = Γ_c / V_c one per cell.
  const SparseMatrix& add_grad_div(double scale, const std::vector<double>& cell_weight);
  const SparseMatrix& matrix() const { return matrix_; }

private:
  // The cell pair (c, c'): c' = c (slot 0) or the neighbour across local face k (slot k + 1).
  static constexpr int kSlots = 5;
  double coupling(std::int32_t c, int slot, int k, int l) const;  // Σ_d T_d[f_k(c), c] I_d[c', g_l(c')]
  std::int32_t neighbour(std::int32_t c, int k) const;            // across local face k; < 0: boundary
  // visit(contribution index, f, g) for each slot and (k, l) of cell c whose faces are both free.
  template <class Visit>
  void for_each_free_pair(std::int32_t c, Visit&& visit) const;

  MeshOperatorTables tables_;
  const FlowOperatorData& data_;
  SparseMatrix matrix_;
  // Per value of matrix_ (CSR over the values): its contributions, each (c · kSlots + slot) · 16 + k · 4 + l.
  std::vector<std::int32_t> contribution_first_, contributions_;
  std::vector<double> flux_coefficients_;  // F_cc' · V_c per cell and slot, of the last assembly
  std::vector<std::int32_t> diagonal_;   // per face: its diagonal's value index
};

}  // namespace ss
