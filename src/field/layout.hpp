#pragma once
// Layout: how a 1D array of N elements is stored in a W×H texture. Element i lives in texel
// t = i / P (P = elements per texel: 1 for R32F, 4 for RGBA32F), at texel (t mod W, t div W),
// component i mod P. Texels past the last element are padding.
#include <cstdint>
#include <string>

namespace ss {

enum class LayoutPolicy {
  tight,   // any W×H within the texture limit with minimal padding, close to square (default)
  thesis,  // Menon 2008, appendix A.4: W = B·x, H = B·y with B a power of two, x,y <= R_min
};

enum class Packing { r32f = 1, rgba32f = 4 };  // value = elements per texel

struct LayoutOptions {
  LayoutPolicy policy = LayoutPolicy::tight;
  int rmin = 32;                 // R_min of the thesis policy; reductions stop at <= R_min² texels
  int max_size = 16384;          // the device's GL_MAX_TEXTURE_SIZE
  Packing packing = Packing::r32f;
};

struct Layout {
  std::int64_t n = 0;            // elements
  int width = 0, height = 0;     // texels
  int elements_per_texel = 1;

  std::int64_t texels() const { return std::int64_t(width) * height; }
  std::int64_t capacity() const { return texels() * elements_per_texel; }
  std::int64_t padding() const { return capacity() - n; }
  double padding_percent() const { return n ? 100.0 * double(padding()) / double(n) : 0.0; }
  bool operator==(const Layout& o) const {
    return n == o.n && width == o.width && height == o.height && elements_per_texel == o.elements_per_texel;
  }
};

// Chooses W×H for n elements; throws ss::Error if n < 1 or it does not fit the texture limit.
Layout make_layout(std::int64_t n, const LayoutOptions& options);

// The two policies on texel counts (exposed for tests and `bench layout`).
void thesis_dimensions(std::int64_t texels, int rmin, int& width, int& height);
void tight_dimensions(std::int64_t texels, int max_size, int& width, int& height);

LayoutPolicy parse_layout_policy(const std::string& name);
const char* to_string(LayoutPolicy policy);
Packing parse_packing(const std::string& name);
const char* to_string(Packing packing);

}  // namespace ss
