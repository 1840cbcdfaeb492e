// Included by heat_apply.glsl and heat_apply_system.glsl (not a kernel by itself): one CSR row of
// the node-neighbour form of K. Needs samplers T, neighbors, coefficients and the int quad_rows.
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
// row_sum of every element of the texel (four consecutive rows in RGBA packing).
vec4 row_sums(ivec2 texel, vec4 t) {
  int first = ss_first_element(texel);
  vec4 result = vec4(0.0);
  int begin = ss_index_element(offsets, min(first, ss_n));
  for (int c = 0; c < SS_ELEMENTS_PER_TEXEL; ++c) {
    int i = first + c;
    if (i >= ss_n) break;
    int end = ss_index_element(offsets, i + 1);
    result[c] = row_sum(begin, end, t[c]);
    begin = end;
  }
  return result;
}
