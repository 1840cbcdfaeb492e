#pragma once
// The classical method's momentum system with the curl–curl viscous term, reduced to the edge
// vorticity (a Schur complement that needs no M_e⁻¹; physics/momentum_vorticity_solve.hpp adds the
// θ-weighting and the boundary source).
//
// On the free faces (mask m) the momentum system (H/Δt − νθK) U = r, K = −Bᵀ M_e⁻¹ B
// (curl_curl_viscous.hpp), is the pair
//   (H/Δt) x + νθ m Bᵀ ω = r_f,      M_e ω = B (x + U_b)        (x = m U, U_b on prescribed faces)
// with ω the implicit vorticity. H is diagonal, so x = Δt D (r_f − νθ Bᵀ ω), D = m H⁻¹, and
//   S ω = (M_e + c B D Bᵀ) ω = B w,   c = νθΔt,   w = Δt D r_f + (1 − m) r      (edges; SPD)
//   U = w − c D Bᵀ ω
// S is as well conditioned as the edge mass M_e (c B D Bᵀ is the viscous CFL number's share), so
// Jacobi-CG on it takes a handful of products of three sparse matrices where the face form applies
// the whole Chebyshev polynomial of M_e in each of its iterations. Edges held at ω = 0 (slip faces)
// keep an identity row and no coupling.
#include <vector>

#include "operators/curl_curl_viscous.hpp"

namespace ss {

struct MomentumVorticitySystem {
  // No held edge (no slip face): M_e, B and F = −Bᵀ are the viscous operator's own, which the solve
  // then shares (edge_mass, source and scaled_transpose stay empty here: D Bᵀ x = −D (F x)).
  bool shares_factors = false;
  SparseMatrix edge_mass;        // M_e with held edges' rows and columns replaced by the identity
  SparseMatrix source;           // B with held edges' rows zeroed         (edges × faces)
  SparseMatrix scaled_transpose; // D Bᵀ, zero columns at held edges      (faces × edges)
  std::vector<double> mass_diagonal;      // diag M_e (1 on held edges)
  std::vector<double> coupling_diagonal;  // diag B D Bᵀ (0 on held edges): diag S = mass + c · coupling
  std::vector<double> inverse_face_mass;  // D = m / H per face
  std::vector<double> prescribed;         // 1 − m per face
  std::vector<double> free_edges;         // 1, 0 on held edges
};

// `face_mass` is H, `free_mask` m (FlowOperatorData); `viscous` the curl–curl term's factors.
MomentumVorticitySystem build_momentum_vorticity_system(const CurlCurlViscousData& viscous,
                                                        const std::vector<double>& face_mass,
                                                        const std::vector<double>& free_mask);

}  // namespace ss
