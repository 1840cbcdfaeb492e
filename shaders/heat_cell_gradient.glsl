// Gradient of a P1 nodal field in each cell, three outputs in one pass (MRT):
//   ∇T_c = Σ_{m=1..3} (T_{n_m} - T_{n_0}) ∇λ_m     (Σ_m ∇λ_m = 0, so a constant field gives 0)
uniform sampler2D T;             // nodal values
uniform isampler2D cell_nodes;   // 4 per cell
uniform sampler2D grad_x, grad_y, grad_z;  // components of ∇λ_m, 4 per cell
void kernel(ivec2 texel, out SS_VALUE gx, out SS_VALUE gy, out SS_VALUE gz) {
  int first = ss_first_element(texel);
  vec4 x = vec4(0.0), y = vec4(0.0), z = vec4(0.0);
  for (int c = 0; c < SS_ELEMENTS_PER_TEXEL; ++c) {
    int cell = first + c;
    if (cell >= ss_n) break;
    ivec4 n = ss_index_quad(cell_nodes, cell);
    float t0 = ss_element(T, n.x);
    vec4 d = vec4(0.0, ss_element(T, n.y) - t0, ss_element(T, n.z) - t0, ss_element(T, n.w) - t0);
    x[c] = dot(d, ss_quad(grad_x, cell));
    y[c] = dot(d, ss_quad(grad_y, cell));
    z[c] = dot(d, ss_quad(grad_z, cell));
  }
  gx = ss_from_vec4(x);
  gy = ss_from_vec4(y);
  gz = ss_from_vec4(z);
}
