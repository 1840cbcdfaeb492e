#pragma once
// The GPU backend: streaming arrays (Field) and fragment-shader kernels. Same interface as
// CpuBackend (src/cpu/cpu_backend.hpp), so solvers are written once as templates over a backend:
//
//   Vector make_vector(n)                 Vector upload(host)           host download(v)
//   upload_into(x, values)                x = values (Value: as stored, float), into x's storage
//   IndexVector upload_indices(idx)       fill(z, a)                    copy(x, z)
//   axpy(a, x, y, z)      z = y + a·x     xpay(x, a, y, z)  z = x + a·y
//   scale(a, x, z)        z = a·x         multiply(x, y, z) z = x∘y     divide(x, y, z) z = x/y
//   linear_combination({c_k}, {x_k}, z)   z = Σ c_k·x_k (1..4 terms)
//   update_pair(a, p, q, x, r)            x = x + a·p, r = r − a·q
//   xpay_pair(a, u, w, p, s)              p = u + a·p, s = w + a·s
//                                         (both: one pass with two outputs, or two passes: see
//                                         GpuOptions::two_output_updates)
//   sum(x) dot(x, y) min(x) max(x) norm2(x) (= Σ x²) count_nonfinite(x)
//   dots({{a0, b0}, ..})                  up to four dot products, one reduction, one read-back
//
// Precise vectors (the double-precision side of mixed-precision refinement, solver/refinement.hpp):
//   PreciseVector                         doubles; on the GPU a float pair (hi + lo, ~48 bits)
//   make_precise(n) upload_precise(host) download_precise(v)    to_precise(x, v)  v = x
//   working(v)                            the working-precision vector nearest v (GPU: hi)
//   accumulate_precise(v, d)              v = v + d (fp64)
//   scatter_precise(v, idx, values)       v[idx[k]] = values[k] (exact doubles)
//   mask_precise(m, v)                    v = m∘v for a 0/1 mask m
//   scatter(z, idx, values)               z[idx[k]] = values[k] (later k wins for repeated idx)
//   scatter_add(z, idx, values)           z[idx[k]] += values[k] (repeats accumulate)
//   make_scatter_list(idx)                idx checked once and kept on the device; scatter and
//                                         scatter_add then take the list and upload the values only
//   gather(x, idx, z)                     z[i] = x[idx[i]]
//   dots(pairs, count)                    the dot products over the first `count` elements only
//   dots(pairs, -1, &w)                   Σ w_i a_i b_i (w: a distributed vector's owner marker),
//                                         the weight fused into the first pass
//   begin_dots(pairs, pending[, count, w]) the same reduction queued, its read-back begun; returns at once
//   end_dots(pending)                     waits for that read-back only (kernels queued after
//                                         begin_dots keep running) and returns the dot products
//   pipelined_directions(β, u, w, m, n, p, s, q, z)   p = u + β·p, s = w + β·s, q = m + β·q, z = n + β·z
//   pipelined_iterates(α, p, s, q, z, x, r, u, w)     x += α·p, r −= α·s, u −= α·q, w −= α·z
//                                         (pipelined CG's recurrences, solver/cg.hpp: one pass with
//                                         four outputs each, on both launch paths)
//   begin_download(x, pending)            queue a copy of x to the host and return at once
//   end_download(pending)                 wait for that copy (not for work queued after it); its
//                                         values are Value (GPU: float, as stored; CPU: double), the
//                                         type a listed scatter takes: a halo moves them unconverted
//
// Outputs may alias inputs (z = y in axpy): the backend renders into a ping-pong partner and swaps.
//
// Every kernel (element-wise, reductions, and those of operators built on launch()) runs on the
// launch path of GpuOptions: fragment shaders (GpuOptions' default, the thesis' method) or compute
// shaders with image stores, from the same kernel file (`--launch auto` picks one per device:
// kernels/launch_choice.hpp). Scatter is a GL_POINTS draw on both paths.
#include <cstdint>
#include <vector>

#include "field/field.hpp"
#include "kernels/launcher.hpp"
#include "kernels/program.hpp"

namespace ss {

class GlContext;

// A read-back in flight (GpuBackend::begin_download): a pixel-pack buffer the texture is copied into
// and a fence behind the copy. Reused from one read-back to the next.
class PendingDownload {
public:
  PendingDownload() = default;
  PendingDownload(PendingDownload&& other) noexcept;
  PendingDownload& operator=(PendingDownload&& other) noexcept;
  PendingDownload(const PendingDownload&) = delete;
  PendingDownload& operator=(const PendingDownload&) = delete;
  ~PendingDownload();

private:
  friend class GpuBackend;
  BufferName buffer_;
  std::size_t buffer_bytes_ = 0;
  GLsync fence_ = nullptr;
  std::int64_t n_ = 0;
  std::vector<float> values_;  // the device's floats as they are
};

// A dot-product reduction in flight (GpuBackend::begin_dots): its last pass's partial sums being
// read back.
class PendingDots {
private:
  friend class GpuBackend;
  PendingDownload download_;
  std::size_t pairs_ = 0;
};

// Element indices a scatter writes to, checked (≥ 0) and uploaded once: a halo's ghost entries, the
// boundary rows of a halo term. scatter(z, list, values) then moves only the values to the device
// and checks only the largest index against z.
class ScatterList {
public:
  std::int64_t size() const { return count_; }

private:
  friend class GpuBackend;
  BufferName indices_;
  std::int64_t count_ = 0;
  std::int32_t max_index_ = -1;
  // The compute path's form (made on that path only): (element, position in the values) pairs,
  // the last value of a repeated element only, grouped by element % 4 (a texel's channel with
  // RGBA packing): group c is [group_start_[c], group_start_[c + 1]).
  BufferName targets_;
  std::int64_t group_start_[5] = {0, 0, 0, 0, 0};
};

// How the backend launches kernels (see LaunchPath in kernel_source.hpp).
struct GpuOptions {
  LaunchPath launch = LaunchPath::fragment;
  int local_size_x = 16, local_size_y = 16;  // compute work-group size
  // update_pair / xpay_pair as one pass with two outputs (1) or two single-output passes (0); -1:
  // by launch path. On datacenter GPUs one multiple-render-target pass is faster than two passes on
  // the compute path but not on the fragment path (docs/performance.md), so -1 picks two passes
  // for fragment and one for compute.
  int two_output_updates = -1;
  // Reductions on the compute path with each work group combining its invocations' partial values
  // in shared memory (1): one pass folds f×f texels an invocation times the group, so a field of
  // up to ~67M texels needs one pass and a read-back of at most 4·R_min² texels; (0) the passes of
  // the fragment path (f×f texels a pass). -1: by launch path (1 for compute).
  int group_reductions = -1;
};

// A double vector on the GPU as two float fields of the same layout: value = hi + lo with
// hi = float(value) and lo = float(value − hi), ~48 significant bits. Kernels read both, compute in
// fp64 (GLSL 4.0 `double`) and write both back (two outputs).
struct PreciseField {
  Field hi, lo;
  std::int64_t size() const { return hi.size(); }
};

class GpuBackend {
public:
  using Vector = Field;
  using IndexVector = IndexField;
  using PreciseVector = PreciseField;
  using PendingDownload = ss::PendingDownload;
  using PendingDots = ss::PendingDots;
  using ScatterList = ss::ScatterList;
  using Value = float;  // an element as stored: what end_download returns and a listed scatter takes
  static constexpr bool asynchronous_download = true;  // begin_download returns before the copy is done
  static constexpr bool working_is_precise = false;  // float32: refinement needs several corrections
  static constexpr const char* name = "gpu";

  // `options.max_size` is taken from the context; policy, R_min and packing from `options`; the
  // launch path from `gpu_options`.
  GpuBackend(const GlContext& context, LayoutOptions options = {}, GpuOptions gpu_options = {});

  const LayoutOptions& layout_options() const { return options_; }
  const GpuOptions& gpu_options() const { return gpu_options_; }
  LaunchPath launch_path() const { return gpu_options_.launch; }
  Layout layout_for(std::int64_t n) const { return make_layout(n, options_); }

  Vector make_vector(std::int64_t n);
  Vector upload(const std::vector<double>& values);
  Vector upload_low_parts(const std::vector<double>& values);  // v − float(v) per value: a float pair's lo
  // x = values (x.size() of them, as stored), into x's own texture: no new vector.
  void upload_into(Vector& x, const std::vector<Value>& values) { x.upload(values); }
  std::vector<double> download(const Vector& x);
  IndexVector upload_indices(const std::vector<std::int32_t>& indices);

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
  bool two_output_updates() const;

  PreciseVector make_precise(std::int64_t n);
  PreciseVector upload_precise(const std::vector<double>& values);
  std::vector<double> download_precise(const PreciseVector& v);
  void to_precise(const Vector& x, PreciseVector& v);
  const Vector& working(const PreciseVector& v) const { return v.hi; }
  void accumulate_precise(PreciseVector& v, const Vector& d);
  void scatter_precise(PreciseVector& v, const std::vector<std::int32_t>& indices, const std::vector<double>& values);
  void mask_precise(const Vector& mask, PreciseVector& v);

  double sum(const Vector& x);
  double dot(const Vector& x, const Vector& y);
  double min(const Vector& x);
  double max(const Vector& x);
  double norm2(const Vector& x);
  std::int64_t count_nonfinite(const Vector& x);
  std::vector<double> dots(const std::vector<std::pair<const Vector*, const Vector*>>& pairs, std::int64_t count = -1,
                           const Vector* weights = nullptr);
  void begin_dots(const std::vector<std::pair<const Vector*, const Vector*>>& pairs, PendingDots& pending,
                  std::int64_t count = -1, const Vector* weights = nullptr);
  std::vector<double> end_dots(PendingDots& pending);

  void scatter(Vector& z, const std::vector<std::int32_t>& indices, const std::vector<double>& values);
  void scatter_add(Vector& z, const std::vector<std::int32_t>& indices, const std::vector<double>& values);
  ScatterList make_scatter_list(const std::vector<std::int32_t>& indices);
  void scatter(Vector& z, const ScatterList& at, const std::vector<float>& values);
  void scatter_add(Vector& z, const ScatterList& at, const std::vector<float>& values);
  void gather(const Vector& x, const IndexVector& indices, Vector& z);

  // Asynchronous read-back: begin_download queues the copy of x into `pending`'s pixel buffer and a
  // fence, flushes, and returns; end_download waits for that fence only (kernels queued after
  // begin_download keep running) and returns x's values (the floats as stored: no conversion).
  void begin_download(const Vector& x, PendingDownload& pending);
  const std::vector<float>& end_download(PendingDownload& pending);

  // Runs kernel `file` (shaders/) once per texel of `outputs` (same layout; several = MRT).
  // Inputs are any textures (fields, index fields, mesh tables); an output that is also an input is
  // rendered into a ping-pong partner and swapped in. This is how operators built on the backend
  // (mesh operators, solvers) launch their own kernels.
  void launch(const char* file, const std::vector<KernelInput>& inputs, const std::vector<Vector*>& outputs,
              const std::vector<KernelUniform>& uniforms = {});
  // The same for kernels that write integer fields (KernelSpec::int_output): mesh connectivity
  // made on the GPU. Outputs must not be inputs. Their min/max are set to [lo, hi], the range the
  // caller guarantees (gather bounds checks read it).
  void launch_indices(const char* file, const std::vector<KernelInput>& inputs, const std::vector<IndexVector*>& outputs,
                      const std::vector<KernelUniform>& uniforms, std::int32_t lo, std::int32_t hi);
  static KernelInput in(const char* uniform, const Field& field) { return {uniform, &field.texture()}; }
  static KernelInput in(const char* uniform, const IndexField& field) { return {uniform, &field.texture()}; }

  // Blocks until the GPU has finished all submitted work (for timing).
  void finish();
  // Texels per side combined by one reduction pass without work-group reductions: 2 is the
  // thesis' quarter pass, 4 (default) does two quarter levels per pass.
  void set_reduction_fold(int fold);
  std::size_t programs_compiled() const { return programs_.size(); }
  // Kernel passes launched and blocking read-backs made so far (Launcher's counts).
  std::int64_t passes() const { return launcher_.passes(); }
  std::int64_t blocking_reads() const { return launcher_.blocking_reads(); }
  // Reductions read back behind later work (end_dots) so far.
  std::int64_t deferred_reads() const { return deferred_reads_; }

private:
  enum class Combine { sum, min, max };
  // One reduction pass: each value of the grid combines fold×fold input texels; the output is the
  // grid itself, or (work-group reductions) one texel per work group of it.
  struct ReductionPass {
    int fold;
    glm::ivec2 grid, out;
  };
  bool group_reductions() const;
  ReductionPass reduction_pass(int in_w, int in_h) const;
  // The passes stop once their output has at most this many texels (read back and finished in double).
  std::int64_t reduction_final_texels() const;
  // Runs the pass into `out` (made by the caller at pass.out's size).
  void run_reduction_pass(Program& program, const std::vector<KernelInput>& inputs, Texture& out,
                          const ReductionPass& pass, int elements_per_texel);

  // First reduction pass with `first` (reads the inputs), then `next` passes until at most
  // reduction_final_texels() are left; those are read back and combined in double.
  double reduce(const char* first, const char* next, const Vector& x, const std::vector<KernelInput>& inputs,
                Combine combine);
  // The passes of dots(): the last pass's texture of RGBA partial sums (channel k: pair k's).
  Texture reduce_dots(const std::vector<std::pair<const Vector*, const Vector*>>& pairs, std::int64_t count,
                      const Vector* weights);
  // Queues the copy of `texture`'s first `n` floats (`channels` a texel) into `pending`'s buffer and a fence.
  void begin_read(const Texture& texture, int channels, std::int64_t n, PendingDownload& pending);
  void require_same_size(const Vector& a, const Vector& b, const char* op) const;
  Program& program(const char* file, int elements_per_texel, int outputs, bool vec4_output = false,
                   bool int_output = false, GroupReduce group_reduce = GroupReduce::none);
  void set_uniforms(Program& program, const std::vector<KernelUniform>& uniforms);
  // z[indices[k]] = values[k], or += with `add` (additive blending): GL_POINTS, one per value, the
  // indices read from `indices` (a buffer of ints, each in [0, z.size()): checked by the caller).
  void draw_points(Vector& z, const BufferName& indices, const std::vector<float>& values, bool add, const char* what);
  // The same from host indices, each checked against z.
  void draw_listed_points(Vector& z, const std::vector<std::int32_t>& indices, const std::vector<double>& values,
                          bool add, const char* what);
  void dispatch_scatter(Vector& z, const ScatterList& at, const std::vector<float>& values);
  static void upload_scatter_targets(ScatterList& list, const std::vector<std::int32_t>& indices);
  void require_scatter_fits(const Vector& z, const ScatterList& at, std::size_t values, const char* what) const;

  LayoutOptions options_;
  GpuOptions gpu_options_;
  int reduction_fold_ = 4;
  std::int64_t deferred_reads_ = 0;
  ProgramCache programs_;
  Launcher launcher_;
  TexturePool pool_;
  std::unique_ptr<Program> scatter_program_;
  BufferName scatter_indices_;  // the indices of scatter(z, indices, values), uploaded per call
  BufferName scatter_values_;
  std::vector<float> scatter_floats_;
  VertexArrayName scatter_vao_;
  std::unique_ptr<Program> scatter_compute_[2];  // the compute path's scatter into R32F, RGBA32F fields
  BufferName scatter_compute_values_;
};

}  // namespace ss
