#pragma once
// The viscous term of the flow momentum equation in the mixed curl–curl form of the vector
// Laplacian (−Δu = curl curl u − grad div u with div u = 0): the face fluxes U are the degrees of
// freedom of lowest-order Raviart–Thomas velocity (RT0), and an auxiliary vorticity ω lives on the
// edges as lowest-order Nédélec (N0) circulations (Arnold, Falk & Gopalakrishnan 2012, the mixed
// method for the vector Laplacian; Perot's ν·C⋆R with consistent Hodge stars):
//   M_e ω = Cᵀ M_f U + g      i.e. (ω, τ) = (u, curl τ) + ∮ τ·(n × u_b) dA   for every edge function τ
//   viscous force on face f = −(M_f C ω)_f      i.e. −(curl ω, φ_f)
// M_f is the RT0 face mass (4×4 per tet), M_e the N0 edge mass (6×6 per tet) and C the face–edge
// incidence (the curl of an edge function is exactly a face function: Stokes' theorem). So
//   K = F M_e⁻¹ B,   B = Cᵀ M_f (edges × faces),   F = −Bᵀ = −M_f C (faces × edges),
// symmetric negative semi-definite, takes the two-point operator's place in H/Δt − νθK. Unlike the
// two-point form it converges on tetrahedra whose dual is made of centroids (docs/validation.md, *The viscous term*).
// M_e⁻¹ is applied as a fixed Chebyshev polynomial of D_e⁻¹M_e on the interval measured at setup
// (CG-Lanczos, widened): a symmetric positive operator, so K stays symmetric and CG-solvable.
// Boundary conditions:
//   velocity faces (walls, lids, inlets): U_f prescribed, the tangential velocity through g;
//   pressure faces (outlets): U_f free and u × n = 0 (flow normal to the outlet): nothing in g;
//   slip faces: U_f = 0 and ω × n = 0: ω = 0 on their edges (dropped from the polynomial).
#include <cstdint>
#include <vector>

#include "mesh/load_mesh.hpp"
#include "operators/eigen_estimate.hpp"
#include "operators/flow_operators.hpp"
#include "operators/sparse_kernels.hpp"

namespace ss {

struct CurlCurlViscousData {
  SparseMatrix vorticity_source;              // B = Cᵀ M_f      (edges × faces)
  SparseMatrix viscous_force;                 // F = −M_f C      (faces × edges)
  SparseMatrix edge_mass;                     // M_e             (edges × edges)
  std::vector<double> edge_inverse_diagonal;  // 1/(M_e)_ee, 0 on edges held at ω = 0 (slip)
  EigenRange range;                           // Chebyshev interval for D_e⁻¹ M_e
  int degree = 0;                             // polynomial degree (M_e applications per K)
  std::vector<double> diagonal;               // diag(F D_e⁻¹ B) ≈ diag K, for Jacobi
  // g = boundary_source · w, w = (n × u_b) per boundary face (x, y, z interleaved; n outward).
  SparseMatrix boundary_source;               // edges × 3·boundary faces
};

// The factors, assembled row by row in parallel from the cells around each face or edge (the same
// matrices, bit for bit, as element-by-element assembly in cell order):
SparseMatrix rt0_face_mass(const LoadedMesh& mesh);                  // M_f (faces × faces)
SparseMatrix n0_edge_mass(const LoadedMesh& mesh);                   // M_e (edges × edges)
SparseMatrix curl_incidence(const Topology& topology);               // C   (faces × edges)
SparseMatrix curl_incidence_transpose(const Topology& topology);     // Cᵀ  (edges × faces)
// Row i (local face opposite node i) of cell c's RT0 face mass, over its local faces; row a (local
// edge kTetEdgeNodes[a]) of its N0 edge mass, over its local edges. The cell must have volume > 0.
void rt0_face_mass_row(const LoadedMesh& mesh, std::int32_t cell, int i, double row[4]);
void n0_edge_mass_row(const LoadedMesh& mesh, std::int32_t cell, int a, double row[6]);

// `kinds` has one entry per boundary face (topology.boundary_faces order). `tolerance` bounds the
// polynomial's relative error over the interval (it fixes the degree: 14 at 1e-3 on the project
// meshes, 21 at 1e-5). 1e-3 moves the CI duct's flow rate by 0.02 % and Ethier–Steinman's L2 error
// by < 1e-4 relative, far below their discretisation errors (5 %, 2e-2), for 1.5× fewer products.
// `edges`: the Lanczos run's vector space over MPI ranks (the whole mesh's interval from a piece);
// none: this mesh's edges. The start vector comes from the edges' positions either way
// (lanczos_edge_start), so the serial run and every piece numbering find the same interval.
inline constexpr double kCurlCurlTolerance = 1e-3;
CurlCurlViscousData build_curl_curl_viscous(const LoadedMesh& mesh, const std::vector<FlowBoundaryKind>& kinds,
                                            double tolerance = kCurlCurlTolerance, const LanczosSpace* edges = nullptr);

// The Lanczos start vector over the edges, whatever their numbering and orientation: per edge a
// hash of its midpoint's coordinate bits ((a + b)/2 is the same double whichever end comes first,
// and a refined piece's nodes are the serial refinement's bit for bit), negated where the edge
// points from its lexicographically larger end to its smaller (an edge's sign follows its
// orientation, so the start vector must too: M_e of the other orientation is S M_e S, S = ±1).
std::vector<double> lanczos_edge_start(const LoadedMesh& mesh);

// g on the edges from the boundary velocities (one per boundary face, velocity faces read only).
std::vector<double> tangential_boundary_source(const CurlCurlViscousData& data, const LoadedMesh& mesh,
                                               const std::vector<FlowBoundaryKind>& kinds,
                                               const std::vector<double>& bx, const std::vector<double>& by,
                                               const std::vector<double>& bz);

// The operator on a backend (GpuBackend: float kernels; CpuBackend: the double reference), from
// the sparse kernels both backends have.
template <class Backend>
class CurlCurlViscous {
public:
  using Vector = typename Backend::Vector;
  using Sparse = typename SparseMatrixOn<Backend>::type;

  CurlCurlViscous(Backend& backend, const CurlCurlViscousData& data)
      : backend_(backend), source_(backend, data.vorticity_source), force_(backend, data.viscous_force),
        edge_mass_(backend, data.edge_mass), range_(data.range), degree_(data.degree) {
    edge_inverse_diagonal_ = backend.upload(data.edge_inverse_diagonal);
    diagonal_ = backend.upload(data.diagonal);
    const std::int64_t ne = data.edge_mass.rows;
    r_ = backend.make_vector(ne), omega_ = backend.make_vector(ne), d_ = backend.make_vector(ne);
  }

  // y = K x = F M̃_e⁻¹ B x (x, y: faces; y must not be x).
  void apply(const Vector& x, Vector& y) {
    source_.apply(x, r_);
    vorticity(r_, omega_);
    force_.apply(omega_, y);
  }

  // y = F M̃_e⁻¹ (a B U + b g): the explicit viscous force of U with boundary source g (edges).
  void force(double a, const Vector& U, double b, const Vector& g, Vector& y) {
    source_.apply(U, d_);
    backend_.scale(a, d_, r_);
    backend_.axpy(b, g, r_, r_);
    vorticity(r_, omega_);
    force_.apply(omega_, y);
  }

  // ω = M̃_e⁻¹ r: Chebyshev iteration from ω = 0 on [lo, hi] (multigrid.hpp has the recurrence).
  void vorticity(const Vector& r, Vector& omega) {
    const double theta = 0.5 * (range_.hi + range_.lo), delta = 0.5 * (range_.hi - range_.lo);
    const double sigma = theta / delta;
    double rho = 1.0 / sigma;
    chebyshev_step(backend_, r, nullptr, edge_inverse_diagonal_, 0.0, 1.0 / theta, omega, d_);
    for (int k = 1; k < degree_; ++k) {
      const double rho_next = 1.0 / (2.0 * sigma - rho);
      edge_mass_.chebyshev_step(r, edge_inverse_diagonal_, rho_next * rho, 2.0 * rho_next / delta, omega, d_);
      rho = rho_next;
    }
  }

  const Vector& diagonal() const { return diagonal_; }  // ≈ diag K (≤ 0)
  Sparse& edge_mass() { return edge_mass_; }             // M_e
  Sparse& vorticity_source() { return source_; }         // B
  Sparse& viscous_force() { return force_; }             // F = −Bᵀ
  int degree() const { return degree_; }

private:
  Backend& backend_;
  Sparse source_, force_, edge_mass_;
  EigenRange range_;
  int degree_ = 0;
  Vector edge_inverse_diagonal_, diagonal_, r_, omega_, d_;
};

}  // namespace ss
