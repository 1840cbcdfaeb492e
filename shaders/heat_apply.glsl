// Node-based diffusion (thesis §6.1) as a gather over node neighbours, one node per element:
//   (K·T)_i = Σ_{k in row i} K_ik (T[neighbor_k] - T_i)      (rows sum to zero: K·1 = 0 exactly)
// Row i of the CSR is entries [offsets[i], offsets[i+1]); in RGBA packing a fragment does four
// consecutive rows, each ending where the next begins, and the operator pads every row to a
// multiple of four entries (neighbour = the node itself, K = 0) so one fetch reads four neighbour
// ids and one four coefficients (quad_rows = 1).
uniform sampler2D T;             // nodal temperatures, same layout as the output
uniform isampler2D offsets;      // CSR row starts, num_nodes + 1 entries
uniform isampler2D neighbors;    // neighbour node of each entry
uniform sampler2D coefficients;  // K_ij of each entry
uniform int quad_rows;           // 1: rows padded to multiples of 4 entries, read a quad per fetch
// Σ_k K_ik (T[neighbor_k] - t_i) over entries [begin, end); padding entries have K = 0.
float row_sum(int begin, int end, float ti) {
  float s = 0.0;
  if (quad_rows != 0) {
    for (int q = begin >> 2; q < (end >> 2); ++q) {
      ivec4 j = ss_index_quad(neighbors, q);
      vec4 tj = vec4(ss_element(T, j.x), ss_element(T, j.y), ss_element(T, j.z), ss_element(T, j.w));
      s += dot(ss_quad(coefficients, q), tj - ti);
    }
  } else {
    for (int k = begin; k < end; ++k)
      s += ss_element(coefficients, k) * (ss_element(T, ss_index_element(neighbors, k)) - ti);
  }
  return s;
}
SS_VALUE kernel(ivec2 texel) {
  int first = ss_first_element(texel);
  vec4 t = ss_vec4(ss_load(T, texel));
  vec4 result = vec4(0.0);
  int begin = ss_index_element(offsets, min(first, ss_n));
  for (int c = 0; c < SS_ELEMENTS_PER_TEXEL; ++c) {
    int i = first + c;
    if (i >= ss_n) break;
    int end = ss_index_element(offsets, i + 1);
    result[c] = row_sum(begin, end, t[c]);
    begin = end;
  }
  return ss_from_vec4(result);
}
