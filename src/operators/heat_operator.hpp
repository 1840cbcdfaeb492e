#pragma once
// Node-based heat conduction operators (thesis §6.1): temperatures at nodes, each node's control
// volume its median-dual cell, per-cell conductivity k_c.
//
// Discretization. T is linear in each tet, so ∇T_c = Σ_m T_m ∇λ_m (eq. 6.2 with face values: the
// Gauss form ∇λ_m = -S_m / (3 V_c), S_m the outward area vector of the face opposite node m). The
// heat leaving node i's dual cell through its dual faces inside cell c is -k_c ∇T_c · S_out
// (eq. 6.3, S_out = the median-dual face area vectors of the cell's three edges at i, pointing away
// from i). Summing over the cells around i gives
//
//   (K·T)_i = Σ_c Σ_{edges e ∋ i in c} -k_c ∇T_c · S_out(c, e)  =  Σ_j K_ij T_j,
//   K_ij    = Σ_{c ∋ i,j} k_c V_c ∇λ_i · ∇λ_j                      (i ≠ j),   K_ii = -Σ_{j≠i} K_ij,
//
// exactly the P1 finite-element stiffness matrix (the inner dual faces of node i in c sum to
// -V_c ∇λ_i). K is symmetric positive semi-definite with K·1 = 0; boundary dual faces carry no
// flux (insulated) — Neumann fluxes and sources go into the right-hand side.
//
// Storage: K as a gather over node neighbours (chosen over node→cells: ~14 neighbours × 3 fetches
// per node against ~22 cells × 7-13 fetches; measured 3-6× faster on llvmpipe, see
// `streamsolve bench operators` rows diffusion / diffusion_node_cells), CSR rows = Topology::node_offsets/node_neighbors
// (off-diagonal entries only, one coefficient per (node, neighbour) pair, taken from one value per
// edge so K is exactly symmetric), the diagonal separately. apply evaluates
//     (K·T)_i = Σ_{j ∈ N(i)} K_ij (T_j - T_i)
// (row sums are zero), which reads the same data as K_ii T_i + Σ K_ij T_j but gives K·1 = 0 exactly
// and loses less to float cancellation on smooth fields.
//
// Dirichlet nodes (symmetric elimination). With a set D of fixed nodes and F the free ones, CG
// solves the full-length SPD system
//
//     K̃ x = b̃,   K̃ = [ a·M_FF + s·K_FF   0 ]      b̃_F = b_F - s·K_FD T_D
//                      [ 0                 I ]      b̃_D = T_D
//
// (a·M + s·K the system matrix: a = 0, s = 1 for steady conduction; a = ρc/Δt, s = θ for the
// θ-scheme; M the lumped mass). Its solution has x_D = T_D and (a M_FF + s K_FF) x_F = b̃_F. K̃ is
// the rows and columns of fixed nodes removed and an identity put in their place, so it stays
// symmetric positive definite (as long as D is not empty or a > 0). In the neighbour form:
//     (K̃·T)_i = T_i                                                     i ∈ D
//     (K̃·T)_i = (a m_i + s d_i) T_i + s Σ_{j ∈ N(i) ∩ F} K_ij (T_j - T_i)   i ∈ F,  d_i = -Σ_{j ∈ N(i) ∩ D} K_ij
// i.e. a second CSR without fixed columns (fixed rows empty) plus one value per node.
// With x₀_D = T_D (write_dirichlet_values) the CG residual and directions stay zero on D.
//
// Two backends with the same methods on their own Vector: GpuHeatOperator (float textures,
// fragment-shader gathers, src/operators/gpu_heat_operator.cpp) and CpuHeatOperator (double,
// OpenMP, the reference). The double-precision assembly both upload is assemble_heat_operator().
#include <cstdint>
#include <memory>
#include <vector>

#include <glm/geometric.hpp>
#include <glm/vec3.hpp>

#include "cpu/cpu_backend.hpp"
#include "kernels/gpu_backend.hpp"
#include "mesh/load_mesh.hpp"

namespace ss {

// The assembled operator in double precision (host side).
struct HeatOperatorData {
  std::int32_t num_nodes = 0;
  std::int32_t num_cells = 0;
  // Off-diagonal K_ij over node neighbours: row i is entries [offsets[i], offsets[i+1]),
  // neighbours ascending (the same CSR as Topology::node_offsets / node_neighbors).
  std::vector<std::int32_t> offsets;
  std::vector<std::int32_t> neighbors;
  std::vector<double> coefficients;
  std::vector<double> edge_coefficients;  // K_ab per edge (Topology::edge_nodes order)
  std::vector<double> diagonal;           // K_ii = -Σ_j K_ij
  std::vector<double> mass;               // lumped mass: median-dual volumes
  // Cell gradient of a P1 field: ∇T_c = Σ_m (T_{n_m} - T_{n_0}) ∇λ_m, n_m = cell_nodes[4c + m];
  // grad_lambda[d][4c + m] = component d of ∇λ_m in cell c.
  std::vector<std::int32_t> cell_nodes;
  std::vector<double> grad_lambda[3];
  // Node -> cell incidence (for the node→cells form of apply, kept for measurement; assembled only
  // on request): row i lists the cells around node i; entry k holds the cell and the four values
  // k_c V_c ∇λ_i·∇λ_m.
  std::vector<std::int32_t> node_cell_offsets;
  std::vector<std::int32_t> node_cells;
  std::vector<double> node_cell_coefficients;  // 4 per entry
};

// Which tables assemble_heat_operator() builds beside the operator (CSR, edge coefficients,
// diagonal, mass). The cell tables (cell_nodes, grad_lambda: 112 bytes per tet) serve
// cell_gradient; the node→cells tables (measurement only, ~150 bytes per tet) apply_node_cells.
enum class HeatTables { operator_only, cell_gradient, all };

// Median-dual assembly (thesis §6.1) in double, in parallel with the same result for any number of
// threads. `conductivity` has one value > 0 per cell. Needs cell_edges and the node CSR of the
// topology (any TopologyTables).
HeatOperatorData assemble_heat_operator(const LoadedMesh& mesh, const std::vector<double>& conductivity,
                                        HeatTables tables = HeatTables::cell_gradient);

// ∇λ_m of the four barycentric coordinates of a tet with corners p and volume V > 0:
// ∇λ_m = -S_m / (3V), S_m the outward area vector of the face opposite corner m (eq. 6.2 with the
// face value of λ_m: 1/3 on the three faces holding m, 0 on the opposite one, and Σ S = 0).
inline void tet_lambda_gradients(const glm::dvec3 p[4], double volume, glm::dvec3 grad[4]) {
  for (int m = 0; m < 4; ++m) {
    const glm::dvec3& q0 = p[kTetFaceNodes[m][0]];
    const glm::dvec3 area = 0.5 * glm::cross(p[kTetFaceNodes[m][1]] - q0, p[kTetFaceNodes[m][2]] - q0);
    grad[m] = -area / (3.0 * volume);
  }
}

// The heat flux q_c = -k_c ∇T_c of a P1 temperature in every cell, in double from the mesh (no
// tables; the same values as -k · cell_gradient of either backend's operator). In parallel.
std::vector<glm::dvec3> cell_heat_flux(const LoadedMesh& mesh, const std::vector<double>& temperature,
                                       const std::vector<double>& conductivity);

// The Dirichlet elimination of one set of fixed nodes (host side, double).
struct HeatDirichletData {
  std::vector<std::int32_t> nodes;   // fixed nodes, ascending, unique
  std::vector<double> fixed;         // per node: 1 fixed, 0 free
  std::vector<std::int32_t> offsets; // K_FF over neighbours: fixed rows empty, fixed columns dropped
  std::vector<std::int32_t> neighbors;
  std::vector<double> coefficients;
  std::vector<double> shift;         // d_i = -Σ_{j fixed} K_ij for free i, 0 for fixed i
};

// Throws ss::Error for a node id out of range. Repeated ids are allowed (taken once).
HeatDirichletData eliminate_dirichlet(const HeatOperatorData& data, const std::vector<std::int32_t>& fixed_nodes);
// True when `e` is the elimination of exactly this set of fixed nodes (any order, repeats allowed) for
// a mesh of `num_nodes` nodes.
bool eliminates(const HeatDirichletData& e, std::int32_t num_nodes, const std::vector<std::int32_t>& fixed_nodes);

// b − K̃·T for the system a·M + s·K with `fixed_nodes` eliminated (K̃ as above), in double over the
// full CSR, without the elimination tables: free rows b_i − a m_i T_i − s Σ_j K_ij (T_j − T_i)
// + s Σ_{j fixed} K_ij T_j, fixed rows b_i − T_i. In parallel; the true residual of a finished solve.
std::vector<double> eliminated_system_residual(const HeatOperatorData& data, const std::vector<std::int32_t>& fixed_nodes,
                                               double a, double s, const std::vector<double>& b,
                                               const std::vector<double>& T);

// Nodes of the given boundary groups (faces with face_groups in `groups`), ascending and unique.
std::vector<std::int32_t> boundary_group_nodes(const LoadedMesh& mesh, const std::vector<std::int32_t>& groups);

// The interface both operators implement (Vector = their backend's Vector):
//
//   apply(T, KT)                        KT = K·T (no boundary conditions)
//   lumped_mass()                       M (dual volumes)
//   diagonal()                          K_ii (Jacobi for K)
//   cell_gradient(T, gx, gy, gz)        ∇T per cell (one MRT pass on the GPU)
//   set_dirichlet(nodes)                fix these nodes (replaces any earlier set; empty = none; the
//                                       set already in place costs nothing)
//   dirichlet_nodes()                   the fixed nodes, ascending
//   write_dirichlet_values(T, values)   T[nodes[k]] = values[k] (GPU: the point scatter, §5.3)
//   apply_system(a, s, T, out)          out = K̃·T for the system a·M + s·K with fixed nodes eliminated
//   apply_dirichlet(T, out)             apply_system(0, 1, T, out)
//   system_diagonal(a, s)               diag(K̃): a m_i + s K_ii free, 1 fixed (Jacobi for K̃)
//   dirichlet_rhs(b, T, s, out)         b̃: out_F = b_F - s·K_FD T_D, out_D = T_D (T holds T_D on D)
//   apply_node_cells(T, KT)             K·T as a gather over node→cells (measurement only)
//
// and in double precision on PreciseVector (the outer loop of mixed-precision refinement):
//   write_dirichlet_values_precise(X, values)          X[nodes[k]] = values[k], exactly
//   residual_precise(a, s, f, X, out, fixed_rows)       out = f − (a·M + s·K) X on free rows over the
//        full CSR (= b̃ − K̃ X of the eliminated system when X_D = T_D); fixed rows: X if fixed_rows,
//        else 0. With X = (T_D on fixed nodes, 0 elsewhere) and fixed_rows it is b̃ itself. GPU:
//        shaders/heat_residual_precise.glsl (fp64 on float-pair data); CPU: the same in double.
//
// Outputs may alias inputs.

class GpuHeatOperator {
public:
  using Vector = GpuBackend::Vector;
  using PreciseVector = GpuBackend::PreciseVector;

  GpuHeatOperator(GpuBackend& gpu, const LoadedMesh& mesh, const std::vector<double>& conductivity);
  GpuHeatOperator(GpuBackend& gpu, const HeatOperatorData& data);  // copies the tables
  // `fixed_nodes`: the Dirichlet set to eliminate from the start (set_dirichlet with the same set
  // later is free; the elimination and its upload are the size of K).
  GpuHeatOperator(GpuBackend& gpu, std::shared_ptr<const HeatOperatorData> data,
                  const std::vector<std::int32_t>& fixed_nodes = {});

  std::int32_t num_nodes() const { return data_->num_nodes; }
  std::int32_t num_cells() const { return data_->num_cells; }
  const HeatOperatorData& data() const { return *data_; }

  void apply(const Vector& T, Vector& KT);
  const Vector& lumped_mass() const { return mass_; }
  const Vector& diagonal() const { return diagonal_; }
  void cell_gradient(const Vector& T, Vector& gx, Vector& gy, Vector& gz);

  void set_dirichlet(const std::vector<std::int32_t>& nodes);
  const std::vector<std::int32_t>& dirichlet_nodes() const { return dirichlet_.nodes; }
  const HeatDirichletData& dirichlet() const { return dirichlet_; }
  void write_dirichlet_values(Vector& T, const std::vector<double>& values);
  void apply_system(double mass_coefficient, double stiffness_coefficient, const Vector& T, Vector& out);
  void apply_dirichlet(const Vector& T, Vector& out) { apply_system(0.0, 1.0, T, out); }
  Vector system_diagonal(double mass_coefficient, double stiffness_coefficient);
  void dirichlet_rhs(const Vector& b, const Vector& T, double stiffness_coefficient, Vector& out);

  void write_dirichlet_values_precise(PreciseVector& X, const std::vector<double>& values);
  void residual_precise(double mass_coefficient, double stiffness_coefficient, const PreciseVector& f,
                        const PreciseVector& X, PreciseVector& out, bool fixed_rows);

  void apply_node_cells(const Vector& T, Vector& KT);

  // Bytes a pass must move at least (float values and int32 indices, each table and input read
  // once, outputs written once; RGBA row padding not counted): for bandwidth figures.
  double apply_bytes() const;
  double cell_gradient_bytes() const;
  double apply_node_cells_bytes() const;
  double apply_system_bytes() const;     // the eliminated system (CG's operator)
  double residual_precise_bytes() const;

private:
  void require_nodes(const Vector& v, const char* what) const;
  void require_cells(const Vector& v, const char* what) const;

  GpuBackend& gpu_;
  std::shared_ptr<const HeatOperatorData> data_;  // shared with the caller (one copy for both backends)
  bool quad_rows_ = false;  // RGBA packing: CSR rows padded to multiples of 4 (see upload_csr)
  HeatDirichletData dirichlet_;
  IndexField offsets_, neighbors_;
  Field coefficients_, diagonal_, mass_;
  Field coefficients_lo_, mass_lo_;  // lo parts of K_ij and m_i for the fp64 residual (float pairs)
  IndexField cell_nodes_;
  Field grad_lambda_[3];
  IndexField node_cell_offsets_, node_cells_;
  Field node_cell_coefficients_;
  bool node_cells_uploaded_ = false;
  // Dirichlet tables (without fixed nodes: a copy of the plain ones, zero shift, zero mask).
  IndexField free_offsets_, free_neighbors_;
  Field free_coefficients_, shift_, fixed_;
};

class CpuHeatOperator {
public:
  using Vector = CpuBackend::Vector;
  using PreciseVector = CpuBackend::PreciseVector;

  CpuHeatOperator(const LoadedMesh& mesh, const std::vector<double>& conductivity);
  CpuHeatOperator(CpuBackend& cpu, const LoadedMesh& mesh, const std::vector<double>& conductivity);
  explicit CpuHeatOperator(const HeatOperatorData& data);  // copies the tables
  explicit CpuHeatOperator(std::shared_ptr<const HeatOperatorData> data, const std::vector<std::int32_t>& fixed_nodes = {});

  std::int32_t num_nodes() const { return data_->num_nodes; }
  std::int32_t num_cells() const { return data_->num_cells; }
  const HeatOperatorData& data() const { return *data_; }

  void apply(const Vector& T, Vector& KT);
  const Vector& lumped_mass() const { return data_->mass; }
  const Vector& diagonal() const { return data_->diagonal; }
  void cell_gradient(const Vector& T, Vector& gx, Vector& gy, Vector& gz);

  void set_dirichlet(const std::vector<std::int32_t>& nodes);
  const std::vector<std::int32_t>& dirichlet_nodes() const { return dirichlet_.nodes; }
  const HeatDirichletData& dirichlet() const { return dirichlet_; }
  void write_dirichlet_values(Vector& T, const std::vector<double>& values);
  void apply_system(double mass_coefficient, double stiffness_coefficient, const Vector& T, Vector& out);
  void apply_dirichlet(const Vector& T, Vector& out) { apply_system(0.0, 1.0, T, out); }
  Vector system_diagonal(double mass_coefficient, double stiffness_coefficient);
  void dirichlet_rhs(const Vector& b, const Vector& T, double stiffness_coefficient, Vector& out);

  void write_dirichlet_values_precise(PreciseVector& X, const std::vector<double>& values) {
    write_dirichlet_values(X, values);
  }
  void residual_precise(double mass_coefficient, double stiffness_coefficient, const PreciseVector& f,
                        const PreciseVector& X, PreciseVector& out, bool fixed_rows);

  void apply_node_cells(const Vector& T, Vector& KT);

private:
  std::shared_ptr<const HeatOperatorData> data_;  // shared with the caller (one copy for both backends)
  HeatDirichletData dirichlet_;
};

}  // namespace ss
