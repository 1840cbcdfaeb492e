#pragma once
// The flow pressure multigrid over MPI ranks: the V-cycle (multigrid/v_cycle.hpp) over the
// refinement's cell levels (pressure_piece_multigrid_setup.hpp says what each level holds). This
// class is the cycle's hierarchy, level 0 the finest; its steps:
//
//     coarsest:    x = A_l⁻¹ b               (owned b gathered whole on every rank and solved there,
//                                            on the rank's own device, by the serial algebraic
//                                            multigrid — the level's refinement families, then
//                                            aggregation, its coarsest a dense inverse there; the
//                                            base mesh, or the first coarser level of at most
//                                            gather_size cells)
//     smoothing:   x = S_l(b, from 0), x += S_l(b − A_l x)   (Chebyshev on each rank's block,
//                                            below: no message inside; b − A_l x one round trip on
//                                            a coarser level, none on the finest, whose x then gets
//                                            its ghosts by one halo update; above the coarsest none,
//                                            below)
//     restriction: b_{l+1} = R (b − A_l x)   (children summed: no message; A_l x one round trip on a
//                                            coarser level; on the finest only on the owned cells,
//                                            after one halo update of x's ghosts)
//     correction:  x = x + α P x_{l+1}       (parents' values: no message; α = family_over_correction)
//
// Every smoothed level smooths on each rank's block (no exchange inside the polynomial): S_l is the
// Chebyshev polynomial of D̃⁻¹Ã_oo applied to D̃⁻¹, Ã_oo = A_oo + E the rank's rows and columns of A
// plus E = diag(Σ_{j ghost} |a_ij|) (the ℓ1 term), D̃ = D + E. As A ≤ blockdiag(Ã_oo) (each coupling
// across ranks a_ij x_i x_j ≥ −(|a_ij|/2)(x_i² + x_j²)) and the interval's top, the serial
// λmax(D⁻¹A) bound, bounds D̃⁻¹Ã_oo too (its Rayleigh quotient is a mediant of D⁻¹A_oo's and 1's),
// S_l A has its spectrum in (0, 2): the smoother converges, and the cycle stays SPD. Pre-smoothing
// from x = 0 needs no message; post-smoothing one for b − A_l x; the restriction's residual one: two
// round trips a V-cycle on each coarser level, where smoothing with the whole A made four.
// The finest level is the flow's: its residuals use the caller's pressure operator on the owned
// cells, and its vectors are right on their ghosts (the flow's convention): x's ghosts by one halo
// update before the restriction, one after the correction (the cycle's after_correction) and one
// after the post-smoothing: three round trips a V-cycle, where smoothing with the whole A made four
// at degree 2 (one per product). Coarser vectors keep their ghost entries 0 (DistributedTransfer's
// convention: a ghost's value travels with the operator's exchange).
// The level l just above the gathered coarsest needs no message for its post-smoothing's residual:
// the coarse answer is known whole on every rank, so with r = b − A x kept from the restriction
// (x's ghosts were exchanged for it), b − A (x + P x_c) = r − (A P) x̂_c on the owned rows, x̂_c the
// whole answer on every local coarse cell (a ghost's parent's value included, which its owner added
// to it). There the finest level skips the update after the correction (two round trips a V-cycle),
// a coarser level its residual's exchange (one).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#include <mpi.h>

#include "distributed/pressure_piece_multigrid_setup.hpp"
#include "multigrid/multigrid.hpp"
#include "multigrid/v_cycle.hpp"
#include "parallel/distributed_transfer.hpp"
#include "parallel/halo.hpp"
#include "parallel/whole_gather.hpp"

namespace ss {

template <class Backend>
class DistributedPressureMultigrid {
public:
  using Vector = typename Backend::Vector;
  using Value = typename Backend::Value;  // as the device stores it (GPU: float)
  using Sparse = typename SparseMatrixOn<Backend>::type;
  using Apply = std::function<void(const Vector&, Vector&)>;

  // `finest`: the piece's level (finest_cell_level); `finest_halo` its cell halo;
  // `finest_owned_apply` y = A x right on the owned cells (x right on its ghosts; no exchange: the
  // residuals the cycle reads there); `refinements`: how many times the finest level was refined
  // from the base mesh (levels to coarsen along). `constant_null_space`: A is singular with the
  // constants as null space (no outlet). Collective.
  DistributedPressureMultigrid(Backend& backend, CellLevel finest, HaloExchange<Backend>& finest_halo,
                               Apply finest_owned_apply, int refinements, bool constant_null_space,
                               const MultigridOptions& options, MPI_Comm comm)
      : backend_(backend), options_(options), comm_(comm) {
    mpi_check(MPI_Comm_rank(comm, &rank_), "MPI_Comm_rank");
    const auto t0 = std::chrono::steady_clock::now();
    // Levels finest first (never gathered unless it has at most coarse_size cells), down to the base
    // mesh or the first coarser level of at most max(coarse_size, gather_size) cells: the coarsest,
    // gathered whole.
    std::vector<CellLevel> cells;
    std::vector<std::vector<std::int32_t>> parents;  // parents[k]: level k -> k + 1
    cells.push_back(std::move(finest));
    const std::int64_t gather_at = std::max(options_.coarse_size, options_.gather_size);
    for (int k = 0; k < refinements && cells.back().whole > options_.coarse_size &&
                    (k == 0 || cells.back().whole > gather_at) && k + 1 < options_.max_levels;
         ++k) {
      parents.emplace_back();
      cells.push_back(coarsen_cells(cells.back(), parents.back(), comm_));
    }
    for (size_t k = 0; k < cells.size(); ++k) {
      Level v;
      CellLevel& c = cells[k];
      v.size = std::int32_t(c.global.size());
      v.owned = c.owned_cells(rank_);
      const bool coarsest = k + 1 == cells.size();
      if (k == 0) {
        v.halo = &finest_halo;
      } else {
        v.own_halo = std::make_unique<HaloExchange<Backend>>(backend_, c.links, comm_);
        v.halo = v.own_halo.get();
      }
      if (!coarsest) {
        const std::vector<double> inverse = cell_inverse_diagonal(c, rank_);
        const double hi = options_.smoother_upper *
                          cell_lambda_max(c, inverse, options_.lanczos_steps, comm_);
        v.theta = 0.5 * (hi + hi / options_.smoother_ratio);
        v.delta = 0.5 * (hi - hi / options_.smoother_ratio);
        if (k > 0)
          v.op = std::make_unique<DistributedTransfer<Backend>>(backend_, *v.halo, c.matrix, std::int32_t(v.owned.size()),
                                                               std::int32_t(v.owned.size()));
        set_block_smoother(v, c, inverse);
        v.ax = backend_.make_vector(v.size);
        v.d = backend_.make_vector(v.size);
      }
      v.b = backend_.make_vector(v.size);
      v.x = backend_.make_vector(v.size);
      levels_.push_back(std::move(v));
    }
    finest_owned_apply_ = std::move(finest_owned_apply);
    // Transfers between level k and k + 1 (both local: a cell's children are on its owner).
    for (size_t k = 0; k + 1 < levels_.size(); ++k) {
      const std::vector<std::int32_t>& parent = parents[k];
      SparseMatrix p;  // fine rows (owned) × coarse columns: α at the parent
      p.rows = levels_[k].size, p.cols = levels_[k + 1].size;
      p.offsets.assign(size_t(p.rows) + 1, 0);
      for (std::int32_t i = 0; i < p.rows; ++i) {
        if (cells[k].owner[size_t(i)] == rank_) p.columns.push_back(parent[size_t(i)]), p.values.push_back(options_.family_over_correction);
        p.offsets[size_t(i) + 1] = std::int32_t(p.values.size());
      }
      SparseMatrix r = transpose(p);
      for (double& x : r.values) x = 1.0;
      levels_[k].prolongation.emplace(backend_, p);
      levels_[k].restriction.emplace(backend_, r);
    }
    // The level above the gathered coarsest: its post-smoothing residual without a message.
    if (levels_.size() >= 2) set_coarse_residual(levels_[levels_.size() - 2], cells[levels_.size() - 2], parents.back());
    // The coarsest level whole on every rank: its owned rows by global id, the serial solver on
    // the device, and where each local cell finds its value in the whole answer.
    CellLevel& last = cells.back();
    std::vector<std::int64_t> owned_global;
    for (std::int32_t i : levels_.back().owned) owned_global.push_back(last.global[size_t(i)]);
    whole_.emplace(owned_global, comm_);
    const int families_below = refinements - int(cells.size() - 1);  // the gathered level's own refinements
    coarse_ = std::make_unique<Multigrid<Backend>>(backend_, whole_matrix(last), constant_null_space,
                                                   typename Multigrid<Backend>::LevelApply{},
                                                   replicated_options(options_, families_below));
    whole_b_ = backend_.make_vector(whole_->size());
    whole_x_ = backend_.make_vector(whole_->size());
    if (!levels_.back().owned.empty()) {
      coarsest_owned_ids_.emplace(backend_.upload_indices(levels_.back().owned));
      owned_b_.emplace(backend_.make_vector(std::int64_t(levels_.back().owned.size())));
    }
    std::vector<std::int32_t> placement(whole_->order().begin(), whole_->order().end());
    whole_placement_.emplace(backend_.make_scatter_list(placement));
    const bool single_level = levels_.size() == 1;  // the finest is the coarsest: ghosts from the answer too
    std::vector<std::int32_t> from_whole(last.global.size());
    std::vector<double> owned_marker(last.global.size(), single_level ? 1.0 : 0.0);
    for (size_t i = 0; i < from_whole.size(); ++i) from_whole[i] = std::int32_t(last.global[i]);
    for (std::int32_t i : levels_.back().owned) owned_marker[size_t(i)] = 1.0;
    from_whole_ = backend_.upload_indices(from_whole);
    coarsest_owned_ = backend_.upload(owned_marker);
    from_whole_values_ = backend_.make_vector(std::int64_t(from_whole.size()));
    {  // one V-cycle of zeros: the kernels' first use (shader compilation) belongs to the set-up
      Vector zero = backend_.make_vector(levels_[0].size), z = backend_.make_vector(levels_[0].size);
      backend_.fill(zero, 0.0);
      v_cycle(*this, 0, zero, z);
      backend_.finish();
      coarsest_seconds_ = 0;
    }
    setup_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }

  // z = M⁻¹ r (one V-cycle from zero); r right on its ghosts, z too.
  void operator()(const Vector& r, Vector& z) { v_cycle(*this, 0, r, z); }
  // The cycle's last step on z, the halo update of its ghosts (z's owned entries final before it),
  // by `update` instead of the finest halo's own: the flow passes its DistributedBackend's, so that
  // work queued for z's owned entries (CG's r·z, solver/cg.hpp's halo_last) rides in that update.
  void set_output_update(std::function<void(Vector&)> update) { output_update_ = std::move(update); }

  int num_levels() const { return int(levels_.size()); }
  std::int32_t coarsest_size() const { return whole_->size(); }
  double setup_seconds() const { return setup_seconds_; }
  // Host time of the coarsest solves (download, gather, upload, the cycle's passes queued) and of
  // the coarser levels' halos.
  double coarsest_seconds() const { return coarsest_seconds_; }
  double coarser_halo_seconds() const {
    double t = 0;
    for (const Level& v : levels_)
      if (v.own_halo) t += v.own_halo->seconds();
    return t;
  }
  std::int64_t coarser_halo_exchanges() const {
    std::int64_t n = 0;
    for (const Level& v : levels_)
      if (v.own_halo) n += v.own_halo->exchanges();
    return n;
  }

private:
  template <class Hierarchy, class V>
  friend void v_cycle(Hierarchy& h, std::size_t l, const V& b, V& x);

  struct Level {
    std::int32_t size = 0;
    std::vector<std::int32_t> owned;  // local ids of the owned cells
    HaloExchange<Backend>* halo = nullptr;
    std::unique_ptr<HaloExchange<Backend>> own_halo;
    std::unique_ptr<DistributedTransfer<Backend>> op;  // coarser levels' A (owned rows)
    std::optional<Sparse> prolongation, restriction;   // to and from the next coarser level
    Vector b, x, ax, d;
    double theta = 1, delta = 0;
    // The level's block smoother: Ã_oo (rows and columns of ghosts empty), D̃⁻¹ (0 on ghosts), scratch
    std::optional<Sparse> block;
    Vector block_inverse_diagonal, r, e;
    // The level above the gathered coarsest: −A P (owned rows); r keeps b − A x from the restriction
    std::optional<Sparse> minus_ap;
  };

  // A level's block smoother (the top of this file): Ã_oo = A_oo + E and D̃⁻¹ = 1/(d + e) =
  // D⁻¹/(1 + D⁻¹e) on the owned cells, 0 on the ghosts.
  void set_block_smoother(Level& v, const CellLevel& c, const std::vector<double>& inverse) {
    std::vector<char> owned(c.global.size(), 0);
    for (std::int32_t i : v.owned) owned[size_t(i)] = 1;
    SparseMatrix block;
    block.rows = block.cols = std::int32_t(owned.size());
    block.offsets.assign(owned.size() + 1, 0);
    std::vector<double> block_inverse(owned.size(), 0.0);
    for (std::int32_t i = 0; i < block.rows; ++i) {
      if (owned[size_t(i)]) {
        double e = 0;
        size_t diagonal = block.values.size();
        for (std::int32_t k = c.matrix.offsets[size_t(i)]; k < c.matrix.offsets[size_t(i) + 1]; ++k) {
          const std::int32_t j = c.matrix.columns[size_t(k)];
          if (!owned[size_t(j)]) {
            e += std::fabs(c.matrix.values[size_t(k)]);
            continue;
          }
          if (j == i) diagonal = block.values.size();
          block.columns.push_back(j), block.values.push_back(c.matrix.values[size_t(k)]);
        }
        SS_REQUIRE(diagonal < block.values.size(), "pressure multigrid: cell " << c.global[size_t(i)] << " has no diagonal entry");
        block.values[diagonal] += e;
        block_inverse[size_t(i)] = inverse[size_t(i)] / (1.0 + inverse[size_t(i)] * e);
      }
      block.offsets[size_t(i) + 1] = std::int32_t(block.values.size());
    }
    v.block.emplace(backend_, block);
    v.block_inverse_diagonal = backend_.upload(block_inverse);
    v.r = backend_.make_vector(v.size);
    v.e = backend_.make_vector(v.size);
  }

  // The level above the gathered coarsest (the top of this file): −A P on its owned rows, columns
  // the coarsest level's local cells (a ghost column's parent is local: coarsen_cells), so that
  // b − A (x + P x_c) = (b − A x) − A P x̂_c with x̂_c the whole answer on every local coarse cell.
  void set_coarse_residual(Level& v, const CellLevel& c, const std::vector<std::int32_t>& parent) {
    SparseMatrix ap;
    ap.rows = v.size, ap.cols = levels_.back().size;
    ap.offsets.assign(size_t(ap.rows) + 1, 0);
    std::vector<std::pair<std::int32_t, double>> row;
    for (std::int32_t i = 0; i < ap.rows; ++i) {
      row.clear();
      if (c.owner[size_t(i)] == rank_) {
        for (std::int32_t k = c.matrix.offsets[size_t(i)]; k < c.matrix.offsets[size_t(i) + 1]; ++k) {
          const std::int32_t parent_of_j = parent[size_t(c.matrix.columns[size_t(k)])];
          SS_REQUIRE(parent_of_j >= 0, "pressure multigrid: cell " << c.global[size_t(i)] << " reaches a cell without a coarse parent");
          row.push_back({parent_of_j, -options_.family_over_correction * c.matrix.values[size_t(k)]});
        }
        std::sort(row.begin(), row.end());
        for (size_t k = 0; k < row.size(); ++k) {
          if (k > 0 && row[k].first == row[k - 1].first) ap.values.back() += row[k].second;
          else ap.columns.push_back(row[k].first), ap.values.push_back(row[k].second);
        }
      }
      ap.offsets[size_t(i) + 1] = std::int32_t(ap.values.size());
    }
    v.minus_ap.emplace(backend_, ap);
  }

  // The serial multigrid of the coarsest level, solved whole on every rank's device: the level's
  // own refinement families first (its global ids number a cell's children 8C .. 8C + 7, as the
  // serial refinement does), then aggregation down to a dense inverse applied there
  // (with_dense_coarsest: no read-back inside the cycle).
  static MultigridOptions replicated_options(MultigridOptions o, int families) {
    o.refinement_families = families;
    return with_dense_coarsest(o);
  }

  // The coarsest level's whole matrix (row, column = global id), from every rank's owned rows.
  SparseMatrix whole_matrix(const CellLevel& c) {
    struct Entry {
      std::int64_t row, column;
      double value;
    };
    std::vector<Entry> mine;
    for (std::int32_t i : levels_.back().owned)
      for (std::int32_t k = c.matrix.offsets[size_t(i)]; k < c.matrix.offsets[size_t(i) + 1]; ++k)
        mine.push_back({c.global[size_t(i)], c.global[size_t(c.matrix.columns[size_t(k)])], c.matrix.values[size_t(k)]});
    std::vector<Entry> all = all_gather(mine, comm_);
    std::sort(all.begin(), all.end(), [](const Entry& x, const Entry& y) {
      return x.row != y.row ? x.row < y.row : x.column < y.column;
    });
    SparseMatrix m;
    m.rows = m.cols = whole_->size();
    m.offsets.assign(size_t(m.rows) + 1, 0);
    for (const Entry& e : all) {
      m.columns.push_back(std::int32_t(e.column)), m.values.push_back(e.value);
      ++m.offsets[size_t(e.row) + 1];
    }
    for (size_t i = 0; i < size_t(m.rows); ++i) m.offsets[i + 1] += m.offsets[i];
    return m;
  }

  // The hierarchy of v_cycle.hpp (with num_levels above).
  Vector& rhs(size_t k) { return levels_[k].b; }
  Vector& solution(size_t k) { return levels_[k].x; }

  // x = S b from 0, or x += S (b − A x); each step of S one fused pass of Ã_oo (chebyshev_smooth's
  // `matrix`), no message. b − A x: above the gathered coarsest from the restriction's residual and
  // the whole coarse answer (no message); else on a coarser level one round trip, on the finest none
  // (x is right on its ghosts after the correction's update). The finest x then gets its ghosts by
  // one halo update.
  void smooth(size_t k, const Vector& b, Vector& x, bool zero_start) {
    Level& v = levels_[k];
    const auto unused = [](const Vector&, Vector&) {};
    if (zero_start)
      return chebyshev_smooth(backend_, unused, b, v.block_inverse_diagonal, v.theta, v.delta, options_.smoother_degree,
                              true, x, v.ax, v.d, &*v.block);
    if (v.minus_ap) {
      v.minus_ap->apply(from_whole_values_, v.r, nullptr, &v.r);  // r = (b − A x_pre) − A P x̂_c
    } else {
      if (k == 0) finest_owned_apply_(x, v.ax);
      else v.op->apply(x, v.ax);
      backend_.axpy(-1.0, v.ax, b, v.r);
    }
    chebyshev_smooth(backend_, unused, v.r, v.block_inverse_diagonal, v.theta, v.delta, options_.smoother_degree, true, v.e,
                     v.ax, v.d, &*v.block);
    backend_.axpy(1.0, v.e, x, x);
    if (k == 0) {  // the cycle's answer right on its ghosts, as the flow's vectors are
      if (output_update_) output_update_(x);
      else v.halo->update(x);
    }
  }

  // R reads the owned rows only (a parent sums its children, all on its owner), so the finest
  // level's A x needs x's ghosts (0 after the pre-smoothing: one halo update) but no exchange of A x.
  // Above the gathered coarsest, b − A x stays for the post-smoothing.
  void restrict_residual(size_t k, const Vector& b, Vector& x, Vector& b_coarse) {
    Level& v = levels_[k];
    if (k == 0) {
      v.halo->update(x);
      finest_owned_apply_(x, v.ax);
    } else {
      v.op->apply(x, v.ax);
    }
    if (!v.minus_ap) return v.restriction->apply(b, b_coarse, &v.ax);
    backend_.axpy(-1.0, v.ax, b, v.r);
    v.restriction->apply(v.r, b_coarse);
  }
  void prolongate_add(size_t k, const Vector& x_coarse, Vector& x) {  // x = x + α P x_coarse
    levels_[k].prolongation->apply(x_coarse, x, nullptr, &x);
  }
  // The finest level's x right on its ghosts again for its post-smoothing's residual (the coarser
  // levels keep theirs 0); above the gathered coarsest that residual needs none.
  void after_correction(size_t k, Vector& x) {
    if (k == 0 && !levels_[k].minus_ap) levels_[k].halo->update(x);
  }

  // x = A_coarsest⁻¹ b: the owned values gathered whole, solved on every rank; x gets its owned
  // entries (and, on the finest level, its ghosts) from the whole answer: x_i = answer[global(i)],
  // times the owned marker (a coarser level's ghosts stay 0). The owned values leave the device as
  // one compact vector (a gather pass, then a read-back into a buffer kept from cycle to cycle) and
  // the gathered ones come back by one scatter to their global ids, as a halo's values travel (no
  // whole-level download and upload, each through a staging buffer made for it, every V-cycle).
  void coarsest_solve(size_t, const Vector& b, Vector& x) {
    const auto t0 = std::chrono::steady_clock::now();
    if (owned_b_) {
      backend_.gather(b, *coarsest_owned_ids_, *owned_b_);
      backend_.begin_download(*owned_b_, owned_read_);
      whole_->gather_in_order(backend_.end_download(owned_read_), whole_in_order_);
    } else {
      whole_->gather_in_order(std::vector<Value>{}, whole_in_order_);
    }
    backend_.scatter(whole_b_, *whole_placement_, whole_in_order_);
    (*coarse_)(whole_b_, whole_x_);
    backend_.gather(whole_x_, *from_whole_, from_whole_values_);
    backend_.multiply(coarsest_owned_, from_whole_values_, x);
    coarsest_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }

  Backend& backend_;
  MultigridOptions options_;
  MPI_Comm comm_;
  int rank_ = 0;
  Apply finest_owned_apply_;
  std::function<void(Vector&)> output_update_;  // set_output_update; empty: the finest halo's
  std::vector<Level> levels_;
  std::optional<WholeGather> whole_;
  std::unique_ptr<Multigrid<Backend>> coarse_;
  Vector whole_b_, whole_x_;                                 // the coarsest level whole
  // coarsest_solve's way there: the owned cells' local ids, their values compact (none: no owned
  // cell), the read-back, every rank's values in gathered order, and their places in whole_b_
  std::optional<typename Backend::IndexVector> coarsest_owned_ids_;
  std::optional<Vector> owned_b_;
  typename Backend::PendingDownload owned_read_;
  std::vector<Value> whole_in_order_;
  std::optional<typename Backend::ScatterList> whole_placement_;
  std::optional<typename Backend::IndexVector> from_whole_;  // per local coarsest cell: its global id
  Vector coarsest_owned_, from_whole_values_;                // 1 on owned cells (all on a single level)
  double setup_seconds_ = 0, coarsest_seconds_ = 0;
};

}  // namespace ss
