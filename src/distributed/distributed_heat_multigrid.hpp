#pragma once
// The heat multigrid preconditioner over MPI ranks: the V-cycle (multigrid/v_cycle.hpp) on every
// level's pieces of nodes (heat_piece_multigrid_setup.hpp says what each level holds). This class is
// the cycle's hierarchy, level 0 the finest; its steps:
//
//     coarsest:    x = A_l⁻¹ b                (owned b gathered whole on every rank, solved there; the
//                                             base mesh, or the first level of ≤ coarse_size nodes)
//     smoothing:   x = S_l(b, from 0), x += S_l(b − A_l x)   (Chebyshev; each A_l x one
//                                             halo-overlapped apply)
//     restriction: b_{l+1} = R_l (b − A_l x)  (owned coarse rows; the fine ghosts' b − A x by halo)
//     correction:  x = x + P_l x_{l+1}        (owned fine rows; the coarse ghosts' x by halo)
//
// Vectors keep their ghost entries 0, as the distributed CG's (distributed_heat_operator.hpp).
// A transfer (DistributedTransfer) runs its owned columns on the device while its source's halo
// is in flight, then adds the ghost columns' term into its rows with a point scatter.
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#include <mpi.h>

#include "distributed/distributed_heat_operator.hpp"
#include "distributed/heat_piece_multigrid_setup.hpp"
#include "multigrid/multigrid.hpp"
#include "multigrid/v_cycle.hpp"
#include "parallel/distributed_transfer.hpp"
#include "parallel/halo.hpp"

namespace ss {

// The V-cycle over the ranks. `finest` is the CG's own distributed operator (with its halo and
// data), `coarser` the levels below it (coarse first, down to the base mesh's piece).
template <class Backend, class Operator>
class DistributedHeatMultigrid {
public:
  using Vector = typename Backend::Vector;
  using DistOp = DistributedHeatOperator<Backend, Operator>;

  struct Finest {
    DistOp& op;
    HaloExchange<Backend>& halo;
    const HeatOperatorData& data;
    const RankPiece& piece;
    const std::vector<char>& fixed;
  };

  DistributedHeatMultigrid(Backend& backend, Finest finest, const PieceHeatHierarchy& coarser,
                           const MultigridOptions& options, MPI_Comm comm)
      : backend_(backend), options_(options), comm_(comm) {
    SS_REQUIRE(!coarser.levels.empty() && coarser.maps.size() == coarser.levels.size(),
               "multigrid: " << coarser.levels.size() << " coarser levels and " << coarser.maps.size() << " maps");
    // Levels finest first: index k is coarser.levels[K − k] (k ≥ 1), K = coarser.levels.size(), down
    // to the first whose whole mesh has at most coarse_size nodes (as the serial set-up), else the base.
    const size_t K = coarser.levels.size();
    for (size_t k = 0; k <= K; ++k) {
      Level v;
      if (k == 0) {
        v.halo = &finest.halo;
        v.op = &finest.op;
        v.data = &finest.data, v.piece = &finest.piece, v.fixed = &finest.fixed;
      } else {
        const PieceHeatLevel& p = coarser.levels[K - k];
        v.data = p.data.get(), v.piece = &p.piece, v.fixed = &p.fixed;
      }
      v.size = v.data->num_nodes;
      v.owned = v.piece->part.owned_nodes;
      std::int64_t whole = v.owned;
      mpi_check(MPI_Allreduce(MPI_IN_PLACE, &whole, 1, MPI_INT64_T, MPI_SUM, comm_), "MPI_Allreduce");
      const bool coarsest = k == K || whole <= options_.coarse_size || int(k) + 1 >= options_.max_levels;
      if (k > 0) {
        v.own_halo = std::make_unique<HaloExchange<Backend>>(backend_, v.piece->links, comm_);
        v.halo = v.own_halo.get();
        if (!coarsest) {  // the coarsest is solved whole: no operator on the device
          const PieceHeatLevel& p = coarser.levels[K - k];
          v.local = std::make_unique<Operator>(make_local(p));
          std::vector<double> any(p.fixed.size(), 0.0);
          v.own_op = std::make_unique<DistOp>(backend_, *v.local, *v.halo, *p.data, p.owned(), p.fixed, any);
          v.op = v.own_op.get();
        }
      }
      v.b = backend_.make_vector(v.size);
      v.x = backend_.make_vector(v.size);
      v.ax = backend_.make_vector(v.size);
      v.d = backend_.make_vector(v.size);
      levels_.push_back(std::move(v));
      if (coarsest) break;
    }
    const Level& last = levels_.back();
    whole_.emplace(*last.data, *last.fixed, *last.piece, comm_);
    // Transfers between k (fine) and k + 1 (coarse): P from coarser.maps[K − 1 − k].
    for (size_t k = 0; k + 1 < levels_.size(); ++k) {
      Level& fine = levels_[k];
      Level& coarse = levels_[k + 1];
      const SparseMatrix p = piece_prolongation(coarser.maps[K - 1 - k], *coarse.fixed, *fine.fixed);
      fine.prolongation = std::make_unique<DistributedTransfer<Backend>>(backend_, *coarse.halo, p, fine.owned, coarse.owned);
      fine.restriction =
          std::make_unique<DistributedTransfer<Backend>>(backend_, *fine.halo, transpose(p), coarse.owned, fine.owned);
    }
  }

  // For the system a·M + s·K̃: the smoothers' numbers and the base mesh's solver (again only when
  // (a, s) changes; collective).
  void prepare(double a, double s) {
    if (prepared_ && a == a_ && s == s_) return;
    for (size_t k = 0; k + 1 < levels_.size(); ++k) {
      Level& v = levels_[k];
      const PieceSmoother sm = piece_smoother(*v.data, *v.fixed, *v.piece, a, s, options_.lanczos_steps, comm_);
      v.inverse_diagonal = backend_.upload(sm.inverse_diagonal);
      const double hi = options_.smoother_upper * sm.lambda_max, lo = hi / options_.smoother_ratio;
      v.theta = 0.5 * (hi + lo);
      v.delta = 0.5 * (hi - lo);
    }
    coarse_.reset();
    coarse_ = std::make_unique<Multigrid<CpuBackend>>(host_, whole_->matrix(a, s), false, typename Multigrid<CpuBackend>::LevelApply{},
                                                     options_);
    a_ = a, s_ = s;
    if (!prepared_) {  // one V-cycle of zeros: the kernels' first use (shader compilation) belongs to the set-up
      Vector zero = backend_.make_vector(levels_[0].size), z = backend_.make_vector(levels_[0].size);
      backend_.fill(zero, 0.0);
      v_cycle(*this, 0, zero, z);
      backend_.finish();
      coarsest_seconds_ = 0;
    }
    prepared_ = true;
  }

  // z = M⁻¹ r (one V-cycle from zero); prepare(a, s) first.
  void operator()(const Vector& r, Vector& z) { v_cycle(*this, 0, r, z); }

  int num_levels() const { return int(levels_.size()); }
  // Host time of the coarsest solves (download, gather, solve, upload) and of the coarser levels'
  // halos (the finest level's is the CG operator's own).
  double coarsest_seconds() const { return coarsest_seconds_; }
  double coarser_halo_seconds() const {
    double t = 0;
    for (const Level& v : levels_)
      if (v.own_halo) t += v.own_halo->seconds();
    return t;
  }
  std::int32_t coarsest_size() const { return whole_->size(); }  // the level solved whole

private:
  template <class Hierarchy, class V>
  friend void v_cycle(Hierarchy& h, std::size_t l, const V& b, V& x);

  struct Level {
    std::int32_t size = 0, owned = 0;
    HaloExchange<Backend>* halo = nullptr;
    std::unique_ptr<HaloExchange<Backend>> own_halo;
    DistOp* op = nullptr;
    std::unique_ptr<Operator> local;
    std::unique_ptr<DistOp> own_op;
    const HeatOperatorData* data = nullptr;
    const RankPiece* piece = nullptr;
    const std::vector<char>* fixed = nullptr;
    std::unique_ptr<DistributedTransfer<Backend>> prolongation, restriction;  // to and from the next coarser level
    Vector inverse_diagonal, b, x, ax, d;
    double theta = 1, delta = 0;
  };

  Operator make_local(const PieceHeatLevel& p) {
    const std::vector<std::int32_t> eliminated = piece_fixed_nodes(p.data->num_nodes, p.owned(), p.fixed);
    if constexpr (std::is_same_v<Backend, CpuBackend>) return Operator(p.data, eliminated);
    else return Operator(backend_, p.data, eliminated);
  }

  // The hierarchy of v_cycle.hpp (with num_levels above).
  Vector& rhs(size_t k) { return levels_[k].b; }
  Vector& solution(size_t k) { return levels_[k].x; }

  void apply(size_t k, const Vector& x, Vector& y) { levels_[k].op->apply_system(a_, s_, x, y); }

  void smooth(size_t k, const Vector& b, Vector& x, bool zero_start) {
    Level& v = levels_[k];
    chebyshev_smooth(backend_, [&](const Vector& in, Vector& out) { apply(k, in, out); }, b, v.inverse_diagonal, v.theta,
                     v.delta, options_.smoother_degree, zero_start, x, v.ax, v.d);
  }

  void restrict_residual(size_t k, const Vector& b, const Vector& x, Vector& b_coarse) {
    Vector& ax = levels_[k].ax;
    apply(k, x, ax);
    levels_[k].restriction->apply(b, b_coarse, &ax);
  }
  void prolongate_add(size_t k, const Vector& x_coarse, Vector& x) {
    levels_[k].prolongation->apply(x_coarse, x, nullptr, &x);
  }
  void after_correction(size_t, Vector&) {}  // nothing: x keeps its ghost entries 0

  // x = A_coarsest⁻¹ b: the owned values gathered whole, solved on every rank, the owned part kept.
  void coarsest_solve(size_t k, const Vector& b, Vector& x) {
    const Level& v = levels_[k];
    const auto t0 = std::chrono::steady_clock::now();
    const std::vector<double> local = backend_.download(b);
    std::vector<double> whole = whole_->gather(std::vector<double>(local.begin(), local.begin() + v.owned));
    std::vector<double> answer(whole.size(), 0.0);
    (*coarse_)(whole, answer);
    std::vector<double> mine(size_t(v.size), 0.0);
    for (std::int32_t i = 0; i < v.owned; ++i) mine[size_t(i)] = answer[size_t(v.piece->part.node_global[size_t(i)])];
    set_values(backend_, x, mine);
    coarsest_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }

  Backend& backend_;
  MultigridOptions options_;
  MPI_Comm comm_;
  std::optional<WholeBaseSystem> whole_;  // the coarsest level, whole on every rank
  CpuBackend host_;
  std::unique_ptr<Multigrid<CpuBackend>> coarse_;
  std::vector<Level> levels_;
  double a_ = 0, s_ = 0;
  bool prepared_ = false;
  double coarsest_seconds_ = 0;
};

}  // namespace ss
