// Node-based diffusion as a gather over node -> cells (the alternative to heat_apply.glsl, kept
// for measurement): (K·T)_i = Σ_{cells c ∋ i} Σ_m K^c_im (T_{n_m} - T_i), K^c_im = k_c V_c ∇λ_i·∇λ_m.
uniform sampler2D T;
uniform isampler2D offsets;      // CSR row starts over node -> cell entries, num_nodes + 1
uniform isampler2D cells;        // cell of each entry
uniform sampler2D coefficients;  // K^c_im, m = 0..3, 4 per entry
uniform isampler2D cell_nodes;   // 4 per cell
SS_VALUE kernel(ivec2 texel) {
  int first = ss_first_element(texel);
  vec4 t = ss_vec4(ss_load(T, texel));
  vec4 result = vec4(0.0);
  int begin = ss_index_element(offsets, min(first, ss_n));
  for (int c = 0; c < SS_ELEMENTS_PER_TEXEL; ++c) {
    int i = first + c;
    if (i >= ss_n) break;
    int end = ss_index_element(offsets, i + 1);
    float s = 0.0;
    for (int k = begin; k < end; ++k) {
      ivec4 n = ss_index_quad(cell_nodes, ss_index_element(cells, k));
      vec4 tm = vec4(ss_element(T, n.x), ss_element(T, n.y), ss_element(T, n.z), ss_element(T, n.w)) - t[c];
      s += dot(ss_quad(coefficients, k), tm);
    }
    result[c] = s;
    begin = end;
  }
  return ss_from_vec4(result);
}
