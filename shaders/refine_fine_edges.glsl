// The fine level's edges, made from the coarse level's tables (operators/gpu_refined_heat.hpp; include
// after refine_children.glsl). With E coarse edges and F coarse faces, fine edge i is
//   i = 2e + h             the half of coarse edge e at its low (h = 0) or high (h = 1) node;
//   i = 2E + 3f + j        in coarse face f (nodes p0 p1 p2), the edge joining the midpoints of the
//                          face's edges j and j + 1 (face edge j runs from p_j to p_(j+1), indices mod 3);
//   i = 2E + 3F + c        the diagonal of coarse cell c's inner octahedron (its refine_cut).
// In the coarse cells that hold it, a fine edge is a pair of slots (refine_children.glsl: 0..3 the
// corners, 4 + k the midpoint of local edge k).
uniform isampler2D coarse_edge_nodes;  // 2 per coarse edge: low, high
uniform isampler2D coarse_face_nodes;  // 3 per coarse face
uniform isampler2D coarse_face_cells;  // 2 per coarse face; -1: none (boundary)
uniform isampler2D edge_cell_offsets;  // CSR over coarse edges: the cells around each edge
uniform isampler2D edge_cells;         // 6c + k: coarse cell c holds the edge as its local edge k
uniform int coarse_edges;
uniform int coarse_faces;

const ivec2 kLocalEdgeNodes[6] = ivec2[6](ivec2(0, 1), ivec2(0, 2), ivec2(0, 3), ivec2(1, 2), ivec2(1, 3), ivec2(2, 3));

// Local edge (kTetEdgeNodes order) joining local nodes a != b.
int local_edge(int a, int b) {
  int lo = min(a, b), hi = max(a, b);
  return lo == 0 ? hi - 1 : lo + hi;  // 01 02 03 -> 0 1 2; 12 13 -> 3 4; 23 -> 5
}
int local_node(ivec4 t, int v) { return t.x == v ? 0 : t.y == v ? 1 : t.z == v ? 2 : 3; }

// The fine node id of slot `slot` of coarse cell c (corners t).
int slot_node_id(int c, ivec4 t, int slot) {
  if (slot < 4) return fine_node_id(t[slot]);
  ivec2 ends = kLocalEdgeNodes[slot - 4];
  return fine_midpoint_id(ss_index_element(coarse_cell_edges, 6 * c + slot - 4), min(t[ends.x], t[ends.y]));
}

// The diagonal of coarse cell c's octahedron as two slots.
ivec2 diagonal_slots(int c) {
  const ivec2 diagonals[3] = ivec2[3](ivec2(4, 9), ivec2(5, 8), ivec2(6, 7));
  return diagonals[ss_index_element(coarse_cuts, c) & 3];
}

// Fine edge i of a coarse face (i >= 2E, i < 2E + 3F) in one coarse cell holding the face: its slots.
ivec2 face_edge_slots(int i, int c) {
  int f = (i - 2 * coarse_edges) / 3, j = (i - 2 * coarse_edges) % 3;
  ivec4 t = ss_index_quad(coarse_cells, c);
  int l0 = local_node(t, ss_index_element(coarse_face_nodes, 3 * f + j));
  int l1 = local_node(t, ss_index_element(coarse_face_nodes, 3 * f + (j + 1) % 3));
  int l2 = local_node(t, ss_index_element(coarse_face_nodes, 3 * f + (j + 2) % 3));
  return ivec2(4 + local_edge(l0, l1), 4 + local_edge(l1, l2));
}

// Fine node i is coarse node v (e = -1) or the midpoint of coarse edge e (v unused): the inverse of
// fine_node_id / fine_midpoint_id. Interleaved: the largest v with fine_node_id(v) <= i; past it come
// v's edges' midpoints, fine_midpoint_id(e, v) = e + v + 1.
void fine_node_entity(int i, out int v, out int e) {
  e = -1;
  if (interleaved != 0) {
    int lo = 0, hi = coarse_nodes - 1;
    while (lo < hi) {
      int mid = (lo + hi + 1) >> 1;
      if (fine_node_id(mid) <= i) lo = mid;
      else hi = mid - 1;
    }
    v = lo;
    if (fine_node_id(v) != i) e = i - v - 1;
  } else {
    v = i;
    if (i >= coarse_nodes) e = i - coarse_nodes;
  }
}

// Whether local edge k's midpoint is an end of coarse cell c's octahedron diagonal.
bool on_diagonal(int c, int k) { return any(equal(diagonal_slots(c), ivec2(4 + k))); }

// Fine edge i's two fine node ids (any order).
ivec2 fine_edge_nodes(int i) {
  if (i < 2 * coarse_edges) {
    int e = i >> 1;
    int lo = ss_index_element(coarse_edge_nodes, 2 * e), hi = ss_index_element(coarse_edge_nodes, 2 * e + 1);
    return ivec2(fine_node_id((i & 1) == 0 ? lo : hi), fine_midpoint_id(e, lo));
  }
  int c;
  ivec2 slots;
  if (i < 2 * coarse_edges + 3 * coarse_faces) {
    c = ss_index_element(coarse_face_cells, 2 * ((i - 2 * coarse_edges) / 3));
    slots = face_edge_slots(i, c);
  } else {
    c = i - 2 * coarse_edges - 3 * coarse_faces;
    slots = diagonal_slots(c);
  }
  ivec4 t = ss_index_quad(coarse_cells, c);
  return ivec2(slot_node_id(c, t, slots.x), slot_node_id(c, t, slots.y));
}
