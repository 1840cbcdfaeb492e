#pragma once
// The CPU reference backend: the same operations as GpuBackend (see the interface list in
// src/kernels/gpu_backend.hpp) on std::vector<double>, OpenMP-parallel. This is the ground truth
// every GPU result is checked against.
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ss {

// Loops over at most this many entries run on one thread: waking the OpenMP team costs more than
// the work (the coarse multigrid levels solved on the host each V-cycle), and on several ranks of
// one host the woken threads compete with the other ranks' driver and MPI threads.
inline constexpr std::int64_t kCpuParallelMin = 20000;

// "CPU reference (double, N threads)": the device line of a run on this backend.
std::string cpu_device_name();

// GpuBackend's ScatterList twin: indices checked (≥ 0) once, the largest kept for the size check.
struct CpuScatterList {
  std::vector<std::int32_t> indices;
  std::int32_t max_index = -1;
  std::int64_t size() const { return std::int64_t(indices.size()); }
};

class CpuBackend {
public:
  using ScatterList = CpuScatterList;
  using Value = double;  // an element as stored (GpuBackend: float)
  using Vector = std::vector<double>;
  using IndexVector = std::vector<std::int32_t>;
  using PreciseVector = std::vector<double>;         // already double: precise = working
  static constexpr bool asynchronous_download = false;  // begin_download returns before the copy is done
  static constexpr bool working_is_precise = true;   // refinement: one correction normally
  static constexpr const char* name = "cpu";

  Vector make_vector(std::int64_t n) { return Vector(size_t(n), 0.0); }
  Vector upload(const std::vector<double>& values) { return values; }
  void upload_into(Vector& x, const std::vector<Value>& values) { x = values; }
  std::vector<double> download(const Vector& x) { return x; }
  IndexVector upload_indices(const std::vector<std::int32_t>& indices) { return indices; }

  void fill(Vector& z, double a);
  void copy(const Vector& x, Vector& z);
  void axpy(double a, const Vector& x, const Vector& y, Vector& z);
  void xpay(const Vector& x, double a, const Vector& y, Vector& z);
  void scale(double a, const Vector& x, Vector& z);
  void multiply(const Vector& x, const Vector& y, Vector& z);
  void divide(const Vector& x, const Vector& y, Vector& z);
  void linear_combination(const std::vector<double>& coefficients, const std::vector<const Vector*>& xs, Vector& z);
  void update_pair(double a, const Vector& p, const Vector& q, Vector& x, Vector& r);
  void xpay_pair(double a, const Vector& u, const Vector& w, Vector& p, Vector& s);
  void pipelined_directions(double beta, const Vector& u, const Vector& w, const Vector& m, const Vector& n, Vector& p,
                            Vector& s, Vector& q, Vector& z);
  void pipelined_iterates(double alpha, const Vector& p, const Vector& s, const Vector& q, const Vector& z, Vector& x,
                          Vector& r, Vector& u, Vector& w);

  PreciseVector make_precise(std::int64_t n) { return make_vector(n); }
  PreciseVector upload_precise(const std::vector<double>& values) { return values; }
  std::vector<double> download_precise(const PreciseVector& v) { return v; }
  void to_precise(const Vector& x, PreciseVector& v) { copy(x, v); }
  const Vector& working(const PreciseVector& v) const { return v; }
  void accumulate_precise(PreciseVector& v, const Vector& d) { axpy(1.0, d, v, v); }
  void scatter_precise(PreciseVector& v, const std::vector<std::int32_t>& idx, const std::vector<double>& values) {
    scatter(v, idx, values);
  }
  void mask_precise(const Vector& mask, PreciseVector& v) { multiply(mask, v, v); }

  double sum(const Vector& x);
  double dot(const Vector& x, const Vector& y);
  double min(const Vector& x);
  double max(const Vector& x);
  double norm2(const Vector& x);
  std::int64_t count_nonfinite(const Vector& x);
  std::vector<double> dots(const std::vector<std::pair<const Vector*, const Vector*>>& pairs, std::int64_t count = -1,
                           const Vector* weights = nullptr);

  void scatter(Vector& z, const std::vector<std::int32_t>& indices, const std::vector<double>& values);
  void scatter_add(Vector& z, const std::vector<std::int32_t>& indices, const std::vector<double>& values);
  ScatterList make_scatter_list(const std::vector<std::int32_t>& indices);
  void scatter(Vector& z, const ScatterList& at, const std::vector<double>& values);
  void scatter_add(Vector& z, const ScatterList& at, const std::vector<double>& values);
  void gather(const Vector& x, const IndexVector& indices, Vector& z);

  // Deferred dot products (GpuBackend's twin): here computed at once.
  struct PendingDots {
    std::vector<double> values;
  };
  void begin_dots(const std::vector<std::pair<const Vector*, const Vector*>>& pairs, PendingDots& pending,
                  std::int64_t count = -1, const Vector* weights = nullptr) {
    pending.values = dots(pairs, count, weights);
  }
  std::vector<double> end_dots(PendingDots& pending) { return pending.values; }

  // Asynchronous read-back (GpuBackend's twin): here the copy is made at once.
  struct PendingDownload {
    std::vector<double> values;
  };
  void begin_download(const Vector& x, PendingDownload& pending) { pending.values = x; }
  const std::vector<double>& end_download(PendingDownload& pending) { return pending.values; }

  void finish() {}
};

}  // namespace ss
