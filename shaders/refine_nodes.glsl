// Coordinates of the fine nodes (refine_once): a coarse node keeps its position, an edge's node is
// its midpoint 0.5 (a + b), both in double from the coarse level, rounded to float once.
#include "refine_children.glsl"
uniform isampler2D coarse_edge_nodes;  // 2 per coarse edge: low node, high node

// The coarse nodes (a, b) whose midpoint fine node i is (a == b: coarse node a itself).
ivec2 fine_node_source(int i) {
  if (interleaved == 0) {
    if (i < coarse_nodes) return ivec2(i);
    int e = i - coarse_nodes;
    return ivec2(ss_index_element(coarse_edge_nodes, 2 * e), ss_index_element(coarse_edge_nodes, 2 * e + 1));
  }
  // Interleaved: the coarse node v with the largest fine id <= i (binary search; fine ids grow
  // with v), then fine node i is v itself or the midpoint of v's (i - id(v))-th edge.
  int lo = 0, hi = coarse_nodes - 1;
  while (lo < hi) {
    int mid = (lo + hi + 1) >> 1;
    if (fine_node_id(mid) <= i) lo = mid;
    else hi = mid - 1;
  }
  int k = i - fine_node_id(lo);
  if (k == 0) return ivec2(lo);
  int e = ss_index_element(low_node_offsets, lo) + k - 1;
  return ivec2(lo, ss_index_element(coarse_edge_nodes, 2 * e + 1));
}

void kernel(ivec2 texel, out SS_VALUE x, out SS_VALUE y, out SS_VALUE z) {
  int first = ss_first_element(texel);
  vec4 px = vec4(0.0), py = vec4(0.0), pz = vec4(0.0);
  for (int c = 0; c < SS_ELEMENTS_PER_TEXEL; ++c) {
    int i = first + c;
    if (i >= ss_n) break;
    ivec2 s = fine_node_source(i);
    dvec3 p = s.x == s.y ? coarse_point(s.x) : midpoint(coarse_point(s.x), coarse_point(s.y));
    px[c] = float(p.x), py[c] = float(p.y), pz[c] = float(p.z);
  }
  x = ss_from_vec4(px), y = ss_from_vec4(py), z = ss_from_vec4(pz);
}
