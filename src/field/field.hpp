#pragma once
// A field: N values of a 1D array stored in a 2D texture laid out by `Layout` (layout.hpp).
// Padding texels/components hold 0 (the sum identity) after upload and after every kernel; the
// reductions also guard by element index, so padding never reaches a result.
//
// Ping-pong: a kernel never reads and writes one texture in a pass. When an operation's output is
// also one of its inputs, the backend renders into a spare texture of the same shape from a
// TexturePool and then swaps it into the field (`swap_texture`), so in-place updates cost no copy.
#include <algorithm>
#include <cstdint>
#include <map>
#include <tuple>
#include <vector>

#include "field/layout.hpp"
#include "field/texture.hpp"

namespace ss {

namespace detail {
// Writes the texture's zero-padded W×H×P image of T chunk by chunk straight into the upload buffer:
// fill(out, first, end) writes elements [first, end) into out[0 .. end − first); the padding is zeroed here.
template <class T, class Fill>
void upload_chunks(Texture& texture, const Layout& layout, const Fill& fill) {
  const std::int64_t n = layout.n;
  texture.write_rows(0, layout.height, [&](void* bytes, std::int64_t first, std::int64_t count) {
    T* image = static_cast<T*>(bytes);
    const std::int64_t end = std::min(first + count, n);
    if (end > first) fill(image, first, end);
    std::fill(image + std::max<std::int64_t>(end - first, 0), image + count, T(0));
  });
}
}  // namespace detail

class Field {
public:
  Field() = default;
  explicit Field(const Layout& layout);

  const Layout& layout() const { return layout_; }
  std::int64_t size() const { return layout_.n; }
  const Texture& texture() const { return texture_; }

  // Whole-field upload of exactly size() values; padding is written as 0.
  void upload(const std::vector<float>& values);
  void upload(const std::vector<double>& values);  // rounded to float on the way (one host pass)
  // float(v − double(float(v))) of each value: the lo part of the float pair (hi, lo) ≈ v.
  void upload_low_parts(const std::vector<double>& values);
  // Whole-field upload made by fill(out, first, end) (detail::upload_chunks: the values of
  // [first, end), chunk by chunk, with whatever parallel loop fill runs) without a host copy of the field.
  template <class Fill>
  void upload_chunks(const Fill& fill) { detail::upload_chunks<float>(texture_, layout_, fill); }
  // Elements [begin, end) back to the host (end = -1: to the end).
  std::vector<float> download(std::int64_t begin = 0, std::int64_t end = -1) const;

  // Exchanges the storage with `other` (same shape and format): the ping-pong step.
  void swap_texture(Texture& other);

private:
  Layout layout_;
  Texture texture_;
};

// Integer twin of Field (R32I / RGBA32I with the same packing): indices for gathers and, later,
// mesh connectivity. Padding holds 0, a valid index.
class IndexField {
public:
  IndexField() = default;
  explicit IndexField(const Layout& layout);

  const Layout& layout() const { return layout_; }
  std::int64_t size() const { return layout_.n; }
  const Texture& texture() const { return texture_; }

  // Uploads exactly size() values and remembers their range (for bounds checks of gathers).
  void upload(const std::vector<std::int32_t>& values);
  // Field::upload_chunks' twin; [lo, hi] must hold every value written (the range gathers check).
  template <class Fill>
  void upload_chunks(const Fill& fill, std::int32_t lo, std::int32_t hi) {
    detail::upload_chunks<std::int32_t>(texture_, layout_, fill);
    set_range(lo, hi);
  }
  std::vector<std::int32_t> download() const;
  // A kernel wrote the values (GpuBackend::launch_indices): their range as the kernel guarantees it.
  void set_range(std::int32_t lo, std::int32_t hi) { min_ = lo, max_ = hi; }
  std::int32_t min_value() const { return min_; }
  std::int32_t max_value() const { return max_; }

private:
  Layout layout_;
  Texture texture_;
  std::int32_t min_ = 0, max_ = 0;
};

TexelFormat float_format(const Layout& layout);
TexelFormat int_format(const Layout& layout);

// Spare textures by shape, reused across kernels (ping-pong partners and reduction temporaries).
class TexturePool {
public:
  Texture take(int width, int height, TexelFormat format);
  void give(Texture texture);
  void clear() { spare_.clear(); }

private:
  std::map<std::tuple<int, int, TexelFormat>, std::vector<Texture>> spare_;
};

}  // namespace ss
