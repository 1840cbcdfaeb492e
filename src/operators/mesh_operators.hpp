#pragma once
// Discrete operators of the staggered tetrahedral mesh (thesis ch. 5, §7.2–7.4): pressure-like
// scalars on cells, fluxes U_f = ∫ u·n dA on faces (normal from face_cells[f][0] to [1]), stream
// function values s_e = ∫ ψ·dl on edges (low node -> high node).
//
//   gradient     G  cell -> face   (Gφ)_f = φ[c1] − φ[c0]; on a boundary face φ[c1] is the face's
//                                   entry of a boundary vector (num_boundary_faces values, in
//                                   boundary_faces() order), or 0 without one. Unscaled (an
//                                   incidence matrix), so D = −Gᵀ holds exactly; multiply by
//                                   face_area_over_distance() for the thesis' Ã⁻¹G (eq. 7.12).
//   divergence   D  face -> cell   (DU)_c = Σ_{4 faces} ±U_f, + where the normal points out of c.
//                                   ⟨Gx, y⟩ = −⟨x, Dy⟩ for G with zero boundary values.
//   curl         C  edge -> face   (Cs)_f = Σ_{3 edges} ±s_e, + where the edge runs along the
//                                   face's cycle (right-hand rule with the face normal). DC = 0.
//   rotation     R  face -> edge   R = Cᵀ: (RU)_e = Σ_{faces around e} ±U_f (variable count, CSR).
//   interpolate     face -> cell   eq. 5.1 / 7.5 with U_f = u_f A_f: v_c = (1/V_c) Σ ±U_f (x_f − x_c),
//                                   three outputs (x, y, z). Exact for constant u.
//   integrate       cell -> face   eq. 5.2: u_f = v_c0·(x_f − x_c0) + v_c1·(x_c1 − x_f), the
//                                   integral of v along the dual edge c0 -> f -> c1 (boundary: the
//                                   c0 half only). Integration is the volume-weighted adjoint of
//                                   interpolation: Σ_c V_c v_c·(I U)_c = Σ_f U_f (T v)_f.
//
// CpuMeshOperators (double, OpenMP; the reference) and GpuMeshOperators (fragment kernels, one
// output element per fragment) have the same methods on their backend's Vector type, so solvers
// are templates over (Backend, Operators). Both are built from one MeshOperatorTables.
#include "operators/cpu_mesh_operators.hpp"
#include "operators/gpu_mesh_operators.hpp"
