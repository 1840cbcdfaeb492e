#pragma once
// Operators of the classical fractional-step Navier–Stokes scheme on the staggered tet mesh (thesis
// §7.2–7.3; unknowns: face fluxes U_f = ∫ u·n dA and cell pressures p_c, see mesh_operators.hpp).
//
// The momentum equation of face f is the Navier–Stokes equation integrated along the face's dual
// edge (c0 → f → c1), the form in which the integration operator T (eq. 5.2) carries a cell
// vector to a face and the pressure gradient is exact: ∫ ∇p·dl = p_c1 − p_c0 = (Gp)_f. With
//   u_c   = (I U)_c                                  cell velocity (eq. 7.5, interpolation)
//   N_c   = (1/V_c) Σ_f F_cf u_f                     convection (eq. 7.6), F_cf = ±U_f outward,
//                                                    u_f = ½(u_c + u_nb) (central) or the upwind cell
//   Λ_c(u)= (1/V_c) Σ_f (A_f/L_f)(u_nb − u_c)        viscous term (eq. 7.7, its two-point part), u_nb
//                                                    the neighbour's velocity, the wall velocity on
//                                                    velocity-prescribing boundary faces, u_c on
//                                                    zero-gradient faces (pressure outlets, slip)
//   H_f   = L_f / A_f                                the lumped face mass (thesis eq. 7.12: Ã = H)
// one θ-step of the momentum predictor is
//   H (U* − Uⁿ)/Δt = T(−N(uⁿ) + ν(1−θ) Λ(uⁿ)) + νθ T Λ(I U*) − G pⁿ,
// solved by CG as the SPD system (H/Δt − νθ K) U* = rhs on the free faces, K = T Λ₀ I = Iᵀ V Λ₀ I
// (Λ₀: boundary velocities 0; T = Iᵀ V is the adjoint identity of mesh_operators.hpp), symmetric
// negative semi-definite. Faces whose flux is prescribed (walls, velocity inlets, slip) are fixed
// rows eliminated symmetrically: identity rows, fixed columns moved to the right-hand side.
// The incremental projection then solves
//   P φ = −(D U*)/Δt,  P = Gᵀ W G = −D W G,  W = diag(m_f A_f/L_f)   (m_f = 1 on free faces)
// and sets U = U* − Δt W G φ, p ← p + φ, so D U = 0 up to the CG tolerance. P is SPD when some
// boundary has a fixed pressure (φ = 0 there), else singular with the constants as null space.
//
// CpuFlowOperators (double, OpenMP; the reference) and GpuFlowOperators (fragment/compute kernels
// shaders/flow_*.glsl) have the same methods on their backend's Vector. They use the mesh
// operators (interpolate, integrate, gradient, divergence) of the same backend.
#include <cstdint>
#include <memory>
#include <vector>

#include "operators/eigen_estimate.hpp"
#include "operators/mesh_operators.hpp"

namespace ss {

// How a boundary face's momentum is prescribed.
enum class FlowBoundaryKind : std::int8_t {
  velocity,  // wall or inlet: u = u_b (U_f fixed; viscous flux to u_b)
  pressure,  // outlet: U_f free, p = p_b, zero normal velocity gradient
  slip,      // symmetry: U_f = 0, zero shear
};

enum class Convection { none, central, upwind };

// The viscous term: `curl_curl` (curl_curl_viscous.hpp, the default: consistent on tetrahedra) or
// `two_point` (Λ below, eq. 7.7's two-point part: cheaper, but does not converge with refinement
// on meshes whose dual edges are not face normals; kept for comparison).
enum class ViscousScheme { curl_curl, two_point };

// Host-side coefficients (double) for one mesh and one assignment of boundary kinds.
struct FlowOperatorData {
  std::int32_t num_cells = 0, num_faces = 0, num_boundary_faces = 0;
  std::int64_t global_cells = 0;           // cells of the whole mesh (num_cells; over MPI ranks all ranks')
  std::vector<double> free_mask;           // per face: 1 free (interior, outlet), 0 prescribed
  std::vector<double> face_mass;           // H_f = L_f / A_f
  std::vector<double> area_over_distance;  // A_f / L_f
  std::vector<double> pressure_weight;     // W_f = m_f A_f / L_f
  std::vector<double> dirichlet_velocity;  // per boundary face: 1 velocity prescribed, 0 zero gradient
  std::vector<double> inverse_volume;      // per cell: 1 / V_c
  std::vector<double> laplacian_diagonal;  // per face: K_ff (≤ 0)
  std::vector<double> pressure_diagonal;   // per cell: P_cc = Σ_f W_f
  std::vector<double> inverse_volume_sum;  // per face: Σ_{c ∋ f} 1/V_c, the diagonal of Dᵀ V⁻¹ D
  bool pressure_fixed = false;             // some boundary face is an outlet: P is SPD
  // Local pseudo-time steps (steady mode, use_local_pseudo_time_steps): Δt_f = s_f Δt per face and
  // s_c per cell; empty: one Δt everywhere. face_mass and pressure_weight then hold H/s and W s.
  std::vector<double> face_step_scale, cell_step_scale;
  // Over MPI ranks: the edges of the whole mesh as a Lanczos space (eigen_estimate.hpp), so the
  // curl–curl viscous term's Chebyshev interval is the whole mesh's and every rank runs the serial
  // run's polynomial; none: estimated on this mesh.
  std::shared_ptr<const LanczosSpace> edge_space;
};

// `kinds` has one entry per boundary face (MeshOperatorTables::boundary_faces order).
FlowOperatorData build_flow_operator_data(const MeshOperatorTables& tables, const std::vector<FlowBoundaryKind>& kinds);

// Local pseudo-time steps for steady mode on graded meshes: each cell marches with
//   Δt_c = s_c Δt,  s_c = min(h_c / h_min, kMaxLocalStepRatio),  h_c = V_c^(1/3),
// and each face with s_f = the smaller of its cells'. The momentum system's H/Δt becomes H/(s Δt)
// and the projection U = U* − Δt s W G φ (P = Gᵀ s W G), so the step stays a projection and its
// steady state (Uⁿ⁺¹ = Uⁿ, φ = 0) is the one-Δt march's. `min_length` is h_min over the whole mesh
// (over MPI ranks all ranks'). The scales depend on the mesh only: P and its multigrid are built once.
constexpr double kMaxLocalStepRatio = 100.0;
double smallest_cell_length(const MeshOperatorTables& tables);  // min V_c^(1/3)
void use_local_pseudo_time_steps(FlowOperatorData& data, const MeshOperatorTables& tables, double min_length);

// The interface both implementations have (Vector = the backend's Vector):
//   cell_terms(conv, a, b, U, ux, uy, uz, bx, by, bz, fx, fy, fz)
//        f = −N(u) [conv ≠ none] + a·Λ₀(u) + b·(1/V_c) Σ_{velocity faces} (A_f/L_f) u_b  per cell;
//        U the fluxes (convection only), u the cell velocity, b? the boundary velocities (one per
//        boundary face; read on velocity faces only).
//   viscous_apply(x, y)                     y = K x = T Λ₀ I x
//   momentum_apply(inv_dt, s, x, y)         y = m(H/Δt − s K)(m x) + (1 − m) x
//   momentum_combine(inv_dt, s, x, lap, y)  y = m(H/Δt x − s lap) + (1 − m) x   (lap = K' (m x) of any K')
//   momentum_diagonal(inv_dt, s)            diag of that operator (Jacobi)
//   momentum_rhs(inv_dt, s, U, TF, Gp, Y, Ub, out)
//        out = m (H/Δt U + TF − Gp + s Y) + (1 − m) Ub   (Y = K Ub: fixed columns moved right)
//   pressure_apply(x, y)                    y = P x
//   pressure_rows(rows, x, y)               y_k = (P x)_{rows[k]}: the same values at listed cells
//   pressure_diagonal()                     diag P
//   project(Ustar, phi, dt, U)              U = U* − Δt W G φ (φ = 0 beyond the boundary)
//   courant(U, out)                         (1/2V_c) Σ_f |U_f| per cell (CFL = Δt · max)
// Outputs must not alias inputs unless stated.

class CpuFlowOperators {
public:
  using Backend = CpuBackend;
  using Vector = CpuBackend::Vector;

  CpuFlowOperators(CpuMeshOperators& mesh_ops, FlowOperatorData data);
  const FlowOperatorData& data() const { return data_; }
  CpuMeshOperators& mesh() { return mesh_; }

  void cell_terms(Convection conv, double a, double b, const Vector& U, const Vector& ux, const Vector& uy,
                  const Vector& uz, const Vector& bx, const Vector& by, const Vector& bz, Vector& fx, Vector& fy,
                  Vector& fz);
  void viscous_apply(const Vector& x, Vector& y);
  void momentum_apply(double inv_dt, double s, const Vector& x, Vector& y);
  void momentum_combine(double inv_dt, double s, const Vector& x, const Vector& lap, Vector& y);
  Vector momentum_diagonal(double inv_dt, double s);
  void momentum_rhs(double inv_dt, double s, const Vector& U, const Vector& TF, const Vector& Gp, const Vector& Y,
                    const Vector& Ub, Vector& out);
  void pressure_apply(const Vector& x, Vector& y);
  void pressure_rows(const std::vector<std::int32_t>& rows, const Vector& x, Vector& y);
  const Vector& pressure_diagonal() const { return data_.pressure_diagonal; }
  void project(const Vector& Ustar, const Vector& phi, double dt, Vector& U);
  void courant(const Vector& U, Vector& out);
  // The same, for reductions over the owned cells (over MPI ranks the ghost cells are left stale).
  void courant_owned(const Vector& U, Vector& out) { courant(U, out); }

private:
  double pressure_at(std::int64_t c, const Vector& x) const;  // (P x)_c
  CpuMeshOperators& mesh_;
  FlowOperatorData data_;
  Vector masked_, ux_, uy_, uz_, lx_, ly_, lz_, lap_;  // momentum_apply scratch
  Vector boundary_zero_;                              // one 0 per boundary face
};

class GpuFlowOperators {
public:
  using Backend = GpuBackend;
  using Vector = GpuBackend::Vector;

  GpuFlowOperators(GpuBackend& backend, GpuMeshOperators& mesh_ops, const FlowOperatorData& data);
  GpuMeshOperators& mesh() { return mesh_; }

  void cell_terms(Convection conv, double a, double b, const Vector& U, const Vector& ux, const Vector& uy,
                  const Vector& uz, const Vector& bx, const Vector& by, const Vector& bz, Vector& fx, Vector& fy,
                  Vector& fz);
  void viscous_apply(const Vector& x, Vector& y);
  void momentum_apply(double inv_dt, double s, const Vector& x, Vector& y);
  void momentum_combine(double inv_dt, double s, const Vector& x, const Vector& lap, Vector& y);
  Vector momentum_diagonal(double inv_dt, double s);
  void momentum_rhs(double inv_dt, double s, const Vector& U, const Vector& TF, const Vector& Gp, const Vector& Y,
                    const Vector& Ub, Vector& out);
  void pressure_apply(const Vector& x, Vector& y);
  void pressure_rows(const GpuBackend::IndexVector& rows, const Vector& x, Vector& y);
  const Vector& pressure_diagonal() const { return pressure_diagonal_; }
  void project(const Vector& Ustar, const Vector& phi, double dt, Vector& U);
  void courant(const Vector& U, Vector& out);
  // The same, for reductions over the owned cells (over MPI ranks the ghost cells are left stale).
  void courant_owned(const Vector& U, Vector& out) { courant(U, out); }

private:
  void prepare(Vector& out, std::int64_t n);

  GpuBackend& backend_;
  GpuMeshOperators& mesh_;
  std::int32_t num_cells_ = 0, num_faces_ = 0;
  Field free_mask_, face_mass_, area_over_distance_, pressure_weight_, dirichlet_velocity_, inverse_volume_,
      laplacian_diagonal_, pressure_diagonal_;
  Vector masked_, ux_, uy_, uz_, lx_, ly_, lz_, lap_;  // momentum_apply scratch
  Vector boundary_zero_;                              // one 0 per boundary face
};

}  // namespace ss
