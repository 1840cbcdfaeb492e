#pragma once
// Upwind advection of a node temperature by the flow's face fluxes: median-dual control volumes
// (those of the heat operator, heat_operator.hpp), first-order upwind on the dual faces.
//
// Edge fluxes. A divergence-free RT0 field is constant in each tet, and the reconstruction
// u_c = (1/V_c) Σ_f s_cf U_f (x_f − x_c) (eq. 7.5) is exact for it. The median-dual face of edge
// (a, b) inside tet c has the area vector S_ab,c = V_c (∇λ_b − ∇λ_a) / 4, pointing from a to b (the
// three at a sum to −V_c ∇λ_a, the identity heat_operator.hpp rests on). The volume flux from a's
// dual cell into b's,
//     F_e = Σ_{c ∋ e} u_c · S_ab,c          (e = (a, b) in Topology's orientation, a < b),
// is linear in U: F = E U with E a sparse matrix (edges × faces), applied by the sparse kernels.
//
// Upwind rate. With T taken upwind on every dual face, node i's balance V_i dT_i/dt =
// −Σ_j F_ij T_up(ij) − (its boundary faces' share) equals, for a divergence-free field (the dual cell's
// closed surface: Σ_j F_ij = −(1/3) Σ_{boundary faces f ∋ i} U_f), the difference form
//     R_i = Σ_{j ∈ N(i)} max(−F_ij, 0) (T_j − T_i)        (F_ij the flux from i into j)
// in which an outflow boundary face carries T_i out (zero gradient) and an inflow face carries its
// own node's value in, which is the inflow temperature wherever that is fixed (a fixed node's row
// is replaced by its value). Explicit Euler T_i + Δt R_i / V_i is a convex combination of T_i and
// its upwind neighbours when
//     Δt q_i / V_i <= 1,      q_i = Σ_j max(−F_ij, 0)  (the volume inflow rate of i's dual cell),
// so T stays within its initial and boundary values; max_i Δt q_i / V_i is the thermal Courant number.
//
// apply(F, T, rate, inflow) gives R and q in one pass: a gather over the node-neighbour CSR (the
// heat operator's), each entry reading its edge's F (shaders/heat_upwind_advection.glsl on the GPU;
// the CPU twin in double).
//
// Limited linear upwind (second order where T is smooth). The dual face of edge (u, d), u upwind,
// takes T_f = T_u + ½ L(a, Δ) instead of T_u: Δ = T_d − T_u, a = 2 ∇T_u · (x_d − x_u) − Δ the
// difference one edge further upwind, extrapolated by the upwind node's gradient, and L van Leer's
// limiter L(a, Δ) = (a|Δ| + |a|Δ) / (|a| + |Δ|) (0 where a and Δ differ in sign, at most 2 min(|a|, |Δ|),
// Δ itself on a linear T: the face value is then the edge midpoint's, exact). So the rate gains an
// antidiffusive flux A_e = ½ |F_e| L(a, Δ) from u to d on every edge:
//     R_i += Σ_{e: i downwind} A_e − Σ_{e: i upwind} A_e.
// The gradient is the median-dual Green–Gauss one, ∇T_i = (1/V_i) Σ_j ½ (T_j − T_i) S_ij (S_ij the
// dual face's area vector, i to j), exact for a linear T at an interior node. The inflow q stays the
// upwind one. gradient(T) is one three-output gather pass, apply_limited() the upwind pass with the
// correction (shaders/heat_node_gradient.glsl, heat_limited_advection.glsl).
#include <array>
#include <cstdint>
#include <vector>

#include "cpu/cpu_backend.hpp"
#include "kernels/gpu_backend.hpp"
#include "mesh/load_mesh.hpp"
#include "operators/sparse_kernels.hpp"
#include "operators/sparse_matrix.hpp"

namespace ss {

struct HeatAdvectionData {
  std::int32_t num_nodes = 0, num_edges = 0;
  std::vector<std::int32_t> offsets, neighbors;  // the node-neighbour CSR (Topology::node_offsets/node_neighbors)
  // Per CSR entry k of row i: +(e + 1) when edge e points from i to neighbors[k], −(e + 1) otherwise.
  std::vector<std::int32_t> entry_edges;
  SparseMatrix edge_flux;  // E: F = E U (edges × faces)
  // Limited advection: per edge its dual face's area vector Σ_c S_e,c (low node to high), per node
  // 1/V_i and the position.
  std::array<std::vector<double>, 3> dual_area, position;
  std::vector<double> inverse_volume;
};

// In double from the mesh's topology and geometry.
HeatAdvectionData build_heat_advection(const LoadedMesh& mesh);

// The rate R and inflow q of the formulas above in double (the CPU twin's body; tests and
// diagnostics on the host).
void upwind_advection(const HeatAdvectionData& data, const std::vector<double>& edge_flux,
                      const std::vector<double>& temperature, std::vector<double>& rate, std::vector<double>& inflow);
// ∇T per node (its three components) and the limited rate with the upwind inflow, in double.
void node_gradient(const HeatAdvectionData& data, const std::vector<double>& temperature, std::vector<double>& gx,
                   std::vector<double>& gy, std::vector<double>& gz);
void limited_advection(const HeatAdvectionData& data, const std::vector<double>& edge_flux,
                       const std::vector<double>& temperature, const std::vector<double>& gx,
                       const std::vector<double>& gy, const std::vector<double>& gz, std::vector<double>& rate,
                       std::vector<double>& inflow);

class GpuHeatAdvection {
public:
  using Vector = GpuBackend::Vector;
  GpuHeatAdvection(GpuBackend& gpu, const HeatAdvectionData& data);
  // F = E U (one value per edge).
  void edge_fluxes(const Vector& face_flux, Vector& edge_flux);
  // rate = R, inflow = q (one per node; both different from the inputs).
  void apply(const Vector& edge_flux, const Vector& temperature, Vector& rate, Vector& inflow);
  // (gx, gy, gz) = ∇T; rate = the limited R, inflow = q.
  void gradient(const Vector& temperature, Vector& gx, Vector& gy, Vector& gz);
  void apply_limited(const Vector& edge_flux, const Vector& temperature, const Vector& gx, const Vector& gy,
                     const Vector& gz, Vector& rate, Vector& inflow);

private:
  void check_sizes(const Vector& edge_flux, const Vector& temperature, const Vector& rate, const Vector& inflow) const;
  GpuBackend& gpu_;
  std::int32_t num_nodes_ = 0, num_edges_ = 0;
  IndexField offsets_, neighbors_, entry_edges_;
  GpuSparseMatrix matrix_;  // E
  Field area_x_, area_y_, area_z_, inverse_volume_, x_, y_, z_;
};

class CpuHeatAdvection {
public:
  using Vector = CpuBackend::Vector;
  CpuHeatAdvection(CpuBackend& cpu, const HeatAdvectionData& data);
  void edge_fluxes(const Vector& face_flux, Vector& edge_flux);
  void apply(const Vector& edge_flux, const Vector& temperature, Vector& rate, Vector& inflow);
  void gradient(const Vector& temperature, Vector& gx, Vector& gy, Vector& gz);
  void apply_limited(const Vector& edge_flux, const Vector& temperature, const Vector& gx, const Vector& gy,
                     const Vector& gz, Vector& rate, Vector& inflow);

private:
  HeatAdvectionData data_;
  CpuSparseMatrix matrix_;  // E
};

template <class Backend> struct HeatAdvectionOn;
template <> struct HeatAdvectionOn<GpuBackend> { using type = GpuHeatAdvection; };
template <> struct HeatAdvectionOn<CpuBackend> { using type = CpuHeatAdvection; };

}  // namespace ss
