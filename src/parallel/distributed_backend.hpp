#pragma once
// A backend for a vector distributed over ranks (thesis §8.2): every rank holds its owned entries
// and a ghost layer; vector operations run locally (forwarded to the wrapped backend), reductions
// count each shared entry once — over the owned prefix [0, n_owned) when the owned entries come
// first (no extra pass: the reduction's first pass reads past n_owned as 0), else multiplied by the
// owner marker (1 on owned entries, 0 on ghosts) — reduce locally, and add the ranks' partial
// results with MPI_Allreduce in double. CG (src/solver/cg.hpp) runs unchanged on it.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <optional>
#include <vector>

#include <mpi.h>

#include "parallel/message.hpp"

namespace ss {

template <class Backend>
class DistributedBackend {
public:
  using Vector = typename Backend::Vector;
  using IndexVector = typename Backend::IndexVector;
  using PreciseVector = typename Backend::PreciseVector;
  static constexpr bool working_is_precise = Backend::working_is_precise;

  // `owner_marker`: one value per local entry, 1 where this rank owns it, else 0.
  DistributedBackend(Backend& local, const std::vector<double>& owner_marker, MPI_Comm comm)
      : local_(local), marker_(local.upload(owner_marker)), comm_(comm) {
    // Owned entries first, then ghosts: reductions run over that prefix.
    const auto first_ghost = std::find(owner_marker.begin(), owner_marker.end(), 0.0);
    if (std::all_of(owner_marker.begin(), first_ghost, [](double m) { return m == 1.0; }) &&
        std::all_of(first_ghost, owner_marker.end(), [](double m) { return m == 0.0; }))
      owned_prefix_ = std::int64_t(first_ghost - owner_marker.begin());
  }

  Backend& local() { return local_; }
  const Vector& owner_marker() const { return marker_; }

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
  double sum(const Vector& x) { return global_sum(local_.sum(masked(x))); }
  double dot(const Vector& x, const Vector& y) { return dots({{&x, &y}})[0]; }
  double norm2(const Vector& x) { return dots({{&x, &x}})[0]; }
  // Several dot products: local fused reductions of the owner-masked first factors, then ONE
  // MPI_Allreduce of all of them (single-sync CG: one global synchronisation per iteration).
  std::vector<double> dots(const std::vector<std::pair<const Vector*, const Vector*>>& pairs) {
    std::vector<double> local;
    if (owned_prefix_ >= 0) {
      local = local_.dots(pairs, owned_prefix_);
    } else {
      std::vector<std::pair<const Vector*, const Vector*>> local_pairs;
      for (size_t k = 0; k < pairs.size(); ++k) local_pairs.push_back({&masked(*pairs[k].first, k), pairs[k].second});
      local = local_.dots(local_pairs);
    }
    std::vector<double> global(local.size(), 0.0);
    const auto t0 = std::chrono::steady_clock::now();
    mpi_check(MPI_Allreduce(local.data(), global.data(), int(local.size()), MPI_DOUBLE, MPI_SUM, comm_), "MPI_Allreduce");
    allreduce_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    ++allreduces_;
    return global;
  }

  // Seconds inside MPI_Allreduce (waiting for the slowest rank included) and how many.
  double allreduce_seconds() const { return allreduce_seconds_; }
  std::int64_t allreduces() const { return allreduces_; }

private:
  // marker∘x in scratch vector `slot` (one per factor of a fused dots call).
  const Vector& masked(const Vector& x, size_t slot = 0) {
    std::optional<Vector>& scratch = scratch_[slot];
    if (!scratch || std::int64_t(scratch->size()) != std::int64_t(x.size())) scratch.emplace(local_.make_vector(std::int64_t(x.size())));
    local_.multiply(marker_, x, *scratch);
    return *scratch;
  }
  double global_sum(double local) {
    const auto t0 = std::chrono::steady_clock::now();
    double global = 0.0;
    mpi_check(MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, comm_), "MPI_Allreduce");
    allreduce_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    ++allreduces_;
    return global;
  }

  Backend& local_;
  Vector marker_;
  MPI_Comm comm_;
  std::int64_t owned_prefix_ = -1;  // n_owned when the owned entries are [0, n_owned), else -1
  std::optional<Vector> scratch_[4];
  double allreduce_seconds_ = 0;
  std::int64_t allreduces_ = 0;
};

}  // namespace ss
