// The fine level's heat stiffness K_ab per fine edge (operators/heat_operator.hpp:
// K_ab = Σ over the cells holding edge ab of k_c V_c ∇λ_a·∇λ_b), in refine_fine_edges.glsl's order,
// from the coarse level: a fine edge's cells are children of the coarse cells around its coarse
// edge (the halves), face (≤ 2 cells) or cell (the diagonal).
#include "refine_children.glsl"
#include "refine_fine_edges.glsl"
uniform sampler2D coarse_volumes_eighth;  // V/8 of each coarse cell: every child's volume
uniform sampler2D coarse_conductivity;    // k of each coarse cell (its children's)

uniform sampler2D coarse_coordinates_hi;  // 3 per coarse node: float(x)
uniform sampler2D coarse_coordinates_lo;  // 3 per coarse node: x - float(x), rounded to float

vec3 corner_hi(int v) { return vec3(ss_element(coarse_coordinates_hi, 3 * v), ss_element(coarse_coordinates_hi, 3 * v + 1), ss_element(coarse_coordinates_hi, 3 * v + 2)); }
vec3 corner_lo(int v) { return vec3(ss_element(coarse_coordinates_lo, 3 * v), ss_element(coarse_coordinates_lo, 3 * v + 1), ss_element(coarse_coordinates_lo, 3 * v + 2)); }

// Σ over the children of coarse cell c holding both slots of k V ∇λ_a·∇λ_b. With ∇λ_m = −S_m/(3V)
// and S_m = n_m/2 the area vector of the face opposite corner m: k (n_a·n_b) / (36 V). The sign of
// n does not matter (both flip together).
// The ten slot points are taken relative to corner 0, in float: corner m at (hi_m − hi_0) + (lo_m − lo_0),
// each difference correctly rounded, so a point is within a few float roundings of the cell's size,
// not of the coordinates' size (a fine cell is 2^-K of the mesh: GLSL fp64 differences, which some
// drivers compute no better than float, would lose 2^K of that).
float children_coefficient(int c, int slot_a, int slot_b) {
  ivec4 t = ss_index_quad(coarse_cells, c);
  vec3 q[10];
  vec3 hi0 = corner_hi(t.x), lo0 = corner_lo(t.x);
  q[0] = vec3(0.0);
  for (int m = 1; m < 4; ++m) {
    precise vec3 d = (corner_hi(t[m]) - hi0) + (corner_lo(t[m]) - lo0);
    q[m] = d;
  }
  for (int k = 0; k < 6; ++k) q[4 + k] = 0.5 * (q[kLocalEdgeNodes[k].x] + q[kLocalEdgeNodes[k].y]);
  const ivec3 face_nodes[4] = ivec3[4](ivec3(1, 2, 3), ivec3(0, 3, 2), ivec3(0, 1, 3), ivec3(0, 2, 1));  // kTetFaceNodes
  int cut = ss_index_element(coarse_cuts, c);
  float sum = 0.0;
  for (int k = 0; k < 8; ++k) {
    ivec4 s = child_slots(cut, k);
    int ia = -1, ib = -1;
    for (int m = 0; m < 4; ++m) {
      if (s[m] == slot_a) ia = m;
      if (s[m] == slot_b) ib = m;
    }
    if (ia < 0 || ib < 0) continue;
    ivec3 fa = face_nodes[ia], fb = face_nodes[ib];
    vec3 na = cross(q[s[fa.y]] - q[s[fa.x]], q[s[fa.z]] - q[s[fa.x]]);
    vec3 nb = cross(q[s[fb.y]] - q[s[fb.x]], q[s[fb.z]] - q[s[fb.x]]);
    sum += dot(na, nb);
  }
  return ss_element(coarse_conductivity, c) * sum / (36.0 * ss_element(coarse_volumes_eighth, c));
}

float fine_edge_coefficient(int i) {
  float sum = 0.0;
  if (i < 2 * coarse_edges) {  // a half of coarse edge e: the corner child at its node in each cell around e
    int e = i >> 1;
    int v = ss_index_element(coarse_edge_nodes, 2 * e + (i & 1));
    for (int r = ss_index_element(edge_cell_offsets, e); r < ss_index_element(edge_cell_offsets, e + 1); ++r) {
      int entry = ss_index_element(edge_cells, r), c = entry / 6, k = entry % 6;
      ivec2 ends = kLocalEdgeNodes[k];
      int corner = ss_index_quad(coarse_cells, c)[ends.x] == v ? ends.x : ends.y;
      sum += children_coefficient(c, corner, 4 + k);
    }
  } else if (i < 2 * coarse_edges + 3 * coarse_faces) {  // inside a coarse face: its one or two cells
    int f = (i - 2 * coarse_edges) / 3;
    for (int side = 0; side < 2; ++side) {
      int c = ss_index_element(coarse_face_cells, 2 * f + side);
      if (c < 0) continue;
      ivec2 slots = face_edge_slots(i, c);
      sum += children_coefficient(c, slots.x, slots.y);
    }
  } else {  // an octahedron's diagonal: its coarse cell
    int c = i - 2 * coarse_edges - 3 * coarse_faces;
    ivec2 slots = diagonal_slots(c);
    sum = children_coefficient(c, slots.x, slots.y);
  }
  return sum;
}

SS_VALUE kernel(ivec2 texel) {
  int first = ss_first_element(texel);
  vec4 values = vec4(0.0);
  for (int k = 0; k < SS_ELEMENTS_PER_TEXEL; ++k) {
    if (first + k >= ss_n) break;
    values[k] = fine_edge_coefficient(first + k);
  }
  return ss_from_vec4(values);
}
