#include "field/layout.hpp"

#include <cmath>

#include "util/error.hpp"

namespace ss {

// Appendix A.4 of the thesis, step by step: halve the block dimension B until the number of blocks
// S_min < 0.75·R_min², then find the most square y·x = S_min with 2 <= y and x <= R_min, growing
// S_min until one exists. W = B·x, H = B·y, so log2(B) quarter reductions are exact.
void thesis_dimensions(std::int64_t texels, int rmin, int& width, int& height) {
  const double factor = 0.75;
  std::int64_t block_dim = 1;
  std::int64_t s_min = texels;
  while (double(s_min) >= factor * rmin * rmin) {
    block_dim *= 2;
    s_min = 1 + (texels - 1) / (block_dim * block_dim);
  }
  const std::int64_t y_max = 1 + std::int64_t(std::floor(std::sqrt(double(s_min))));
  const std::int64_t y_min = 2;
  std::int64_t y = 0, x = 0;
  while (y < y_min || x > rmin) {
    y = y_max;
    while (s_min % y > 0 && y >= y_min) --y;
    x = s_min / y;
    ++s_min;
  }
  width = int(block_dim * x);
  height = int(block_dim * y);
}

// Tight: the most square H <= W whose padding is at most texels/2048 (< 0.05 %); if none exists,
// the least padding found (ties: most square). Padding at height h is (-texels mod h) < h, so the
// search from sqrt(texels) downwards ends quickly for large arrays.
void tight_dimensions(std::int64_t texels, int max_size, int& width, int& height) {
  const std::int64_t tolerance = texels / 2048;
  const std::int64_t h_min = std::max<std::int64_t>(1, (texels + max_size - 1) / max_size);
  std::int64_t h_start = std::int64_t(std::sqrt(double(texels)));
  while ((h_start + 1) * (h_start + 1) <= texels) ++h_start;
  h_start = std::min<std::int64_t>(std::max(h_start, h_min), max_size);
  std::int64_t best_h = -1, best_pad = 0;
  for (std::int64_t h = h_start; h >= h_min; --h) {
    const std::int64_t w = (texels + h - 1) / h;
    const std::int64_t pad = w * h - texels;
    if (best_h < 0 || pad < best_pad) best_h = h, best_pad = pad;
    if (pad <= tolerance) break;
  }
  // h_min > sqrt(texels) can only happen near the size limit: then W = max_size rows of width.
  height = int(best_h);
  width = int((texels + best_h - 1) / best_h);
}

Layout make_layout(std::int64_t n, const LayoutOptions& options) {
  SS_REQUIRE(n >= 1, "a field needs at least one element (got " << n << ")");
  SS_REQUIRE(options.rmin >= 2, "R_min must be at least 2 (got " << options.rmin << ")");
  Layout layout;
  layout.n = n;
  layout.elements_per_texel = int(options.packing);
  const std::int64_t texels = (n + layout.elements_per_texel - 1) / layout.elements_per_texel;
  const std::int64_t limit = std::int64_t(options.max_size) * options.max_size;
  SS_REQUIRE(texels <= limit, "field of " << n << " elements needs " << texels << " texels, more than the device's "
                              << options.max_size << "x" << options.max_size << " texture limit");
  if (options.policy == LayoutPolicy::thesis)
    thesis_dimensions(texels, options.rmin, layout.width, layout.height);
  else
    tight_dimensions(texels, options.max_size, layout.width, layout.height);
  SS_REQUIRE(layout.width <= options.max_size && layout.height <= options.max_size,
             "the " << to_string(options.policy) << " layout of " << n << " elements is " << layout.width << "x"
                    << layout.height << ", beyond the device's texture limit " << options.max_size);
  return layout;
}

LayoutPolicy parse_layout_policy(const std::string& name) {
  if (name == "tight") return LayoutPolicy::tight;
  if (name == "thesis") return LayoutPolicy::thesis;
  SS_THROW("unknown layout policy '" << name << "' (tight or thesis)");
}

const char* to_string(LayoutPolicy policy) { return policy == LayoutPolicy::tight ? "tight" : "thesis"; }

Packing parse_packing(const std::string& name) {
  if (name == "R32F" || name == "r32f") return Packing::r32f;
  if (name == "RGBA32F" || name == "rgba32f") return Packing::rgba32f;
  SS_THROW("unknown texture format '" << name << "' (R32F or RGBA32F)");
}

const char* to_string(Packing packing) { return packing == Packing::r32f ? "R32F" : "RGBA32F"; }

}  // namespace ss
