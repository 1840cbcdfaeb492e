// K_ii = -Σ_k K_ik over row i of the fine node graph (heat_operator.hpp), one node per element.
uniform isampler2D fine_offsets;
uniform sampler2D coefficients;  // K_ik of each CSR entry
SS_VALUE kernel(ivec2 texel) {
  int first = ss_first_element(texel);
  vec4 values = vec4(0.0);
  for (int k = 0; k < SS_ELEMENTS_PER_TEXEL; ++k) {
    int i = first + k;
    if (i >= ss_n) break;
    float row = 0.0;
    for (int q = ss_index_element(fine_offsets, i); q < ss_index_element(fine_offsets, i + 1); ++q)
      row += ss_element(coefficients, q);
    values[k] = -row;
  }
  return ss_from_vec4(values);
}
