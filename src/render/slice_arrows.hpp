#pragma once
// Where the flow picture's arrows go: a regular grid over a slice's bounding box, each grid point
// inside the cut carrying the in-plane vector interpolated there (linear in the cut's triangles).
#include <vector>

#include <glm/vec2.hpp>

#include "render/slice_geometry.hpp"

namespace ss {

struct SliceArrow {
  glm::dvec2 at;         // plane coordinates of the arrow's middle (a grid point)
  glm::dvec2 direction;  // unit, in plane coordinates
  double speed;          // length of the in-plane vector there
};

// The grid has `across` points along the box's longer side, spacing = that side / across, and as
// many along the other side as fit, the whole grid centred in the box (points half a spacing in
// from its edges when the count fits exactly). Points outside the cut, with non-finite vectors or
// with less than min_fraction of the largest speed found get no arrow. Needs cut.vectors; across <= 0: none.
std::vector<SliceArrow> slice_arrows(const SliceCut& cut, int across, double min_fraction = 0.01);

// The grid spacing slice_arrows() uses for the cut and `across`.
double slice_arrow_spacing(const SliceCut& cut, int across);

}  // namespace ss
