#pragma once
// A backend for a vector distributed over ranks (thesis §8.2): every rank holds its owned entries
// and a ghost layer; vector operations run locally (forwarded to the wrapped backend), reductions
// count each shared entry once — over the owned prefix [0, n_owned) when the owned entries come
// first (no extra pass: the reduction's first pass reads past n_owned as 0), else multiplied by the
// owner marker (1 on owned entries, 0 on ghosts) — reduce locally, and add the ranks' partial
// results with MPI_Allreduce in double. CG (src/solver/cg.hpp) runs unchanged on it.
// Several entity kinds (flow: faces, cells, edges) each have a marker; a vector's kind is told by
// its length, so the kinds' local counts must differ (checked). max/min run over owned entries
// (ghosts lifted or lowered out of the way) and MPI_MAX/MPI_MIN.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <optional>
#include <type_traits>
#include <vector>

#include <mpi.h>

#include "parallel/gpu_select.hpp"
#include "parallel/halo.hpp"
#include "parallel/message.hpp"
#include "util/error.hpp"

namespace ss {

template <class Backend>
class DistributedBackend {
public:
  using Vector = typename Backend::Vector;
  using IndexVector = typename Backend::IndexVector;
  using PreciseVector = typename Backend::PreciseVector;
  using PendingDots = typename Backend::PendingDots;
  static constexpr bool working_is_precise = Backend::working_is_precise;

  // `owner_marker`: one value per local entry, 1 where this rank owns it, else 0.
  DistributedBackend(Backend& local, const std::vector<double>& owner_marker, MPI_Comm comm)
      : DistributedBackend(local, std::vector<std::vector<double>>{owner_marker}, comm) {}
  // One marker per entity kind; the kinds' lengths must differ.
  DistributedBackend(Backend& local, const std::vector<std::vector<double>>& owner_markers, MPI_Comm comm)
      : local_(local), comm_(comm) {
    for (const std::vector<double>& m : owner_markers) {
      for (const Kind& k : kinds_)
        SS_REQUIRE(k.size != std::int64_t(m.size()), "distributed vectors: two entity kinds have "
                                                         << m.size() << " local entries on one rank (use fewer ranks)");
      Kind kind{std::int64_t(m.size()), local.upload(m), std::nullopt, std::nullopt, -1, nullptr};
      // Owned entries first, then ghosts: reductions run over that prefix.
      const auto first_ghost = std::find(m.begin(), m.end(), 0.0);
      if (std::all_of(m.begin(), first_ghost, [](double v) { return v == 1.0; }) &&
          std::all_of(first_ghost, m.end(), [](double v) { return v == 0.0; }))
        kind.owned_prefix = std::int64_t(first_ghost - m.begin());
      kinds_.push_back(std::move(kind));
    }
  }

  Backend& local() { return local_; }
  static constexpr bool distributed = true;

  // The halo exchange of the entity kind with `length` local entries (update_ghosts uses it).
  void attach_halo(std::int64_t length, HaloExchange<Backend>& halo) {
    for (Kind& k : kinds_)
      if (k.size == length) return void(k.halo = &halo);
    SS_THROW("distributed vectors: no entity kind has " << length << " local entries");
  }
  // The halo of the entity kind with `length` local entries.
  HaloExchange<Backend>& halo(std::int64_t length) {
    for (Kind& k : kinds_)
      if (k.size == length) {
        SS_REQUIRE(k.halo, "distributed vectors: no halo for the kind with " << length << " entries");
        return *k.halo;
      }
    SS_THROW("distributed vectors: no entity kind has " << length << " local entries");
  }
  // The owner marker of the entity kind with `length` local entries: 1 on owned entries, 0 on ghosts.
  const Vector& owner_marker(std::int64_t length) const {
    for (const Kind& k : kinds_)
      if (k.size == length) return k.marker;
    SS_THROW("distributed vectors: no entity kind has " << length << " local entries");
  }
  // x's ghost entries from their owners (the halo of x's entity kind).
  void update_ghosts(Vector& x) { update_ghosts({&x}); }
  // The outputs' ghost entries from their owners, the exchange overlapped with the work that makes
  // them (thesis §8.3): send(fields) computes the outputs' values at the halo's send entries (owned
  // rows, exact from the inputs alone) straight into its send fields, one per output; full() then
  // computes every local row while those values are read back and the messages fly; the received
  // values go into the outputs' ghost entries last.
  template <class Send, class Full>
  void overlapped_update(std::initializer_list<Vector*> outputs, Send&& send, Full&& full) {
    HaloExchange<Backend>& h = halo_of(**outputs.begin());
    for (Vector* y : outputs)
      SS_REQUIRE(&halo_of(*y) == &h, "distributed vectors: an overlapped halo update mixes entity kinds");
    h.begin_computed(int(outputs.size()), send);
    ++overlapped_updates_;
    full();
    if constexpr (Backend::asynchronous_download) gl_flush();  // the full pass starts now, not at the next wait
    for (Vector* y : outputs) owned_final(*y);
    h.finish();
    int j = 0;
    for (Vector* y : outputs) h.scatter(*y, j++);
  }
  // The same for several vectors of one kind, in one round trip (one message per neighbour).
  void update_ghosts(std::initializer_list<Vector*> xs) {
    HaloExchange<Backend>& halo = halo_of(**xs.begin());
    for (Vector* x : xs) SS_REQUIRE(&halo_of(*x) == &halo, "distributed vectors: a batched halo update mixes entity kinds");
    halo.begin(std::vector<const Vector*>(xs.begin(), xs.end()));
    for (Vector* x : xs) owned_final(*x);
    halo.finish();
    int j = 0;
    for (Vector* x : xs) halo.scatter(*x, j++);
  }

  // Work to queue once y's owned entries are final: inside the next halo update of y's ghosts
  // (after the passes that make y, before the wait for its messages), or at run_when_owned_final()
  // when no update of y came. The textbook CG queues its p·Ap reduction there for an operator marked
  // halo_last (solver/cg.hpp): one wait for the product's halo and the dot product.
  void when_owned_final(const Vector& y, std::function<void()> work) {
    SS_REQUIRE(!owned_final_work_, "distributed vectors: work is already waiting for a vector's owned entries");
    owned_final_vector_ = &y;
    owned_final_work_ = std::move(work);
  }
  void run_when_owned_final() {
    if (!owned_final_work_) return;
    std::function<void()> work = std::move(owned_final_work_);
    forget_when_owned_final();
    work();
  }
  void forget_when_owned_final() {
    owned_final_work_ = nullptr;
    owned_final_vector_ = nullptr;
  }
  const Vector& owner_marker() const { return kinds_.front().marker; }
  // The owner marker of x's entity kind (1 on owned entries, 0 on ghosts).
  const Vector& owner_marker_of(const Vector& x) { return kind_of(x).marker; }

  // Whether the local operator `op(x, y)` already gives every ghost entry of y its owner's value,
  // bit for bit, when x is right on every local entry — a row whose whole stencil is on the piece,
  // in the same order as on its owner's (the curl: a face's three edges; a face's value from its
  // edges; never a ghost next to a cut face). Then the halo update after `op` is redundant and
  // leaving it out saves a round trip. Tried on three inputs (owned entries pseudo-random, ghosts
  // from their owners), the output's ghost entries compared with the exchanged ones (the exchange
  // writes no other); the answer is every rank's (collective: every rank asks for the same
  // operators in the same order). One rank has no ghosts: always exact, nothing tried.
  template <class Op>
  bool ghosts_exact_without_exchange(std::int64_t in_size, std::int64_t out_size, Op&& op) {
    int rank = 0, ranks = 1;
    MPI_Comm_rank(comm_, &rank);
    MPI_Comm_size(comm_, &ranks);
    if (ranks == 1) return true;
    const std::vector<std::int32_t>& ghosts = halo(out_size).recv_list();
    std::optional<IndexVector> ghost_ids;  // none: no ghost of this kind on this rank
    std::optional<Vector> ghost_values, ghost_exchanged;
    if (!ghosts.empty()) {
      ghost_ids.emplace(local_.upload_indices(ghosts));
      ghost_values.emplace(local_.make_vector(std::int64_t(ghosts.size())));
      ghost_exchanged.emplace(local_.make_vector(std::int64_t(ghosts.size())));
    }
    bool exact = true;
    std::uint64_t state = 0x9e3779b97f4a7c15ull * std::uint64_t(rank + 1);
    for (int trial = 0; trial < 3; ++trial) {  // every trial on every rank: the halo updates are collective
      std::vector<double> values(static_cast<size_t>(in_size));
      for (double& v : values) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        v = 0.5 + double(state >> 11) * 0x1.0p-53;  // in [0.5, 1.5): no zeros to hide a missing entry
      }
      Vector x = local_.upload(values), y = local_.make_vector(out_size), exchanged = local_.make_vector(out_size);
      update_ghosts(x);
      op(x, y);
      local_.copy(y, exchanged);
      update_ghosts(exchanged);
      if (!ghost_ids) continue;
      local_.gather(y, *ghost_ids, *ghost_values);
      local_.gather(exchanged, *ghost_ids, *ghost_exchanged);
      exact = exact && local_.download(*ghost_values) == local_.download(*ghost_exchanged);
    }
    int mine = exact ? 1 : 0, all = 0;
    mpi_check(MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_LAND, comm_), "MPI_Allreduce");
    return all != 0;
  }

  Vector make_vector(std::int64_t n) { return local_.make_vector(n); }
  Vector upload(const std::vector<double>& v) { return local_.upload(v); }
  std::vector<double> download(const Vector& x) { return local_.download(x); }
  IndexVector upload_indices(const std::vector<std::int32_t>& i) { return local_.upload_indices(i); }
  void fill(Vector& z, double a) { local_.fill(z, a); }
  void copy(const Vector& x, Vector& z) { local_.copy(x, z); }
  void axpy(double a, const Vector& x, const Vector& y, Vector& z) { local_.axpy(a, x, y, z); }
  void xpay(const Vector& x, double a, const Vector& y, Vector& z) { local_.xpay(x, a, y, z); }
  void scale(double a, const Vector& x, Vector& z) { local_.scale(a, x, z); }
  void multiply(const Vector& x, const Vector& y, Vector& z) { local_.multiply(x, y, z); }
  void divide(const Vector& x, const Vector& y, Vector& z) { local_.divide(x, y, z); }
  void linear_combination(const std::vector<double>& c, const std::vector<const Vector*>& xs, Vector& z) {
    local_.linear_combination(c, xs, z);
  }
  void update_pair(double a, const Vector& p, const Vector& q, Vector& x, Vector& r) { local_.update_pair(a, p, q, x, r); }
  void xpay_pair(double a, const Vector& u, const Vector& w, Vector& p, Vector& s) { local_.xpay_pair(a, u, w, p, s); }
  void pipelined_directions(double beta, const Vector& u, const Vector& w, const Vector& m, const Vector& n, Vector& p,
                            Vector& s, Vector& q, Vector& z) {
    local_.pipelined_directions(beta, u, w, m, n, p, s, q, z);
  }
  void pipelined_iterates(double alpha, const Vector& p, const Vector& s, const Vector& q, const Vector& z, Vector& x,
                          Vector& r, Vector& u, Vector& w) {
    local_.pipelined_iterates(alpha, p, s, q, z, x, r, u, w);
  }
  PreciseVector make_precise(std::int64_t n) { return local_.make_precise(n); }
  PreciseVector upload_precise(const std::vector<double>& v) { return local_.upload_precise(v); }
  std::vector<double> download_precise(const PreciseVector& v) { return local_.download_precise(v); }
  void to_precise(const Vector& x, PreciseVector& v) { local_.to_precise(x, v); }
  const Vector& working(const PreciseVector& v) const { return local_.working(v); }
  void accumulate_precise(PreciseVector& v, const Vector& d) { local_.accumulate_precise(v, d); }
  void scatter_precise(PreciseVector& v, const std::vector<std::int32_t>& idx, const std::vector<double>& values) {
    local_.scatter_precise(v, idx, values);
  }
  void mask_precise(const Vector& mask, PreciseVector& v) { local_.mask_precise(mask, v); }
  void scatter(Vector& z, const std::vector<std::int32_t>& idx, const std::vector<double>& v) { local_.scatter(z, idx, v); }
  void gather(const Vector& x, const IndexVector& idx, Vector& z) { local_.gather(x, idx, z); }
  void finish() { local_.finish(); }

  // Σ over owned entries of all ranks.
  double sum(const Vector& x) { return global_reduce(local_.sum(masked(x)), MPI_SUM); }
  double dot(const Vector& x, const Vector& y) { return dots({{&x, &y}})[0]; }
  double norm2(const Vector& x) { return dots({{&x, &x}})[0]; }
  // Largest and smallest owned entry of all ranks.
  double max(const Vector& x) { return global_reduce(local_.max(owned_only(x, -kFar)), MPI_MAX); }
  double min(const Vector& x) { return global_reduce(local_.min(owned_only(x, kFar)), MPI_MIN); }
  // Several dot products: one local fused reduction over the owned entries (the owned prefix, or
  // every entry weighted by the owner marker), then ONE MPI_Allreduce of all of them (single-sync
  // CG: one global synchronisation per iteration).
  std::vector<double> dots(const std::vector<std::pair<const Vector*, const Vector*>>& pairs) {
    const Kind& kind = kind_of(*pairs.front().first);
    return sum_of_ranks(kind.owned_prefix >= 0 ? local_.dots(pairs, kind.owned_prefix)
                                               : local_.dots(pairs, -1, &kind.marker));
  }
  // The same, deferred (pipelined CG): begin_dots queues the local reduction and returns; end_dots
  // waits for its read-back and makes the one MPI_Allreduce. Kernels queued in between run meanwhile.
  void begin_dots(const std::vector<std::pair<const Vector*, const Vector*>>& pairs, PendingDots& pending) {
    const Kind& kind = kind_of(*pairs.front().first);
    if (kind.owned_prefix >= 0) local_.begin_dots(pairs, pending, kind.owned_prefix);
    else local_.begin_dots(pairs, pending, -1, &kind.marker);
  }
  std::vector<double> end_dots(PendingDots& pending) { return sum_of_ranks(local_.end_dots(pending)); }

  // Each of `xs`, whole local vectors of the same length on every rank (not entity kinds: a rank's
  // share of a vector every rank holds whole), replaced by its sum over the ranks: read back, one
  // MPI_Allreduce of them all, uploaded (on one rank: nothing to do).
  void sum_over_ranks(std::initializer_list<Vector*> xs) {
    int ranks = 1;
    MPI_Comm_size(comm_, &ranks);
    if (ranks == 1) return;
    sum_pending_.resize(std::max(sum_pending_.size(), xs.size()));
    size_t j = 0;
    for (Vector* x : xs) local_.begin_download(*x, sum_pending_[j++]);
    std::vector<typename Backend::Value> values;
    std::vector<size_t> sizes;
    j = 0;
    for (size_t k = 0; k < xs.size(); ++k) {
      const auto& v = local_.end_download(sum_pending_[j++]);
      values.insert(values.end(), v.begin(), v.end());
      sizes.push_back(v.size());
    }
    const MPI_Datatype type = std::is_same_v<typename Backend::Value, float> ? MPI_FLOAT : MPI_DOUBLE;
    const auto t0 = std::chrono::steady_clock::now();
    mpi_check(MPI_Allreduce(MPI_IN_PLACE, values.data(), int(values.size()), type, MPI_SUM, comm_), "MPI_Allreduce");
    allreduce_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    ++allreduces_, ++rank_sums_;
    size_t begin = 0;
    j = 0;
    for (Vector* x : xs) {
      const std::vector<typename Backend::Value> sum(values.begin() + std::ptrdiff_t(begin),
                                                     values.begin() + std::ptrdiff_t(begin + sizes[j]));
      local_.upload_into(*x, sum);
      begin += sizes[j++];
    }
  }

  // Seconds inside MPI_Allreduce (waiting for the slowest rank included) and how many.
  double allreduce_seconds() const { return allreduce_seconds_; }
  std::int64_t allreduces() const { return allreduces_; }
  // Round trips made by overlapped_update (the halos' exchanges() count every round trip).
  std::int64_t overlapped_updates() const { return overlapped_updates_; }
  // Round trips made by sum_over_ranks (also counted in allreduces()).
  std::int64_t rank_sums() const { return rank_sums_; }
  // when_owned_final's work that ran inside a halo update (not after it).
  std::int64_t queued_in_halo_updates() const { return queued_in_halo_updates_; }

private:
  // Ghost entries of max/min inputs move to ∓kFar (finite in float32).
  static constexpr double kFar = 3.0e38;
  struct Kind {
    std::int64_t size = 0;
    Vector marker;
    std::optional<Vector> ghost_unit;  // 1 − marker (made on first use by max/min)
    std::optional<Vector> scratch;     // max/min
    std::int64_t owned_prefix = -1;    // n_owned when the owned entries are [0, n_owned), else -1
    HaloExchange<Backend>* halo = nullptr;
  };
  void owned_final(const Vector& y) {
    if (!owned_final_work_ || owned_final_vector_ != &y) return;
    ++queued_in_halo_updates_;
    run_when_owned_final();
  }
  HaloExchange<Backend>& halo_of(const Vector& x) {
    Kind& kind = kind_of(x);
    SS_REQUIRE(kind.halo, "distributed vectors: no halo for the kind with " << kind.size << " entries");
    return *kind.halo;
  }
  Kind& kind_of(const Vector& x) {
    for (Kind& k : kinds_)
      if (k.size == std::int64_t(x.size())) return k;
    SS_THROW("distributed vectors: no entity kind has " << x.size() << " local entries");
  }
  // marker∘x in a scratch vector.
  const Vector& masked(const Vector& x) {
    const Kind& kind = kind_of(x);
    std::optional<Vector>& scratch = scratch_;
    if (!scratch || std::int64_t(scratch->size()) != std::int64_t(x.size())) scratch.emplace(local_.make_vector(std::int64_t(x.size())));
    local_.multiply(kind.marker, x, *scratch);
    return *scratch;
  }
  // x on owned entries, `far` on ghosts: marker∘x + far·(1 − marker).
  const Vector& owned_only(const Vector& x, double far) {
    Kind& kind = kind_of(x);
    if (!kind.ghost_unit) {
      kind.ghost_unit.emplace(local_.make_vector(kind.size));
      local_.fill(*kind.ghost_unit, 1.0);
      local_.axpy(-1.0, kind.marker, *kind.ghost_unit, *kind.ghost_unit);
      kind.scratch.emplace(local_.make_vector(kind.size));
    }
    local_.multiply(kind.marker, x, *kind.scratch);
    local_.axpy(far, *kind.ghost_unit, *kind.scratch, *kind.scratch);
    return *kind.scratch;
  }
  std::vector<double> sum_of_ranks(const std::vector<double>& local) {
    std::vector<double> global(local.size(), 0.0);
    const auto t0 = std::chrono::steady_clock::now();
    mpi_check(MPI_Allreduce(local.data(), global.data(), int(local.size()), MPI_DOUBLE, MPI_SUM, comm_), "MPI_Allreduce");
    allreduce_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    ++allreduces_;
    return global;
  }
  double global_reduce(double local, MPI_Op op) {
    const auto t0 = std::chrono::steady_clock::now();
    double global = 0.0;
    mpi_check(MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, op, comm_), "MPI_Allreduce");
    allreduce_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    ++allreduces_;
    return global;
  }

  Backend& local_;
  MPI_Comm comm_;
  std::vector<Kind> kinds_;
  std::optional<Vector> scratch_;
  double allreduce_seconds_ = 0;
  std::int64_t allreduces_ = 0;
  std::int64_t overlapped_updates_ = 0;
  std::int64_t rank_sums_ = 0;
  std::int64_t queued_in_halo_updates_ = 0;
  std::vector<typename Backend::PendingDownload> sum_pending_;
  const Vector* owned_final_vector_ = nullptr;  // when_owned_final's vector and work
  std::function<void()> owned_final_work_;
};

}  // namespace ss
