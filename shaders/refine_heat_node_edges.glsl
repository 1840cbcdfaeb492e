// The fine level's node graph (Topology::node_offsets / node_edges / node_neighbors), one element per
// CSR entry, from the coarse level: row i is entries [fine_offsets[i], fine_offsets[i + 1]) (the
// offsets are made on the host from the coarse counts). A coarse node's row lists the halves of its
// coarse edges; the midpoint of coarse edge e lists
//   its two halves, then for each face around e the face's two inner edges at the midpoint, then
//   the diagonals that end at it (cells around e, in edge_cells order).
// Output: the entry's fine edge (neighbors_output = 0) or its other node (1). Integer output.
#include "refine_children.glsl"
#include "refine_fine_edges.glsl"
uniform isampler2D fine_offsets;        // fine nodes + 1 entries
uniform isampler2D coarse_node_offsets; // the coarse node CSR (Topology::node_offsets, node_edges)
uniform isampler2D coarse_node_edges;
uniform isampler2D edge_face_offsets;   // the faces around each coarse edge (Topology::edge_faces)
uniform isampler2D edge_faces;
uniform int fine_nodes;
uniform int neighbors_output;

int fine_edge_of_entry(int i, int r) {
  int v, e;
  fine_node_entity(i, v, e);
  if (e < 0) {  // coarse node v: the half of its r-th coarse edge at v
    int edge = ss_index_element(coarse_node_edges, ss_index_element(coarse_node_offsets, v) + r);
    return 2 * edge + (ss_index_element(coarse_edge_nodes, 2 * edge) == v ? 0 : 1);
  }
  if (r < 2) return 2 * e + r;
  int first_face = ss_index_element(edge_face_offsets, e);
  int faces = ss_index_element(edge_face_offsets, e + 1) - first_face;
  if (r < 2 + 2 * faces) {
    int f = ss_index_element(edge_faces, first_face + (r - 2) / 2);
    // Face edge j of f is e: inner edges j (mid j - mid j+1) and j + 2 (mid j+2 - mid j) hold e's midpoint.
    int lo = ss_index_element(coarse_edge_nodes, 2 * e), hi = ss_index_element(coarse_edge_nodes, 2 * e + 1);
    ivec3 p = ivec3(ss_index_element(coarse_face_nodes, 3 * f), ss_index_element(coarse_face_nodes, 3 * f + 1),
                    ss_index_element(coarse_face_nodes, 3 * f + 2));
    int j = (min(p.x, p.y) == lo && max(p.x, p.y) == hi) ? 0 : (min(p.y, p.z) == lo && max(p.y, p.z) == hi) ? 1 : 2;
    return 2 * coarse_edges + 3 * f + ((r - 2) % 2 == 0 ? j : (j + 2) % 3);
  }
  int wanted = r - 2 - 2 * faces;  // the wanted-th cell around e whose diagonal ends at e's midpoint
  int r_end = ss_index_element(edge_cell_offsets, e + 1);
  for (int q = ss_index_element(edge_cell_offsets, e); q < r_end; ++q) {
    int entry = ss_index_element(edge_cells, q), c = entry / 6;
    if (on_diagonal(c, entry % 6)) {
      if (wanted == 0) return 2 * coarse_edges + 3 * coarse_faces + c;
      --wanted;
    }
  }
  return 0;  // not reached: the host counted these diagonals
}

int entry_value(int s) {
  int lo = 0, hi = fine_nodes - 1;  // the row holding entry s: the largest i with fine_offsets[i] <= s
  while (lo < hi) {
    int mid = (lo + hi + 1) >> 1;
    if (ss_index_element(fine_offsets, mid) <= s) lo = mid;
    else hi = mid - 1;
  }
  int edge = fine_edge_of_entry(lo, s - ss_index_element(fine_offsets, lo));
  if (neighbors_output == 0) return edge;
  ivec2 ends = fine_edge_nodes(edge);
  return ends.x == lo ? ends.y : ends.x;
}

SS_IVALUE kernel(ivec2 texel) {
  int first = ss_first_element(texel);
  SS_IVALUE values = SS_IVALUE(0);
  for (int k = 0; k < SS_ELEMENTS_PER_TEXEL; ++k) {
    if (first + k >= ss_n) break;
#if SS_ELEMENTS_PER_TEXEL == 4
    values[k] = entry_value(first + k);
#else
    values = entry_value(first + k);
#endif
  }
  return values;
}
