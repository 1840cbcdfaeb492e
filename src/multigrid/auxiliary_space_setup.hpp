#pragma once
// The node spaces of the auxiliary-space preconditioner (multigrid/auxiliary_space.hpp) for an edge
// system A = Cᵀ diag(w) C + G diag(W) Gᵀ (w per face, W per node; C, G, Π_d as in
// operators/edge_auxiliary_spaces.hpp, every row of a fixed edge empty in G and Π_d). Each space
// keeps only its active nodes (a column of G, resp. of Π_d, with entries), so its multigrid sees
// no decoupled rows:
//   the gradients:     Gᵀ A G = L W L (C G = 0), L = Gᵀ G, inverted as L⁻¹ W⁻¹ L⁻¹;
//   the vector fields: A_d = Π_dᵀ A Π_d = (C Π_d)ᵀ diag(w) (C Π_d) + (Gᵀ Π_d)ᵀ diag(W) (Gᵀ Π_d).
// (The gauge part couples nodes two edges apart; lumped onto the diagonal instead, it would keep
// A_d at one ring of neighbours but cost half as many CG iterations again: cavity, 40K cells.)
// Π c is the gradient of c · x for a constant vector c, which C does not see and the small gauge
// hardly sees: A_d is nearly singular on the constants, and exactly singular on a mesh whose
// graph Laplacian is zero on linear functions (a box of Kuhn cells). A shift of 10⁻³ of its
// diagonal keeps it definite (and its coarsest direct solve sound); the gradient space corrects
// those fields anyway.
#include <array>
#include <vector>

#include "operators/sparse_matrix.hpp"

namespace ss {

struct AuxiliarySpaceMatrices {
  SparseMatrix gradient;                      // G on the gradient space's active nodes (edges × them)
  SparseMatrix gradient_nodes;                // their selection from all nodes (W's values: them × all nodes)
  SparseMatrix laplacian;                     // L = Gᵀ G
  bool laplacian_singular = false;            // L's null space is the constants (one piece, no one-ended edge)
  SparseMatrix interpolation;  // Π = [Π_0 Π_1 Π_2], each Π_d on its active nodes (edges × all of them)
  SparseMatrix vector_space;   // A_Π = blockdiag(A_0, A_1, A_2): one multigrid, one V-cycle for all three
};

// `face_weight`: w (faces), `node_weight`: W (all nodes).
AuxiliarySpaceMatrices auxiliary_space_matrices(const SparseMatrix& curl, const SparseMatrix& gradient,
                                                const std::array<SparseMatrix, 3>& interpolation,
                                                const std::vector<double>& face_weight,
                                                const std::vector<double>& node_weight);

// auxiliary_space_matrices' A_Π alone. A_Π is linear in the weights (its shift too), so for
// w = w_0 + ρ w_1 and W = W_0 + ρ W_1 it is A_Π(w_0, W_0) + ρ A_Π(w_1, W_1) up to rounding: a
// multigrid family (multigrid_setup.hpp).
SparseMatrix vector_space_matrix(const SparseMatrix& curl, const SparseMatrix& gradient,
                                 const std::array<SparseMatrix, 3>& interpolation, const std::vector<double>& face_weight,
                                 const std::vector<double>& node_weight);

// The gradient space's G from a gauge's gradient `g` (edges × nodes): g's rows on the edges of
// `edges` (non-zero: the free ones), its columns on the nodes no other edge touches (a node on a
// fixed edge gets none). Then G φ is the whole gradient of φ extended by zero, C G = 0 holds, and
// Gᵀ A G = L W L.
SparseMatrix auxiliary_gradient(const SparseMatrix& g, const std::vector<double>& edges);

// What the node spaces are made of, w = w_mass/Δt + νθ w_viscous and W likewise (the exact method's
// streamfunction system, physics/exact_fractional_step.hpp): the curl (faces × edges), the gauge's
// gradient (edges × nodes, every edge's row), the free edges, Π (rows on the free edges) and the
// weights' parts.
struct NodeSpaceParts {
  const SparseMatrix& curl;
  const SparseMatrix& gradient;
  const std::vector<double>& free_edges;
  const std::array<SparseMatrix, 3>& interpolation;
  const std::vector<double>& face_mass;
  const std::vector<double>& face_viscous;
  const std::vector<double>& node_mass;
  const std::vector<double>& node_viscous;
};

// The node spaces for w = w_mass, W = W_mass, and A_Π's viscous part (the family of
// vector_space_matrix): what auxiliary_space_matrices and vector_space_matrix make of `parts`.
struct WholeNodeSpaces {
  AuxiliarySpaceMatrices matrices;
  SparseMatrix viscous_vector_space;
};
WholeNodeSpaces whole_node_spaces(const NodeSpaceParts& parts);

}  // namespace ss
