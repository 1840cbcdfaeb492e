#include "field/field.hpp"

#include <algorithm>

#include "util/error.hpp"

namespace ss {

TexelFormat float_format(const Layout& layout) {
  return layout.elements_per_texel == 4 ? TexelFormat::rgba32f : TexelFormat::r32f;
}
TexelFormat int_format(const Layout& layout) {
  return layout.elements_per_texel == 4 ? TexelFormat::rgba32i : TexelFormat::r32i;
}

namespace {

// Writes convert(values[i]) into the texture's zero-padded image of T (each chunk one parallel pass).
template <typename T, typename S, typename Convert>
void upload_padded(Texture& texture, const Layout& layout, const std::vector<S>& values, Convert convert) {
  SS_REQUIRE(std::int64_t(values.size()) == layout.n,
             "upload of " << values.size() << " values into a field of " << layout.n << " elements");
  detail::upload_chunks<T>(texture, layout, [&](T* image, std::int64_t first, std::int64_t end) {
#pragma omp parallel for schedule(static) if (end - first > 65536)
    for (std::int64_t i = first; i < end; ++i) image[i - first] = convert(values[size_t(i)]);
  });
}
template <typename T, typename S>
void upload_padded(Texture& texture, const Layout& layout, const std::vector<S>& values) {
  upload_padded<T>(texture, layout, values, [](S v) { return static_cast<T>(v); });
}

}  // namespace

Field::Field(const Layout& layout)
    : layout_(layout), texture_(layout.width, layout.height, float_format(layout)) {}

void Field::upload(const std::vector<float>& values) { upload_padded<float>(texture_, layout_, values); }
void Field::upload(const std::vector<double>& values) { upload_padded<float>(texture_, layout_, values); }
void Field::upload_low_parts(const std::vector<double>& values) {
  upload_padded<float>(texture_, layout_, values, [](double v) { return static_cast<float>(v - double(float(v))); });
}

std::vector<float> Field::download(std::int64_t begin, std::int64_t end) const {
  if (end < 0) end = layout_.n;
  SS_REQUIRE(0 <= begin && begin <= end && end <= layout_.n,
             "download range [" << begin << ", " << end << ") outside a field of " << layout_.n << " elements");
  if (begin == end) return {};
  // Read the rows that hold [begin, end) and cut the range out of them.
  const std::int64_t per_row = std::int64_t(layout_.width) * layout_.elements_per_texel;
  const int first_row = int(begin / per_row);
  const int last_row = int((end - 1) / per_row);
  std::vector<float> rows(size_t((last_row - first_row + 1) * per_row));
  texture_.read_rows(first_row, last_row - first_row + 1, rows.data());
  const std::int64_t offset = begin - first_row * per_row;
  return std::vector<float>(rows.begin() + offset, rows.begin() + offset + (end - begin));
}

void Field::swap_texture(Texture& other) {
  SS_REQUIRE(other.width() == texture_.width() && other.height() == texture_.height() &&
                 other.format() == texture_.format(),
             "ping-pong partner has a different shape");
  std::swap(texture_, other);
}

IndexField::IndexField(const Layout& layout)
    : layout_(layout), texture_(layout.width, layout.height, int_format(layout)) {}

void IndexField::upload(const std::vector<std::int32_t>& values) {
  upload_padded<std::int32_t>(texture_, layout_, values);
  std::int32_t lo = values.empty() ? 0 : values[0], hi = lo;
  const std::int64_t n = std::int64_t(values.size());
#pragma omp parallel for schedule(static) reduction(min : lo) reduction(max : hi) if (n > 65536)
  for (std::int64_t i = 0; i < n; ++i) lo = std::min(lo, values[size_t(i)]), hi = std::max(hi, values[size_t(i)]);
  min_ = lo;
  max_ = hi;
}

std::vector<std::int32_t> IndexField::download() const {
  std::vector<std::int32_t> image(size_t(layout_.capacity()));
  texture_.read_rows(0, layout_.height, image.data());
  image.resize(size_t(layout_.n));
  return image;
}

Texture TexturePool::take(int width, int height, TexelFormat format) {
  auto& list = spare_[{width, height, format}];
  if (list.empty()) return Texture(width, height, format);
  Texture texture = std::move(list.back());
  list.pop_back();
  return texture;
}

void TexturePool::give(Texture texture) {
  if (!texture) return;
  spare_[{texture.width(), texture.height(), texture.format()}].push_back(std::move(texture));
}

}  // namespace ss
