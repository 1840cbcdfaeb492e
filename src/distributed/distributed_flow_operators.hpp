#pragma once
// The flow operators over a rank's piece (parallel/entity_partition.hpp), thesis §8.3: each wraps
// the backend's own operator (CpuFlowOperators / GpuFlowOperators, their mesh operators, the
// sparse matrices of the curl–curl viscous term and the streamfunction) and brings its output's
// ghost entries up to date from their owners (DistributedBackend::update_ghosts: the halo of the
// output's entity kind). An owned entry of an output is exact when the input is right on every
// local entity (the ghost layer holds the whole stencil), so with every output exchanged every
// vector the solver makes is right on owned and ghost entries alike, and FlowSolver runs unchanged
// over DistributedBackend + these. Pointwise work inside the solver (vector updates, masks) needs
// no exchange. An operator with several outputs of one kind (the three velocity components, the
// Chebyshev step's x and d) updates them in one round trip.
//
// The operators that make most of the round trips — the pressure operator (one per pressure CG
// iteration) and the sparse matrices of the curl–curl term (the edge mass's Chebyshev steps, the
// vorticity system's operator M_e x + c B (D Bᵀ x) as one sum of products: the momentum CG's one
// round trip an iteration) — overlap their exchange with their own work
// (DistributedBackend::overlapped_update): a matrix of the halo's send rows only (select_rows)
// computes the values the neighbours need first, their read-back and messages go while the full
// pass computes every local row; the pressure operator computes its send rows with its own kernel
// at the listed cells (pressure_rows). Either way the values sent are the owner's own bit for bit
// (tested): ghost copies that differ from their owners by rounding break the float pressure CG
// (p·Ap <= 0 seen on llvmpipe). The other operators' exchanges wait for their pass.
#include <optional>
#include <type_traits>
#include <utility>

#include "operators/sparse_kernels.hpp"
#include "parallel/distributed_backend.hpp"
#include "physics/streamfunction_boundary.hpp"

namespace ss {

template <class Backend, class MeshOps>
class DistributedMeshOperators {
public:
  using Vector = typename Backend::Vector;

  DistributedMeshOperators(DistributedBackend<Backend>& dist, MeshOps& ops)
      : dist_(dist), ops_(ops),
        curl_needs_exchange_(!dist.ghosts_exact_without_exchange(
            ops.num_edges(), ops.num_faces(), [&ops](const Vector& s, Vector& u) { ops.curl(s, u); })) {}

  std::int64_t num_cells() const { return ops_.num_cells(); }
  std::int64_t num_faces() const { return ops_.num_faces(); }
  std::int64_t num_edges() const { return ops_.num_edges(); }
  std::int64_t num_boundary_faces() const { return ops_.num_boundary_faces(); }

  // A face's gradient and integral are its two cells' values: right on every face of the piece
  // but the cut ones (which nothing reads and no halo fills) without an exchange; checked at first
  // use (collective: every rank makes the same calls), else exchanged.
  void gradient(const Vector& phi, Vector& out) {
    ops_.gradient(phi, out);
    if (needs_exchange(gradient_exchange_, ops_.num_cells(), [&](const Vector& x, Vector& y) { ops_.gradient(x, y); }))
      dist_.update_ghosts(out);
  }
  void gradient(const Vector& phi, const Vector& boundary_values, Vector& out) {
    ops_.gradient(phi, boundary_values, out);
    if (needs_exchange(boundary_gradient_exchange_, ops_.num_cells(),
                       [&](const Vector& x, Vector& y) { ops_.gradient(x, boundary_values, y); }))
      dist_.update_ghosts(out);
  }
  void divergence(const Vector& flux, Vector& out) { ops_.divergence(flux, out), dist_.update_ghosts(out); }
  // A face's curl is its three edges' values: right on every face of the piece but the cut ones
  // (which nothing reads) without an exchange; checked once, at construction.
  void curl(const Vector& stream, Vector& out) {
    ops_.curl(stream, out);
    if (curl_needs_exchange_) dist_.update_ghosts(out);
  }
  void rotation(const Vector& flux, Vector& out) { ops_.rotation(flux, out), dist_.update_ghosts(out); }
  void interpolate(const Vector& flux, Vector& vx, Vector& vy, Vector& vz) {
    ops_.interpolate(flux, vx, vy, vz);
    dist_.update_ghosts({&vx, &vy, &vz});
  }
  void integrate(const Vector& vx, const Vector& vy, const Vector& vz, Vector& out) {
    ops_.integrate(vx, vy, vz, out);
    if (needs_exchange(integrate_exchange_, ops_.num_cells(),
                       [&](const Vector& x, Vector& y) { ops_.integrate(x, x, x, y); }))
      dist_.update_ghosts(out);
  }
  // The owned cells' velocities without the exchange: for reductions, which count owned cells only.
  void interpolate_owned(const Vector& flux, Vector& vx, Vector& vy, Vector& vz) { ops_.interpolate(flux, vx, vy, vz); }
  void divergence_owned(const Vector& flux, Vector& out) { ops_.divergence(flux, out); }
  const Vector& cell_volumes() const { return ops_.cell_volumes(); }

private:
  // Whether an operator from `in_size` entries onto the faces needs its output's exchange (known
  // after its first call: DistributedBackend::ghosts_exact_without_exchange).
  template <class Op>
  bool needs_exchange(std::optional<bool>& known, std::int64_t in_size, Op&& op) {
    if (!known) known = !dist_.ghosts_exact_without_exchange(in_size, ops_.num_faces(), op);
    return *known;
  }

  DistributedBackend<Backend>& dist_;
  MeshOps& ops_;
  bool curl_needs_exchange_ = true;
  std::optional<bool> gradient_exchange_, boundary_gradient_exchange_, integrate_exchange_;  // needs_exchange
};

template <class Backend, class FlowOps>
class DistributedFlowOperators {
public:
  using Vector = typename Backend::Vector;
  using LocalMeshOps = std::remove_reference_t<decltype(std::declval<FlowOps&>().mesh())>;

  DistributedFlowOperators(DistributedBackend<Backend>& dist, FlowOps& ops)
      : dist_(dist), ops_(ops), mesh_(dist, ops.mesh()),
        cell_sends_(dist.local().upload_indices(non_empty(dist.halo(ops.mesh().num_cells()).send_list()))) {}

  DistributedMeshOperators<Backend, LocalMeshOps>& mesh() { return mesh_; }

  void cell_terms(Convection conv, double a, double b, const Vector& U, const Vector& ux, const Vector& uy,
                  const Vector& uz, const Vector& bx, const Vector& by, const Vector& bz, Vector& fx, Vector& fy,
                  Vector& fz) {
    ops_.cell_terms(conv, a, b, U, ux, uy, uz, bx, by, bz, fx, fy, fz);
    dist_.update_ghosts({&fx, &fy, &fz});
  }
  void viscous_apply(const Vector& x, Vector& y) { ops_.viscous_apply(x, y), dist_.update_ghosts(y); }
  void momentum_apply(double inv_dt, double s, const Vector& x, Vector& y) {
    ops_.momentum_apply(inv_dt, s, x, y);
    dist_.update_ghosts(y);
  }
  // Pointwise: right on the ghosts when x and lap are (no exchange; the face mass and mask are
  // right on the ghosts: piece_operator_data).
  void momentum_combine(double inv_dt, double s, const Vector& x, const Vector& lap, Vector& y) {
    ops_.momentum_combine(inv_dt, s, x, lap, y);
  }
  Vector momentum_diagonal(double inv_dt, double s) {
    Vector d = ops_.momentum_diagonal(inv_dt, s);
    dist_.update_ghosts(d);
    return d;
  }
  // Pointwise over the faces: right on the ghosts when its inputs are (checked once, on first use;
  // collective, as every rank makes the same calls).
  void momentum_rhs(double inv_dt, double s, const Vector& U, const Vector& TF, const Vector& Gp, const Vector& Y,
                    const Vector& Ub, Vector& out) {
    if (!momentum_rhs_needs_exchange_)
      momentum_rhs_needs_exchange_ = !dist_.ghosts_exact_without_exchange(
          std::int64_t(U.size()), std::int64_t(U.size()),
          [&](const Vector& x, Vector& y) { ops_.momentum_rhs(inv_dt, s, x, x, x, x, x, y); });
    ops_.momentum_rhs(inv_dt, s, U, TF, Gp, Y, Ub, out);
    if (*momentum_rhs_needs_exchange_) dist_.update_ghosts(out);
  }
  void pressure_apply(const Vector& x, Vector& y) {
    dist_.overlapped_update({&y}, [&](const std::vector<Vector*>& send) { ops_.pressure_rows(cell_sends_, x, *send[0]); },
                            [&] { ops_.pressure_apply(x, y); });
  }
  // y = P x right on the owned cells only (no exchange; the multigrid's residual for its restriction).
  void pressure_apply_owned(const Vector& x, Vector& y) { ops_.pressure_apply(x, y); }
  const Vector& pressure_diagonal() const { return ops_.pressure_diagonal(); }
  // The pressure preconditioner z = M⁻¹ r over the ranks (the multigrid's V-cycle; empty: none).
  using VCycle = std::function<void(const Vector&, Vector&)>;
  void set_pressure_v_cycle(VCycle v_cycle) { pressure_v_cycle_ = std::move(v_cycle); }
  const VCycle& pressure_v_cycle() const { return pressure_v_cycle_; }
  // A per-entity array made on the piece (right on owned entries) with its ghost entries from their
  // owners, as the device holds them (so the pointwise steps that read it need no exchange).
  void complete_ghosts(std::vector<double>& v) {
    Vector x = dist_.upload(v);
    dist_.update_ghosts(x);
    const std::vector<double> exchanged = dist_.download(x);
    for (std::int32_t i : dist_.halo(std::int64_t(v.size())).recv_list()) v[size_t(i)] = exchanged[size_t(i)];
  }
  // The exact method's boundary on this piece (distributed/distributed_streamfunction.hpp).
  void set_streamfunction_setup(StreamfunctionSetup setup) { streamfunction_setup_ = std::move(setup); }
  const StreamfunctionSetup& streamfunction_setup() const {
    SS_REQUIRE(streamfunction_setup_.lift, "flow over MPI ranks: the exact method's boundary was not set up");
    return streamfunction_setup_;
  }
  // U = U* − Δt W G φ: pointwise in U*, a face's φ part its two cells' (as the gradient, checked
  // at first use with U* = 0).
  void project(const Vector& Ustar, const Vector& phi, double dt, Vector& U) {
    ops_.project(Ustar, phi, dt, U);
    if (!project_needs_exchange_) {
      Vector zero = dist_.make_vector(std::int64_t(Ustar.size()));
      dist_.fill(zero, 0.0);
      project_needs_exchange_ = !dist_.ghosts_exact_without_exchange(
          std::int64_t(phi.size()), std::int64_t(Ustar.size()),
          [&](const Vector& x, Vector& y) { ops_.project(zero, x, dt, y); });
    }
    if (*project_needs_exchange_) dist_.update_ghosts(U);
  }
  void courant(const Vector& U, Vector& out) { ops_.courant(U, out), dist_.update_ghosts(out); }
  // The owned cells' Courant rates without the exchange: for the max reduction of the CFL number.
  void courant_owned(const Vector& U, Vector& out) { ops_.courant(U, out); }

private:
  // An index list to upload: one unused 0 when nothing is sent (no exchange computes then).
  static std::vector<std::int32_t> non_empty(const std::vector<std::int32_t>& v) {
    return v.empty() ? std::vector<std::int32_t>{0} : v;
  }
  DistributedBackend<Backend>& dist_;
  FlowOps& ops_;
  DistributedMeshOperators<Backend, LocalMeshOps> mesh_;
  typename Backend::IndexVector cell_sends_;  // the cell halo's send entries (pressure_rows)
  VCycle pressure_v_cycle_;
  StreamfunctionSetup streamfunction_setup_;
  std::optional<bool> momentum_rhs_needs_exchange_, project_needs_exchange_;  // known after the first call
};

// A sparse matrix over a piece (the curl–curl viscous term): the local matrix's rows, outputs
// brought up to date by the halo of their entity kind, overlapped: the rows the halo sends are
// computed first by a matrix of those rows alone, then every row while the values travel.
template <class Backend>
class DistributedSparseMatrix {
public:
  using Vector = typename Backend::Vector;
  DistributedSparseMatrix(DistributedBackend<Backend>& dist, const SparseMatrix& m)
      : dist_(dist), m_(dist.local(), m), send_(dist.local(), m, dist.halo(m.rows).send_list()),
        needs_exchange_(!dist.ghosts_exact_without_exchange(m.cols, m.rows,
                                                            [this](const Vector& x, Vector& y) { m_.apply(x, y); })) {}
  std::int32_t rows() const { return m_.rows(); }
  std::int32_t cols() const { return m_.cols(); }
  void apply(const Vector& x, Vector& y, const Vector* sub = nullptr, const Vector* add = nullptr) {
    if (!needs_exchange_) return m_.apply(x, y, sub, add);
    dist_.overlapped_update({&y}, [&](const std::vector<Vector*>& send) { send_.apply(x, *send[0], sub, add); },
                            [&] { m_.apply(x, y, sub, add); });
  }
  // y = A x from the piece's rows alone, no exchange: right on the owned rows when x is right on
  // their columns (the rank's block of a preconditioner, x 0 on the ghosts: A_oo x_o).
  void apply_on_rank(const Vector& x, Vector& y) { m_.apply(x, y); }
  // y = A x + c B u (A: this; B with the same rows; e: scratch, left holding B u on the owned rows)
  // in one round trip: both products' send rows and their sum first, then the full passes while
  // the values travel (sum_of_products: the vorticity system's operator M_e x + c B (D Bᵀ x)).
  void apply_sum(const Vector& x, DistributedSparseMatrix& b, const Vector& u, double c, Vector& e, Vector& y) {
    SS_REQUIRE(b.rows() == rows(), "sum of sparse products: " << rows() << " and " << b.rows() << " rows");
    Backend& local = dist_.local();
    const auto full = [&] {
      b.m_.apply(u, e);
      m_.apply(x, y);
      local.axpy(c, e, y, y);
    };
    if (!needs_exchange_ && !b.needs_exchange_) return full();
    dist_.overlapped_update(
        {&y},
        [&](const std::vector<Vector*>& send) {
          Vector& s = *send[0];
          if (!send_scratch_ || std::int64_t(send_scratch_->size()) != std::int64_t(s.size()))
            send_scratch_.emplace(local.make_vector(std::int64_t(s.size())));
          b.send_.apply(u, *send_scratch_);
          send_.apply(x, s);
          local.axpy(c, *send_scratch_, s, s);
        },
        full);
  }
  void chebyshev_step(const Vector& b, const Vector& inverse_diagonal, double c_d, double c_r, Vector& x, Vector& d) {
    dist_.overlapped_update(
        {&x, &d},
        [&](const std::vector<Vector*>& send) {
          send_.chebyshev_rows(b, inverse_diagonal, c_d, c_r, x, d, *send[0], *send[1]);
        },
        [&] { m_.chebyshev_step(b, inverse_diagonal, c_d, c_r, x, d); });
  }

private:
  using Local = typename SparseMatrixOn<Backend>::type;
  DistributedBackend<Backend>& dist_;
  Local m_;
  Local send_;  // the rows the halo of the output's kind sends, in its send order
  // False when every ghost row is its owner's row, whole and in the same order (the viscous force
  // F = −M_f C: a face's row is its three edges; the gauge's gradient): apply's local pass alone is
  // then right on the ghosts (DistributedBackend::ghosts_exact_without_exchange). The Chebyshev
  // step always exchanges (its only user, the edge mass, has incomplete ghost rows).
  bool needs_exchange_ = true;
  std::optional<Vector> send_scratch_;  // apply_sum: B's send rows
};

template <class Backend>
void sum_of_products(DistributedBackend<Backend>&, DistributedSparseMatrix<Backend>& a, const typename Backend::Vector& x,
                     DistributedSparseMatrix<Backend>& b, const typename Backend::Vector& u, double c,
                     typename Backend::Vector& e, typename Backend::Vector& y) {
  a.apply_sum(x, b, u, c, e, y);
}

template <class Backend>
struct SparseMatrixOn<DistributedBackend<Backend>> {
  using type = DistributedSparseMatrix<Backend>;
};

// The free Chebyshev step (sparse_kernels.hpp) on a piece: pointwise, so x and d are right on the
// ghosts when its inputs are (no exchange; the curl–curl term's inverse edge-mass diagonal is
// completed on the ghosts: FlowSolver).
template <class Backend>
void chebyshev_step(DistributedBackend<Backend>& dist, const typename Backend::Vector& b,
                    const typename Backend::Vector* ax, const typename Backend::Vector& inverse_diagonal, double c_d,
                    double c_r, typename Backend::Vector& x, typename Backend::Vector& d) {
  chebyshev_step(dist.local(), b, ax, inverse_diagonal, c_d, c_r, x, d);
}

}  // namespace ss
