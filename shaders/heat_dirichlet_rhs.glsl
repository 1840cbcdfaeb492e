// Right-hand side of the eliminated heat system (heat_operator.hpp):
//   out_i = T_i                                      i fixed
//   out_i = b_i - s Σ_{k in row i} K_ik fixed_j T_j   i free (j = neighbor_k; only fixed j count)
// over the full neighbour CSR; T holds the Dirichlet values on fixed nodes.
uniform sampler2D b;
uniform sampler2D T;
uniform sampler2D fixed_mask;        // 1 fixed, 0 free
uniform isampler2D offsets;
uniform isampler2D neighbors;
uniform sampler2D coefficients;
uniform float stiffness_coefficient;
uniform int quad_rows;           // 1: rows padded to multiples of 4 entries, read a quad per fetch
// Σ_k K_ik fixed_j T_j over entries [begin, end) (j = neighbor_k); padding entries have K = 0.
float fixed_coupling(int begin, int end) {
  float s = 0.0;
  if (quad_rows != 0) {
    for (int q = begin >> 2; q < (end >> 2); ++q) {
      ivec4 j = ss_index_quad(neighbors, q);
      vec4 tj = vec4(ss_element(T, j.x), ss_element(T, j.y), ss_element(T, j.z), ss_element(T, j.w));
      vec4 fj = vec4(ss_element(fixed_mask, j.x), ss_element(fixed_mask, j.y), ss_element(fixed_mask, j.z),
                     ss_element(fixed_mask, j.w));
      s += dot(ss_quad(coefficients, q), fj * tj);
    }
  } else {
    for (int k = begin; k < end; ++k) {
      int j = ss_index_element(neighbors, k);
      s += ss_element(coefficients, k) * ss_element(fixed_mask, j) * ss_element(T, j);
    }
  }
  return s;
}
SS_VALUE kernel(ivec2 texel) {
  int first = ss_first_element(texel);
  vec4 result = vec4(0.0);
  int begin = ss_index_element(offsets, min(first, ss_n));
  for (int c = 0; c < SS_ELEMENTS_PER_TEXEL; ++c) {
    int i = first + c;
    if (i >= ss_n) break;
    int end = ss_index_element(offsets, i + 1);
    result[c] = fixed_coupling(begin, end);
    begin = end;
  }
  vec4 free_rows = ss_vec4(ss_load(b, texel)) - stiffness_coefficient * result;
  return ss_from_vec4(mix(free_rows, ss_vec4(ss_load(T, texel)), greaterThan(ss_vec4(ss_load(fixed_mask, texel)), vec4(0.5))));
}
