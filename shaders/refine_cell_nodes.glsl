// Corners of the fine cells, 4 per cell (refine_once: the children of coarse cell c are fine cells
// 8c .. 8c + 7). Integer output.
#include "refine_children.glsl"
SS_IVALUE kernel(ivec2 texel) {
  int first = ss_first_element(texel);
  if (first >= ss_n) return SS_IVALUE(0);
  ivec4 nodes;
  dvec3 p[4];
  refined_child(first >> 2, nodes, p);  // RGBA packing: the texel is one whole cell
#if SS_ELEMENTS_PER_TEXEL == 4
  return nodes;
#else
  return nodes[first & 3];
#endif
}
