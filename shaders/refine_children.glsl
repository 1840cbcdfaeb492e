// One uniform refinement on the GPU, from the coarse level's tables (mesh/refine.hpp, refine_once,
// is the CPU twin). Coordinates are doubles (GLSL fp64; `precise`: no fused multiply-add). GLSL
// only promises fp64 arithmetic at least as precise as fp32, and volumes and lengths computed here
// can come out ~1e-7 relative on real drivers: so no decision here depends on fp64 arithmetic.
uniform isampler2D coarse_coordinates;  // 6 per coarse node: x, y, z, each as (low word, high word) of the double
uniform isampler2D low_node_offsets;    // interleaved: edges whose low node is below v (Topology::edge_offsets_by_low_node)
uniform int coarse_nodes;
uniform int interleaved;                // 1: RefineNumbering::interleaved, 0: coarse_first

double coarse_coordinate(int i) {
  return packDouble2x32(uvec2(ss_index_element(coarse_coordinates, 2 * i), ss_index_element(coarse_coordinates, 2 * i + 1)));
}
dvec3 coarse_point(int v) { return dvec3(coarse_coordinate(3 * v), coarse_coordinate(3 * v + 1), coarse_coordinate(3 * v + 2)); }
dvec3 midpoint(dvec3 a, dvec3 b) {
  precise dvec3 m = 0.5 * (a + b);
  return m;
}

// Fine id of coarse node v, and of the midpoint of coarse edge e whose low node is `low`
// (refined_node_ids): interleaved puts v after the coarse nodes below it and their edges' midpoints.
int fine_node_id(int v) { return interleaved != 0 ? v + ss_index_element(low_node_offsets, v) : v; }
int fine_midpoint_id(int e, int low) { return interleaved != 0 ? e + low + 1 : coarse_nodes + e; }

// The eight children of a coarse tet (refine_once): which diagonal cuts the inner octahedron and
// which children are reoriented is decided on the host, in double, one code per coarse cell
// (refine_cut): the connectivity is integer work here and equals the CPU's by construction.
uniform isampler2D coarse_cells;       // 4 node ids per coarse cell
uniform isampler2D coarse_cell_edges;  // 6 edge ids per coarse cell, kTetEdgeNodes order
uniform isampler2D coarse_cuts;        // refine_cut of each coarse cell

// refined_child_slots: the corners of child k as slots (0..3 the corners, 4..9 the midpoints of
// local edges 01 02 03 12 13 23).
ivec4 child_slots(int cut, int k) {
  const ivec4 corner_children[4] = ivec4[4](ivec4(0, 4, 5, 6), ivec4(4, 1, 7, 8), ivec4(5, 7, 2, 9), ivec4(6, 8, 9, 3));
  const ivec2 diagonals[3] = ivec2[3](ivec2(4, 9), ivec2(5, 8), ivec2(6, 7));
  ivec4 slots;
  if (k < 4) {
    slots = corner_children[k];
  } else {
    int best = cut & 3;
    ivec2 ru = diagonals[(best + 1) % 3], sw = diagonals[(best + 2) % 3];
    int equator[5] = int[5](ru.x, sw.x, ru.y, sw.y, ru.x);  // r, s, u, w, r
    slots = ivec4(diagonals[best], equator[k - 4], equator[k - 3]);
  }
  return (cut & (4 << k)) != 0 ? slots.xywz : slots;
}

// Child `fine_cell % 8` of coarse cell `fine_cell / 8`: its fine node ids and their coordinates.
void refined_child(int fine_cell, out ivec4 nodes, out dvec3 p[4]) {
  int c = fine_cell >> 3, k = fine_cell & 7;
  ivec4 t = ss_index_quad(coarse_cells, c);
  ivec4 slots = child_slots(ss_index_element(coarse_cuts, c), k);
  const ivec2 edge_nodes[6] = ivec2[6](ivec2(0, 1), ivec2(0, 2), ivec2(0, 3), ivec2(1, 2), ivec2(1, 3), ivec2(2, 3));
  for (int i = 0; i < 4; ++i) {
    int slot = slots[i];
    if (slot < 4) {
      nodes[i] = fine_node_id(t[slot]);
      p[i] = coarse_point(t[slot]);
    } else {
      int a = t[edge_nodes[slot - 4].x], b = t[edge_nodes[slot - 4].y];
      nodes[i] = fine_midpoint_id(ss_index_element(coarse_cell_edges, 6 * c + slot - 4), min(a, b));
      p[i] = midpoint(coarse_point(a), coarse_point(b));
    }
  }
}
