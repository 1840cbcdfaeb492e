// One uniform refinement on the GPU, from the coarse level's tables (mesh/refine.hpp, refine_once,
// is the CPU twin). Every coordinate operation is `precise` (no fused multiply-add), so the fine
// nodes' double coordinates are the CPU twin's bit for bit.
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

// The eight children of a coarse tet (refine_once): corner children 0..3, then the inner octahedron
// cut along its shortest diagonal (the first of the shortest on ties, lengths compared squared),
// each child with nodes 2 and 3 swapped when its signed volume is negative.
uniform isampler2D coarse_cells;       // 4 node ids per coarse cell
uniform isampler2D coarse_cell_edges;  // 6 edge ids per coarse cell, kTetEdgeNodes order

// (p1 - p0) . ((p2 - p0) x (p3 - p0)): six times the signed volume (signed_tet_volume).
double six_volume(dvec3 p0, dvec3 p1, dvec3 p2, dvec3 p3) {
  precise dvec3 a = p1 - p0, b = p2 - p0, c = p3 - p0;
  precise dvec3 n = dvec3(b.y * c.z - c.y * b.z, b.z * c.x - c.z * b.x, b.x * c.y - c.x * b.y);  // glm::cross
  precise double v = (a.x * n.x + a.y * n.y) + a.z * n.z;                                        // glm::dot
  return v;
}
double squared_distance(dvec3 a, dvec3 b) {
  precise dvec3 d = a - b;
  precise double s = (d.x * d.x + d.y * d.y) + d.z * d.z;
  return s;
}

// Child `fine_cell % 8` of coarse cell `fine_cell / 8`: its fine node ids and their coordinates.
void refined_child(int fine_cell, out ivec4 nodes, out dvec3 p[4]) {
  int c = fine_cell >> 3, k = fine_cell & 7;
  ivec4 t = ss_index_quad(coarse_cells, c);
  int id[10];      // fine ids: corners 0..3, then the midpoints of local edges 01 02 03 12 13 23
  dvec3 q[10];
  for (int i = 0; i < 4; ++i) id[i] = fine_node_id(t[i]), q[i] = coarse_point(t[i]);
  const ivec2 edge_nodes[6] = ivec2[6](ivec2(0, 1), ivec2(0, 2), ivec2(0, 3), ivec2(1, 2), ivec2(1, 3), ivec2(2, 3));
  for (int m = 0; m < 6; ++m) {
    int a = edge_nodes[m].x, b = edge_nodes[m].y;
    id[4 + m] = fine_midpoint_id(ss_index_element(coarse_cell_edges, 6 * c + m), min(t[a], t[b]));
    q[4 + m] = midpoint(q[a], q[b]);
  }
  // Local slots of the corners of each child (corner children first), the inner ones by diagonal.
  const ivec4 corner_children[4] = ivec4[4](ivec4(0, 4, 5, 6), ivec4(4, 1, 7, 8), ivec4(5, 7, 2, 9), ivec4(6, 8, 9, 3));
  ivec4 slots;
  if (k < 4) {
    slots = corner_children[k];
  } else {
    // Opposite midpoint pairs (01, 23), (02, 13), (03, 12).
    const ivec2 diagonals[3] = ivec2[3](ivec2(4, 9), ivec2(5, 8), ivec2(6, 7));
    int best = 0;
    double best_length = squared_distance(q[4], q[9]);
    for (int d = 1; d < 3; ++d) {
      double length = squared_distance(q[diagonals[d].x], q[diagonals[d].y]);
      if (length < best_length) best = d, best_length = length;
    }
    int pp = diagonals[best].x, qq = diagonals[best].y;
    int r = diagonals[(best + 1) % 3].x, u = diagonals[(best + 1) % 3].y;
    int s = diagonals[(best + 2) % 3].x, w = diagonals[(best + 2) % 3].y;
    // Equator r, s, u, w visited alternately (children 4..7: (r, s), (s, u), (u, w), (w, r)).
    ivec2 equator[4] = ivec2[4](ivec2(r, s), ivec2(s, u), ivec2(u, w), ivec2(w, r));
    slots = ivec4(pp, qq, equator[k - 4].x, equator[k - 4].y);
  }
  for (int i = 0; i < 4; ++i) nodes[i] = id[slots[i]], p[i] = q[slots[i]];
  if (six_volume(p[0], p[1], p[2], p[3]) < 0.0) {
    nodes = nodes.xywz;
    dvec3 swap = p[2];
    p[2] = p[3];
    p[3] = swap;
  }
}
