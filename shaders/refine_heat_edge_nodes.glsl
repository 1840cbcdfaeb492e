// The fine level's edges as node pairs, 2 per edge (low id, high id: Topology::edge_nodes'
// orientation), in refine_fine_edges.glsl's order. Integer output.
#include "refine_children.glsl"
#include "refine_fine_edges.glsl"
SS_IVALUE kernel(ivec2 texel) {
  int first = ss_first_element(texel);
  SS_IVALUE ids = SS_IVALUE(0);
  for (int k = 0; k < SS_ELEMENTS_PER_TEXEL; ++k) {
    int i = first + k;
    if (i >= ss_n) break;
    ivec2 ends = fine_edge_nodes(i >> 1);
    int id = (i & 1) == 0 ? min(ends.x, ends.y) : max(ends.x, ends.y);
#if SS_ELEMENTS_PER_TEXEL == 4
    ids[k] = id;
#else
    ids = id;
#endif
  }
  return ids;
}
