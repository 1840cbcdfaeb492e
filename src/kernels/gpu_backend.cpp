#include "kernels/gpu_backend.hpp"

#include <algorithm>
#include <initializer_list>
#include <cmath>
#include <limits>
#include <utility>

#include "gl/check.hpp"
#include "gl/context.hpp"
#include "util/error.hpp"

namespace ss {

GpuBackend::GpuBackend(const GlContext& context, LayoutOptions options, GpuOptions gpu_options)
    : options_(options), gpu_options_(gpu_options) {
  options_.max_size = context.info().max_texture_size;
  if (gpu_options_.launch == LaunchPath::compute) {
    const int lx = gpu_options_.local_size_x, ly = gpu_options_.local_size_y;
    GLint max_x = 0, max_y = 0, max_invocations = 0;
    glGetIntegeri_v(GL_MAX_COMPUTE_WORK_GROUP_SIZE, 0, &max_x);
    glGetIntegeri_v(GL_MAX_COMPUTE_WORK_GROUP_SIZE, 1, &max_y);
    glGetIntegerv(GL_MAX_COMPUTE_WORK_GROUP_INVOCATIONS, &max_invocations);
    SS_REQUIRE(lx >= 1 && ly >= 1 && lx <= max_x && ly <= max_y && std::int64_t(lx) * ly <= max_invocations,
               "compute work group " << lx << "x" << ly << " exceeds the device's limits (" << max_x << "x" << max_y
                                     << ", " << max_invocations << " invocations)");
  }
  glDisable(GL_BLEND);
  glDisable(GL_DEPTH_TEST);
  glDisable(GL_DITHER);
  SS_GL_CHECK("GPU backend set-up");
}

void GpuBackend::require_same_size(const Vector& a, const Vector& b, const char* op) const {
  SS_REQUIRE(a.size() == b.size(), op << ": fields of " << a.size() << " and " << b.size() << " elements");
  SS_REQUIRE(a.layout() == b.layout(), op << ": fields with different layouts");
}

// ---- data movement ----

GpuBackend::Vector GpuBackend::make_vector(std::int64_t n) {
  Vector v(layout_for(n));
  fill(v, 0.0);
  return v;
}

GpuBackend::Vector GpuBackend::upload(const std::vector<double>& values) {
  Vector v(layout_for(std::int64_t(values.size())));
  v.upload(values);
  return v;
}

GpuBackend::Vector GpuBackend::upload_low_parts(const std::vector<double>& values) {
  Vector v(layout_for(std::int64_t(values.size())));
  v.upload_low_parts(values);
  return v;
}

std::vector<double> GpuBackend::download(const Vector& x) {
  const std::vector<float> values = x.download();
  return std::vector<double>(values.begin(), values.end());
}

GpuBackend::IndexVector GpuBackend::upload_indices(const std::vector<std::int32_t>& indices) {
  IndexVector v(layout_for(std::int64_t(indices.size())));
  v.upload(indices);
  return v;
}

// ---- element-wise kernels ----

Program& GpuBackend::program(const char* file, int elements_per_texel, int outputs, bool vec4_output, bool int_output,
                             GroupReduce group_reduce) {
  KernelSpec spec{file, elements_per_texel, outputs};
  spec.vec4_output = vec4_output;
  spec.int_output = int_output;
  spec.group_reduce = group_reduce;
  spec.launch = gpu_options_.launch;
  spec.local_size_x = gpu_options_.local_size_x;
  spec.local_size_y = gpu_options_.local_size_y;
  return programs_.get(spec);
}

void GpuBackend::launch(const char* file, const std::vector<KernelInput>& inputs, const std::vector<Vector*>& outputs,
                        const std::vector<KernelUniform>& uniforms) {
  SS_REQUIRE(!outputs.empty(), "kernel " << file << " has no output");
  const Layout& layout = outputs[0]->layout();
  for (const Vector* out : outputs)
    SS_REQUIRE(out->layout() == layout, "kernel " << file << ": outputs with different layouts");
  Program& program = this->program(file, layout.elements_per_texel, int(outputs.size()));
  set_uniforms(program, uniforms);
  // An output that is also an input is rendered into a spare texture, then swapped in (ping-pong).
  std::vector<Texture> partners(outputs.size());
  std::vector<Texture*> targets;
  for (size_t k = 0; k < outputs.size(); ++k) {
    Vector* out = outputs[k];
    const bool aliased = std::any_of(inputs.begin(), inputs.end(),
                                     [&](const KernelInput& in) { return in.texture == &out->texture(); });
    if (aliased) {
      partners[k] = pool_.take(layout.width, layout.height, float_format(layout));
      targets.push_back(&partners[k]);
    } else {
      targets.push_back(const_cast<Texture*>(&out->texture()));
    }
  }
  launcher_.run(program, inputs, targets, layout.n);
  for (size_t k = 0; k < outputs.size(); ++k) {
    if (!partners[k]) continue;
    outputs[k]->swap_texture(partners[k]);
    pool_.give(std::move(partners[k]));
  }
}

void GpuBackend::set_uniforms(Program& program, const std::vector<KernelUniform>& uniforms) {
  for (const KernelUniform& u : uniforms) {
    if (u.is_int) program.set(u.name, int(u.value));
    else program.set(u.name, float(u.value));
  }
}

void GpuBackend::launch_indices(const char* file, const std::vector<KernelInput>& inputs,
                                const std::vector<IndexVector*>& outputs, const std::vector<KernelUniform>& uniforms,
                                std::int32_t lo, std::int32_t hi) {
  SS_REQUIRE(!outputs.empty(), "kernel " << file << " has no output");
  const Layout& layout = outputs[0]->layout();
  std::vector<Texture*> targets;
  for (IndexVector* out : outputs) {
    SS_REQUIRE(out->layout() == layout, "kernel " << file << ": outputs with different layouts");
    SS_REQUIRE(std::none_of(inputs.begin(), inputs.end(), [&](const KernelInput& in) { return in.texture == &out->texture(); }),
               "kernel " << file << ": an integer output is also an input");
    targets.push_back(const_cast<Texture*>(&out->texture()));
  }
  Program& program = this->program(file, layout.elements_per_texel, int(outputs.size()), false, true);
  set_uniforms(program, uniforms);
  launcher_.run(program, inputs, targets, layout.n);
  for (IndexVector* out : outputs) out->set_range(lo, hi);
}

void GpuBackend::fill(Vector& z, double a) { launch("fill.glsl", {}, {&z}, {uniform_float("value", a)}); }

void GpuBackend::copy(const Vector& x, Vector& z) {
  require_same_size(x, z, "copy");
  launch("copy.glsl", {in("x", x)}, {&z});
}

void GpuBackend::axpy(double a, const Vector& x, const Vector& y, Vector& z) {
  require_same_size(x, y, "axpy");
  require_same_size(x, z, "axpy");
  launch("axpy.glsl", {in("x", x), in("y", y)}, {&z}, {uniform_float("a", a)});
}

void GpuBackend::xpay(const Vector& x, double a, const Vector& y, Vector& z) {
  require_same_size(x, y, "xpay");
  require_same_size(x, z, "xpay");
  launch("xpay.glsl", {in("x", x), in("y", y)}, {&z}, {uniform_float("a", a)});
}

void GpuBackend::scale(double a, const Vector& x, Vector& z) {
  require_same_size(x, z, "scale");
  launch("scale.glsl", {in("x", x)}, {&z}, {uniform_float("a", a)});
}

void GpuBackend::multiply(const Vector& x, const Vector& y, Vector& z) {
  require_same_size(x, y, "multiply");
  require_same_size(x, z, "multiply");
  launch("multiply.glsl", {in("x", x), in("y", y)}, {&z});
}

void GpuBackend::divide(const Vector& x, const Vector& y, Vector& z) {
  require_same_size(x, y, "divide");
  require_same_size(x, z, "divide");
  launch("divide.glsl", {in("x", x), in("y", y)}, {&z});
}

void GpuBackend::linear_combination(const std::vector<double>& coefficients, const std::vector<const Vector*>& xs,
                                    Vector& z) {
  SS_REQUIRE(!xs.empty() && xs.size() <= 4 && coefficients.size() == xs.size(),
             "linear_combination takes 1 to 4 fields and as many coefficients (got " << xs.size() << " and "
                                                                                      << coefficients.size() << ")");
  static const char* names[4] = {"x0", "x1", "x2", "x3"};
  static const char* coefficient_names[4] = {"c0", "c1", "c2", "c3"};
  std::vector<KernelInput> inputs;
  std::vector<KernelUniform> uniforms{uniform_int("terms", int(xs.size()))};
  for (size_t k = 0; k < 4; ++k) {
    // Unused terms read x0 with coefficient 0 and are skipped in the kernel by `terms`.
    const Vector* x = k < xs.size() ? xs[k] : xs[0];
    require_same_size(*x, z, "linear_combination");
    inputs.push_back(in(names[k], *x));
    uniforms.push_back(uniform_float(coefficient_names[k], k < xs.size() ? coefficients[k] : 0.0));
  }
  launch("linear_combination.glsl", inputs, {&z}, uniforms);
}

void GpuBackend::update_pair(double a, const Vector& p, const Vector& q, Vector& x, Vector& r) {
  require_same_size(p, q, "update_pair");
  require_same_size(p, x, "update_pair");
  require_same_size(p, r, "update_pair");
  SS_REQUIRE(&x != &r, "update_pair: x and r must be different fields");
  if (!two_output_updates()) {
    axpy(a, p, x, x);
    axpy(-a, q, r, r);
    return;
  }
  launch("update_pair.glsl", {in("p", p), in("q", q), in("x", x), in("r", r)}, {&x, &r}, {uniform_float("a", a)});
}

void GpuBackend::xpay_pair(double a, const Vector& u, const Vector& w, Vector& p, Vector& s) {
  require_same_size(u, w, "xpay_pair");
  require_same_size(u, p, "xpay_pair");
  require_same_size(u, s, "xpay_pair");
  SS_REQUIRE(&p != &s, "xpay_pair: p and s must be different fields");
  if (!two_output_updates()) {
    xpay(u, a, p, p);
    xpay(w, a, s, s);
    return;
  }
  launch("xpay_pair.glsl", {in("u", u), in("p", p), in("w", w), in("s", s)}, {&p, &s}, {uniform_float("a", a)});
}

void GpuBackend::pipelined_directions(double beta, const Vector& u, const Vector& w, const Vector& m, const Vector& n,
                                      Vector& p, Vector& s, Vector& q, Vector& z) {
  for (const Vector* v : std::initializer_list<const Vector*>{&w, &m, &n, &p, &s, &q, &z}) require_same_size(u, *v, "pipelined_directions");
  launch("pipelined_directions.glsl",
         {in("u", u), in("w", w), in("m", m), in("n", n), in("p", p), in("s", s), in("q", q), in("z", z)},
         {&p, &s, &q, &z}, {uniform_float("beta", beta)});
}

void GpuBackend::pipelined_iterates(double alpha, const Vector& p, const Vector& s, const Vector& q, const Vector& z,
                                    Vector& x, Vector& r, Vector& u, Vector& w) {
  for (const Vector* v : std::initializer_list<const Vector*>{&s, &q, &z, &x, &r, &u, &w}) require_same_size(p, *v, "pipelined_iterates");
  launch("pipelined_iterates.glsl",
         {in("p", p), in("s", s), in("q", q), in("z", z), in("x", x), in("r", r), in("u", u), in("w", w)},
         {&x, &r, &u, &w}, {uniform_float("alpha", alpha)});
}

bool GpuBackend::two_output_updates() const {
  if (gpu_options_.two_output_updates >= 0) return gpu_options_.two_output_updates != 0;
  return gpu_options_.launch == LaunchPath::compute;
}

// ---- precise vectors (float pairs) ----

namespace {
// lo parts: v − float(v), exact in double, then rounded to float.
std::vector<double> low_parts(const std::vector<double>& values) {
  std::vector<double> lo(values.size());
  for (size_t i = 0; i < values.size(); ++i) lo[i] = values[i] - double(float(values[i]));
  return lo;
}
}  // namespace

GpuBackend::PreciseVector GpuBackend::make_precise(std::int64_t n) { return {make_vector(n), make_vector(n)}; }

GpuBackend::PreciseVector GpuBackend::upload_precise(const std::vector<double>& values) {
  return {upload(values), upload_low_parts(values)};
}

std::vector<double> GpuBackend::download_precise(const PreciseVector& v) {
  std::vector<double> hi = download(v.hi);
  const std::vector<double> lo = download(v.lo);
  for (size_t i = 0; i < hi.size(); ++i) hi[i] += lo[i];
  return hi;
}

void GpuBackend::to_precise(const Vector& x, PreciseVector& v) {
  require_same_size(x, v.hi, "to_precise");
  copy(x, v.hi);
  fill(v.lo, 0.0);
}

void GpuBackend::accumulate_precise(PreciseVector& v, const Vector& d) {
  require_same_size(d, v.hi, "accumulate_precise");
  launch("precise_accumulate.glsl", {in("x_hi", v.hi), in("x_lo", v.lo), in("d", d)}, {&v.hi, &v.lo});
}

void GpuBackend::scatter_precise(PreciseVector& v, const std::vector<std::int32_t>& indices,
                                 const std::vector<double>& values) {
  scatter(v.hi, indices, values);  // float(values[k]): round to nearest, as upload
  scatter(v.lo, indices, low_parts(values));
}

void GpuBackend::mask_precise(const Vector& mask, PreciseVector& v) {
  multiply(mask, v.hi, v.hi);
  multiply(mask, v.lo, v.lo);
}

void GpuBackend::gather(const Vector& x, const IndexVector& indices, Vector& z) {
  SS_REQUIRE(indices.size() == z.size(), "gather: " << indices.size() << " indices for " << z.size() << " outputs");
  SS_REQUIRE(indices.layout().elements_per_texel == z.layout().elements_per_texel,
             "gather: index and output fields use different packings");
  SS_REQUIRE(indices.min_value() >= 0 && indices.max_value() < x.size(),
             "gather: index range [" << indices.min_value() << ", " << indices.max_value() << "] is outside the source field of "
                                     << x.size() << " elements");
  launch("gather.glsl", {in("source", x), in("index", indices)}, {&z});
}

// ---- reductions ----

bool GpuBackend::group_reductions() const {
  return gpu_options_.launch == LaunchPath::compute && gpu_options_.group_reductions != 0;
}

std::int64_t GpuBackend::reduction_final_texels() const {
  const std::int64_t rmin2 = std::int64_t(options_.rmin) * options_.rmin;
  return group_reductions() ? 4 * rmin2 : rmin2;
}

GpuBackend::ReductionPass GpuBackend::reduction_pass(int in_w, int in_h) const {
  const auto divide = [](glm::ivec2 a, glm::ivec2 b) { return (a + b - 1) / b; };
  const glm::ivec2 in(in_w, in_h);
  const std::int64_t final_texels = reduction_final_texels();
  if (!group_reductions()) {
    // Fold 4 (two quarter levels in one pass) while far from the end, then 2: fewer passes, same tree.
    const int fold = std::int64_t(in_w) * in_h > 4 * final_texels ? reduction_fold_ : 2;
    const glm::ivec2 grid = divide(in, glm::ivec2(fold));
    return {fold, grid, grid};
  }
  // The smallest fold that ends the reduction in this pass (more invocations to hide the memory
  // latency), else 8 (64 texels an invocation).
  const glm::ivec2 group(gpu_options_.local_size_x, gpu_options_.local_size_y);
  ReductionPass pass{};
  for (int fold : {2, 4, 8}) {
    const glm::ivec2 grid = divide(in, glm::ivec2(fold));
    pass = {fold, grid, divide(grid, group)};
    if (std::int64_t(pass.out.x) * pass.out.y <= final_texels) break;
  }
  return pass;
}

void GpuBackend::run_reduction_pass(Program& program, const std::vector<KernelInput>& inputs, Texture& out,
                                    const ReductionPass& pass, int elements_per_texel) {
  program.set("ss_fold", pass.fold);
  if (group_reductions()) launcher_.dispatch_reduction(program, inputs, out, pass.grid);
  else launcher_.run(program, inputs, {&out}, std::int64_t(out.width()) * out.height() * elements_per_texel);
}

double GpuBackend::reduce(const char* first, const char* next, const Vector& x, const std::vector<KernelInput>& inputs,
                          Combine combine) {
  const Layout& layout = x.layout();
  const TexelFormat format = float_format(layout);
  const GroupReduce group = !group_reductions()        ? GroupReduce::none
                            : combine == Combine::sum ? GroupReduce::sum
                            : combine == Combine::min ? GroupReduce::min
                                                      : GroupReduce::max;
  int in_w = layout.width, in_h = layout.height;
  std::int64_t in_n = layout.n;
  Texture current;  // output of the previous pass
  bool first_pass = true;
  do {
    const ReductionPass pass = reduction_pass(in_w, in_h);
    Texture out = pool_.take(pass.out.x, pass.out.y, format);
    Program& program = this->program(first_pass ? first : next, layout.elements_per_texel, 1, false, false, group);
    program.set("ss_in_size", glm::ivec2(in_w, in_h));
    program.set("ss_in_n", int(in_n));
    run_reduction_pass(program, first_pass ? inputs : std::vector<KernelInput>{{"source", &current}}, out, pass,
                       layout.elements_per_texel);
    pool_.give(std::move(current));
    current = std::move(out);
    in_w = pass.out.x, in_h = pass.out.y;
    in_n = std::int64_t(in_w) * in_h * layout.elements_per_texel;  // every texel of a pass output is valid
    first_pass = false;
  } while (std::int64_t(in_w) * in_h > reduction_final_texels());

  // Finish on the CPU in double (thesis §4.2: small remainders are cheaper there).
  std::vector<float> rest(static_cast<size_t>(in_n));
  launcher_.read(current, rest.data());
  pool_.give(std::move(current));
  double result = combine == Combine::sum ? 0.0
                : combine == Combine::min ? std::numeric_limits<double>::infinity()
                                          : -std::numeric_limits<double>::infinity();
  for (float v : rest) {
    if (combine == Combine::sum) result += v;
    else if (combine == Combine::min) result = std::min(result, double(v));
    else result = std::max(result, double(v));
  }
  return result;
}

double GpuBackend::sum(const Vector& x) { return reduce("reduce_sum.glsl", "reduce_sum.glsl", x, {in("source", x)}, Combine::sum); }

double GpuBackend::dot(const Vector& x, const Vector& y) {
  require_same_size(x, y, "dot");
  return reduce("reduce_dot.glsl", "reduce_sum.glsl", x, {in("x", x), in("y", y)}, Combine::sum);
}

double GpuBackend::min(const Vector& x) { return reduce("reduce_min.glsl", "reduce_min.glsl", x, {in("source", x)}, Combine::min); }
double GpuBackend::max(const Vector& x) { return reduce("reduce_max.glsl", "reduce_max.glsl", x, {in("source", x)}, Combine::max); }

double GpuBackend::norm2(const Vector& x) {
  return reduce("reduce_norm2.glsl", "reduce_sum.glsl", x, {in("source", x)}, Combine::sum);
}

// Up to four dot products in one reduction: the first pass (reduce_dots.glsl) fuses the products
// (and the weights, when given) and writes one partial sum per channel of an RGBA32F texture whatever
// the fields' packing; the next passes reduce the four channels together (reduce_sum.glsl compiled
// for RGBA); one read-back.
Texture GpuBackend::reduce_dots(const std::vector<std::pair<const Vector*, const Vector*>>& pairs, std::int64_t count,
                                const Vector* weights) {
  SS_REQUIRE(!pairs.empty() && pairs.size() <= 4, "dots takes 1 to 4 pairs (got " << pairs.size() << ")");
  SS_REQUIRE(count <= pairs[0].first->size(), "dots: " << count << " elements asked of vectors of " << pairs[0].first->size());
  const Vector& x = *pairs[0].first;
  for (const auto& [a, b] : pairs) {
    require_same_size(x, *a, "dots");
    require_same_size(x, *b, "dots");
  }
  if (weights) require_same_size(x, *weights, "dots (weights)");
  static const char* a_names[4] = {"a0", "a1", "a2", "a3"};
  static const char* b_names[4] = {"b0", "b1", "b2", "b3"};
  std::vector<KernelInput> inputs;
  for (size_t k = 0; k < 4; ++k) {
    const auto& pair = k < pairs.size() ? pairs[k] : pairs[0];  // unused channels: skipped by `dots`
    inputs.push_back(in(a_names[k], *pair.first));
    inputs.push_back(in(b_names[k], *pair.second));
  }
  inputs.push_back(in("weights", weights ? *weights : x));  // read only when weighted
  const Layout& layout = x.layout();
  const GroupReduce group = group_reductions() ? GroupReduce::sum : GroupReduce::none;
  int in_w = layout.width, in_h = layout.height;
  std::int64_t in_n = count < 0 ? layout.n : count;  // the first pass reads elements past in_n as 0
  Texture current;
  bool first_pass = true;
  do {
    const ReductionPass pass = reduction_pass(in_w, in_h);
    Texture out = pool_.take(pass.out.x, pass.out.y, TexelFormat::rgba32f);
    Program& program = first_pass ? this->program("reduce_dots.glsl", layout.elements_per_texel, 1, true, false, group)
                                   : this->program("reduce_sum.glsl", 4, 1, false, false, group);
    program.set("ss_in_size", glm::ivec2(in_w, in_h));
    program.set("ss_in_n", int(in_n));
    if (first_pass) program.set("dots", int(pairs.size())), program.set("weighted", weights ? 1 : 0);
    run_reduction_pass(program, first_pass ? inputs : std::vector<KernelInput>{{"source", &current}}, out, pass, 4);
    pool_.give(std::move(current));
    current = std::move(out);
    in_w = pass.out.x, in_h = pass.out.y;
    in_n = std::int64_t(in_w) * in_h * 4;
    first_pass = false;
  } while (std::int64_t(in_w) * in_h > reduction_final_texels());
  return current;
}

namespace {
// Channel k of the RGBA partial sums, summed in double: pair k's dot product.
std::vector<double> sum_channels(const std::vector<float>& partial, std::size_t pairs) {
  std::vector<double> result(pairs, 0.0);
  for (size_t t = 0; t < partial.size(); t += 4)
    for (size_t k = 0; k < pairs; ++k) result[k] += partial[t + k];
  return result;
}
}  // namespace

std::vector<double> GpuBackend::dots(const std::vector<std::pair<const Vector*, const Vector*>>& pairs, std::int64_t count,
                                     const Vector* weights) {
  Texture partial = reduce_dots(pairs, count, weights);
  std::vector<float> rest(size_t(std::int64_t(partial.width()) * partial.height() * 4));
  launcher_.read(partial, rest.data());
  pool_.give(std::move(partial));
  return sum_channels(rest, pairs.size());
}

void GpuBackend::begin_dots(const std::vector<std::pair<const Vector*, const Vector*>>& pairs, PendingDots& pending,
                            std::int64_t count, const Vector* weights) {
  Texture partial = reduce_dots(pairs, count, weights);
  begin_read(partial, 4, std::int64_t(partial.width()) * partial.height() * 4, pending.download_);
  pool_.give(std::move(partial));  // later passes into it run after the queued copy
  pending.pairs_ = pairs.size();
}

std::vector<double> GpuBackend::end_dots(PendingDots& pending) {
  ++deferred_reads_;
  return sum_channels(end_download(pending.download_), pending.pairs_);
}

std::int64_t GpuBackend::count_nonfinite(const Vector& x) {
  return std::llround(reduce("reduce_nonfinite.glsl", "reduce_sum.glsl", x, {in("source", x)}, Combine::sum));
}

// ---- scatter ----

// z[indices[k]] = values[k], drawn as GL_POINTS, one point per value at its element's texel
// (thesis §5.3). Points are rasterized in order, so for a repeated index the later value wins.
void GpuBackend::scatter(Vector& z, const std::vector<std::int32_t>& indices, const std::vector<double>& values) {
  draw_listed_points(z, indices, values, false, "scatter");
}

// z[indices[k]] += values[k]: the same points with additive blending (float render targets blend
// unclamped), so z is updated in place without a pass over the whole field.
void GpuBackend::scatter_add(Vector& z, const std::vector<std::int32_t>& indices, const std::vector<double>& values) {
  draw_listed_points(z, indices, values, true, "scatter_add");
}

namespace {
// Checks every index against [0, size) (size < 0: only ≥ 0); returns the largest (−1 if none).
std::int32_t checked_max_index(const std::vector<std::int32_t>& indices, std::int64_t size, const char* what) {
  std::int32_t largest = -1;
  for (size_t k = 0; k < indices.size(); ++k) {
    SS_REQUIRE(indices[k] >= 0, what << ": index " << indices[k] << " (entry " << k << ") is negative");
    SS_REQUIRE(size < 0 || indices[k] < size,
               what << ": index " << indices[k] << " (entry " << k << ") is outside the field of " << size << " elements");
    largest = std::max(largest, indices[k]);
  }
  return largest;
}
}  // namespace

// The indices of a one-off scatter go into one buffer reused from call to call.
void GpuBackend::draw_listed_points(Vector& z, const std::vector<std::int32_t>& indices, const std::vector<double>& values,
                                    bool add, const char* what) {
  SS_REQUIRE(indices.size() == values.size(), what << ": " << indices.size() << " indices but " << values.size() << " values");
  checked_max_index(indices, z.size(), what);
  if (indices.empty()) return;
  if (!scatter_indices_) scatter_indices_ = make_buffer();
  glBindBuffer(GL_ARRAY_BUFFER, scatter_indices_.id());
  glBufferData(GL_ARRAY_BUFFER, GLsizeiptr(indices.size() * sizeof(std::int32_t)), indices.data(), GL_STREAM_DRAW);
  glBindBuffer(GL_ARRAY_BUFFER, 0);
  scatter_floats_.resize(values.size());
  std::transform(values.begin(), values.end(), scatter_floats_.begin(), [](double v) { return float(v); });
  draw_points(z, scatter_indices_, scatter_floats_, add, what);
}

// The compute path's pairs of a scatter list: the last occurrence of each element, grouped by
// channel (element % 4).
void GpuBackend::upload_scatter_targets(ScatterList& list, const std::vector<std::int32_t>& indices) {
  std::vector<char> seen(size_t(list.max_index_ + 1), 0);
  std::vector<std::int32_t> group[4];
  for (size_t k = indices.size(); k-- > 0;) {
    const std::int32_t e = indices[k];
    if (seen[size_t(e)]) continue;
    seen[size_t(e)] = 1;
    group[e % 4].push_back(std::int32_t(k));
  }
  std::vector<std::int32_t> targets;
  for (int c = 0; c < 4; ++c) {
    list.group_start_[c] = std::int64_t(targets.size()) / 2;
    for (auto k = group[c].rbegin(); k != group[c].rend(); ++k) targets.push_back(indices[size_t(*k)]), targets.push_back(*k);
  }
  list.group_start_[4] = std::int64_t(targets.size()) / 2;
  list.targets_ = make_buffer();
  glBindBuffer(GL_SHADER_STORAGE_BUFFER, list.targets_.id());
  glBufferData(GL_SHADER_STORAGE_BUFFER, GLsizeiptr(std::max<size_t>(targets.size(), 2) * sizeof(std::int32_t)),
               targets.empty() ? nullptr : targets.data(), GL_STATIC_DRAW);
  glBindBuffer(GL_SHADER_STORAGE_BUFFER, 0);
}

ScatterList GpuBackend::make_scatter_list(const std::vector<std::int32_t>& indices) {
  ScatterList list;
  list.count_ = std::int64_t(indices.size());
  list.max_index_ = checked_max_index(indices, -1, "scatter list");
  list.indices_ = make_buffer();
  glBindBuffer(GL_ARRAY_BUFFER, list.indices_.id());
  glBufferData(GL_ARRAY_BUFFER, GLsizeiptr(std::max<size_t>(indices.size(), 1) * sizeof(std::int32_t)),
               indices.empty() ? nullptr : indices.data(), GL_STATIC_DRAW);
  glBindBuffer(GL_ARRAY_BUFFER, 0);
  if (gpu_options_.launch == LaunchPath::compute) upload_scatter_targets(list, indices);
  SS_GL_CHECK("scatter list of " + std::to_string(indices.size()) + " indices");
  return list;
}

void GpuBackend::scatter(Vector& z, const ScatterList& at, const std::vector<float>& values) {
  require_scatter_fits(z, at, values.size(), "scatter");
  // (A list too long for one row of work groups, 65,535 × 256, takes the draw.)
  if (gpu_options_.launch == LaunchPath::compute && at.count_ <= 65535 * 256) dispatch_scatter(z, at, values);
  else draw_points(z, at.indices_, values, false, "scatter");
}

// The compute path's scatter: a point draw runs on the pixel-shader units only (two TPCs on
// Hopper), a dispatch on all of them. One dispatch per channel group with RGBA packing (a
// barrier between: each rewrites whole texels), one for all groups with R32F (a texel each).
void GpuBackend::dispatch_scatter(Vector& z, const ScatterList& at, const std::vector<float>& values) {
  if (values.empty()) return;
  const Layout& layout = z.layout();
  const bool rgba = layout.elements_per_texel == 4;
  std::unique_ptr<Program>& program = scatter_compute_[rgba ? 1 : 0];
  if (!program) {
    std::string source = shader_file("scatter.comp");
    const size_t line_end = source.find('\n');
    source.insert(line_end + 1, std::string("#define FIELD_FORMAT ") + (rgba ? "rgba32f" : "r32f") + "\n");
    program = std::make_unique<Program>(rgba ? "scatter (compute, RGBA32F)" : "scatter (compute, R32F)", source);
    scatter_compute_values_ = make_buffer();
  }
  glBindBuffer(GL_SHADER_STORAGE_BUFFER, scatter_compute_values_.id());
  glBufferData(GL_SHADER_STORAGE_BUFFER, GLsizeiptr(values.size() * sizeof(float)), values.data(), GL_STREAM_DRAW);
  glBindBuffer(GL_SHADER_STORAGE_BUFFER, 0);
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, at.targets_.id());
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 1, scatter_compute_values_.id());
  glBindImageTexture(0, z.texture().id(), 0, GL_FALSE, 0, GL_READ_WRITE, rgba ? GL_RGBA32F : GL_R32F);
  program->set("ss_size", glm::ivec2(layout.width, layout.height));
  program->set("elements_per_texel", layout.elements_per_texel);
  glUseProgram(program->id());
  // After the field's earlier writes (image stores, draws), as a kernel's dispatch would be.
  glMemoryBarrier(GL_SHADER_IMAGE_ACCESS_BARRIER_BIT | GL_FRAMEBUFFER_BARRIER_BIT);
  const int passes = rgba ? 4 : 1;
  for (int c = 0; c < passes; ++c) {
    const std::int64_t first = at.group_start_[rgba ? c : 0], count = at.group_start_[rgba ? c + 1 : 4] - first;
    if (count == 0) continue;
    glUniform1i(program->uniform("first"), GLint(first));
    glUniform1i(program->uniform("count"), GLint(count));
    glDispatchCompute(GLuint((count + 255) / 256), 1, 1);
    launcher_.count_pass();
    glMemoryBarrier(GL_SHADER_IMAGE_ACCESS_BARRIER_BIT);
  }
  // Visible to what may come next, as after any kernel (Launcher::dispatch).
  glMemoryBarrier(GL_TEXTURE_FETCH_BARRIER_BIT | GL_SHADER_IMAGE_ACCESS_BARRIER_BIT | GL_FRAMEBUFFER_BARRIER_BIT |
                  GL_PIXEL_BUFFER_BARRIER_BIT | GL_TEXTURE_UPDATE_BARRIER_BIT);
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, 0);
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 1, 0);
  SS_GL_CHECK("scatter (compute) of " + std::to_string(values.size()) + " values");
}

void GpuBackend::scatter_add(Vector& z, const ScatterList& at, const std::vector<float>& values) {
  require_scatter_fits(z, at, values.size(), "scatter_add");
  draw_points(z, at.indices_, values, true, "scatter_add");
}

void GpuBackend::require_scatter_fits(const Vector& z, const ScatterList& at, std::size_t values, const char* what) const {
  SS_REQUIRE(at.count_ == std::int64_t(values), what << ": " << at.count_ << " indices but " << values << " values");
  SS_REQUIRE(at.max_index_ < z.size(),
             what << ": index " << at.max_index_ << " is outside the field of " << z.size() << " elements");
}

void GpuBackend::draw_points(Vector& z, const BufferName& indices, const std::vector<float>& values, bool add,
                             const char* what) {
  if (values.empty()) return;
  if (!scatter_program_) {
    scatter_program_ = std::make_unique<Program>("scatter", shader_file("scatter.vert"), shader_file("scatter.frag"));
    scatter_values_ = make_buffer();
    scatter_vao_ = make_vertex_array();
    glBindVertexArray(scatter_vao_.id());
    glEnableVertexAttribArray(0);
    glEnableVertexAttribArray(1);
    glBindVertexArray(0);
  }
  // The values into a fresh store of the value buffer (the previous draw may still read the old
  // one); the indices stay where they are.
  glBindVertexArray(scatter_vao_.id());
  glBindBuffer(GL_ARRAY_BUFFER, scatter_values_.id());
  glBufferData(GL_ARRAY_BUFFER, GLsizeiptr(values.size() * sizeof(float)), values.data(), GL_STREAM_DRAW);
  glVertexAttribPointer(1, 1, GL_FLOAT, GL_FALSE, 0, nullptr);
  glBindBuffer(GL_ARRAY_BUFFER, indices.id());
  glVertexAttribIPointer(0, 1, GL_INT, 0, nullptr);
  glBindBuffer(GL_ARRAY_BUFFER, 0);

  Program& program = *scatter_program_;
  const Layout& layout = z.layout();
  program.set("ss_size", glm::ivec2(layout.width, layout.height));
  program.set("elements_per_texel", layout.elements_per_texel);
  launcher_.attach({const_cast<Texture*>(&z.texture())});
  glUseProgram(program.id());
  if (add) {
    glEnablei(GL_BLEND, 0);
    glBlendEquationi(0, GL_FUNC_ADD);
    glBlendFunci(0, GL_ONE, GL_ONE);
  }
  // RGBA packing: one pass per component, writing only that channel.
  for (int c = 0; c < layout.elements_per_texel; ++c) {
    if (layout.elements_per_texel == 4) glColorMaski(0, c == 0, c == 1, c == 2, c == 3);
    glUniform1i(program.uniform("component"), c);
    glDrawArrays(GL_POINTS, 0, GLsizei(values.size()));
    launcher_.count_pass();
  }
  if (add) glDisablei(GL_BLEND, 0);
  glColorMaski(0, GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE);
  glBindVertexArray(0);
  launcher_.note_draw();  // a compute kernel writing z next must wait for these points
  SS_GL_CHECK(std::string(what) + " of " + std::to_string(values.size()) + " values");
}

// ---- asynchronous read-back ----

PendingDownload::PendingDownload(PendingDownload&& other) noexcept
    : buffer_(std::move(other.buffer_)),
      buffer_bytes_(std::exchange(other.buffer_bytes_, 0)),
      fence_(std::exchange(other.fence_, nullptr)),
      n_(other.n_),
      values_(std::move(other.values_)) {}

PendingDownload& PendingDownload::operator=(PendingDownload&& other) noexcept {
  if (this != &other) {
    if (fence_) glDeleteSync(fence_);
    buffer_ = std::move(other.buffer_);
    buffer_bytes_ = std::exchange(other.buffer_bytes_, 0);
    fence_ = std::exchange(other.fence_, nullptr);
    n_ = other.n_;
    values_ = std::move(other.values_);
  }
  return *this;
}

PendingDownload::~PendingDownload() {
  if (fence_) glDeleteSync(fence_);
}

void GpuBackend::begin_download(const Vector& x, PendingDownload& pending) {
  begin_read(x.texture(), x.layout().elements_per_texel, x.layout().n, pending);
}

void GpuBackend::begin_read(const Texture& texture, int channels, std::int64_t n, PendingDownload& pending) {
  const std::size_t bytes = std::size_t(texture.width()) * texture.height() * channels * sizeof(float);
  if (!pending.buffer_ || pending.buffer_bytes_ < bytes) {
    pending.buffer_ = make_buffer();
    glBindBuffer(GL_PIXEL_PACK_BUFFER, pending.buffer_.id());
    glBufferData(GL_PIXEL_PACK_BUFFER, GLsizeiptr(bytes), nullptr, GL_STREAM_READ);
    pending.buffer_bytes_ = bytes;
  }
  glBindBuffer(GL_PIXEL_PACK_BUFFER, pending.buffer_.id());
  launcher_.attach({const_cast<Texture*>(&texture)});
  glReadBuffer(GL_COLOR_ATTACHMENT0);
  glPixelStorei(GL_PACK_ALIGNMENT, 4);
  glReadPixels(0, 0, texture.width(), texture.height(), channels == 4 ? GL_RGBA : GL_RED, GL_FLOAT, nullptr);
  glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
  if (pending.fence_) glDeleteSync(pending.fence_);
  pending.fence_ = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
  pending.n_ = n;
  glFlush();  // start the copy now, ahead of whatever is queued next
  SS_GL_CHECK("asynchronous read-back of " + std::to_string(n) + " values");
}

const std::vector<float>& GpuBackend::end_download(PendingDownload& pending) {
  SS_REQUIRE(pending.fence_, "end_download: no read-back was begun");
  for (;;) {  // wait in slices of 0.1 s (a lost device makes the wait fail, not hang)
    const GLenum status = glClientWaitSync(pending.fence_, GL_SYNC_FLUSH_COMMANDS_BIT, 100'000'000);
    if (status == GL_ALREADY_SIGNALED || status == GL_CONDITION_SATISFIED) break;
    SS_REQUIRE(status == GL_TIMEOUT_EXPIRED, "end_download: waiting for the read-back failed (glClientWaitSync)");
  }
  glDeleteSync(pending.fence_);
  pending.fence_ = nullptr;
  pending.values_.resize(size_t(pending.n_));
  if (pending.n_ > 0) {
    glBindBuffer(GL_PIXEL_PACK_BUFFER, pending.buffer_.id());
    const void* mapped = glMapBufferRange(GL_PIXEL_PACK_BUFFER, 0, GLsizeiptr(pending.n_ * sizeof(float)), GL_MAP_READ_BIT);
    SS_REQUIRE(mapped, "end_download: the read-back buffer could not be mapped");
    const float* f = static_cast<const float*>(mapped);
    std::copy(f, f + pending.n_, pending.values_.begin());
    glUnmapBuffer(GL_PIXEL_PACK_BUFFER);
    glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
  }
  SS_GL_CHECK("asynchronous read-back of " + std::to_string(pending.n_) + " values");
  return pending.values_;
}

void GpuBackend::finish() { glFinish(); }

void GpuBackend::set_reduction_fold(int fold) {
  SS_REQUIRE(fold == 2 || fold == 4, "reduction fold must be 2 or 4 (got " << fold << ")");
  reduction_fold_ = fold;
}

}  // namespace ss
