#include "render/slice_arrows.hpp"

#include <algorithm>
#include <cmath>

#include <glm/geometric.hpp>

#include "util/error.hpp"

namespace ss {

double slice_arrow_spacing(const SliceCut& cut, int across) {
  const glm::dvec2 span = cut.hi - cut.lo;
  return std::max(span.x, span.y) / std::max(1, across);
}

std::vector<SliceArrow> slice_arrows(const SliceCut& cut, int across, double min_fraction) {
  if (across <= 0 || cut.vectors.empty()) return {};
  SS_REQUIRE(cut.vectors.size() == cut.points.size(), "slice cut with " << cut.vectors.size() << " vectors for "
                                                                        << cut.points.size() << " points");
  const double spacing = slice_arrow_spacing(cut, across);
  if (!(spacing > 0.0)) return {};
  const glm::dvec2 span = cut.hi - cut.lo;
  const int nx = std::max(1, int(std::floor(span.x / spacing + 1e-9)));
  const int ny = std::max(1, int(std::floor(span.y / spacing + 1e-9)));
  const glm::dvec2 first = cut.lo + 0.5 * (span - glm::dvec2(nx - 1, ny - 1) * spacing);  // grid point (0, 0)

  // Each triangle visits the grid points in its bounding box; the first that contains a point
  // (barycentric coordinates >= -eps) gives it its vector.
  std::vector<glm::dvec2> vector_at(std::size_t(nx) * std::size_t(ny));
  std::vector<char> found(vector_at.size(), 0);
  const double eps = 1e-9;
  for (std::size_t t = 0; t < cut.triangles.size(); t += 3) {
    const std::uint32_t ia = cut.triangles[t], ib = cut.triangles[t + 1], ic = cut.triangles[t + 2];
    const glm::dvec2 a = cut.points[ia], b = cut.points[ib], c = cut.points[ic];
    const double det = (b.x - a.x) * (c.y - a.y) - (b.y - a.y) * (c.x - a.x);
    if (!(std::abs(det) > 0.0)) continue;
    const glm::dvec2 lo = glm::min(a, glm::min(b, c)), hi = glm::max(a, glm::max(b, c));
    const int i0 = std::max(0, int(std::ceil((lo.x - first.x) / spacing - eps)));
    const int i1 = std::min(nx - 1, int(std::floor((hi.x - first.x) / spacing + eps)));
    const int j0 = std::max(0, int(std::ceil((lo.y - first.y) / spacing - eps)));
    const int j1 = std::min(ny - 1, int(std::floor((hi.y - first.y) / spacing + eps)));
    for (int j = j0; j <= j1; ++j)
      for (int i = i0; i <= i1; ++i) {
        const std::size_t k = std::size_t(j) * std::size_t(nx) + std::size_t(i);
        if (found[k]) continue;
        const glm::dvec2 p = first + glm::dvec2(i, j) * spacing;
        const double wb = ((p.x - a.x) * (c.y - a.y) - (p.y - a.y) * (c.x - a.x)) / det;
        const double wc = ((b.x - a.x) * (p.y - a.y) - (b.y - a.y) * (p.x - a.x)) / det;
        const double wa = 1.0 - wb - wc;
        if (wa < -eps || wb < -eps || wc < -eps) continue;
        found[k] = 1;
        vector_at[k] = wa * cut.vectors[ia] + wb * cut.vectors[ib] + wc * cut.vectors[ic];
      }
  }

  double largest = 0;
  for (std::size_t k = 0; k < vector_at.size(); ++k) {
    const double s = glm::length(vector_at[k]);
    if (found[k] && std::isfinite(s)) largest = std::max(largest, s);
  }
  std::vector<SliceArrow> arrows;
  if (!(largest > 0.0)) return arrows;
  for (int j = 0; j < ny; ++j)
    for (int i = 0; i < nx; ++i) {
      const std::size_t k = std::size_t(j) * std::size_t(nx) + std::size_t(i);
      const double s = glm::length(vector_at[k]);
      if (!found[k] || !std::isfinite(s) || s < min_fraction * largest || !(s > 0.0)) continue;
      arrows.push_back({first + glm::dvec2(i, j) * spacing, vector_at[k] / s, s});
    }
  return arrows;
}

}  // namespace ss
