#pragma once
// A periodic 1D three-point operator built from backend primitives, for the Krylov solver tests:
//   (A x)_i = d x_i + l x_{i−1} + r x_{i+1}   (indices mod n)
// On the GPU the neighbours come from two gathers, so a solve runs entirely on textures.
#include <cstdint>
#include <vector>

namespace ss::test {

template <class Backend>
struct PeriodicStencil {
  Backend& backend;
  double d, l, r;
  typename Backend::IndexVector left, right;
  mutable typename Backend::Vector xl, xr;
  PeriodicStencil(Backend& b, std::int64_t n, double diagonal, double left_coefficient, double right_coefficient)
      : backend(b), d(diagonal), l(left_coefficient), r(right_coefficient), left(b.upload_indices(shifted(n, -1))),
        right(b.upload_indices(shifted(n, +1))), xl(b.make_vector(n)), xr(b.make_vector(n)) {}
  static std::vector<std::int32_t> shifted(std::int64_t n, int s) {
    std::vector<std::int32_t> idx(static_cast<size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) idx[size_t(i)] = std::int32_t(((i + s) % n + n) % n);
    return idx;
  }
  void operator()(const typename Backend::Vector& x, typename Backend::Vector& y) const {
    backend.gather(x, left, xl);
    backend.gather(x, right, xr);
    backend.linear_combination({d, l, r}, {&x, &xl, &xr}, y);
  }
};

}  // namespace ss::test
