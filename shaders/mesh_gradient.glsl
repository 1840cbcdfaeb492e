// Gradient G, cell -> face (operators/mesh_operators.hpp): z_f = phi[c1] - phi[c0]. face_cell1
// holds ~k on boundary face k: phi[c1] is then boundary_values[k], or 0 when use_boundary_values
// is 0 (boundary_values is then a dummy and never read).
uniform sampler2D phi;
uniform sampler2D boundary_values;
uniform isampler2D face_cell0;
uniform isampler2D face_cell1;
uniform int use_boundary_values;

float other_side(int c1) {
  if (c1 >= 0) return ss_element(phi, c1);
  return use_boundary_values != 0 ? ss_element(boundary_values, ~c1) : 0.0;
}

SS_VALUE kernel(ivec2 texel) {
  SS_IVALUE c1 = ss_load_index(face_cell1, texel);
#if SS_ELEMENTS_PER_TEXEL == 4
  vec4 v1 = vec4(other_side(c1.x), other_side(c1.y), other_side(c1.z), other_side(c1.w));
#else
  float v1 = other_side(c1);
#endif
  return v1 - ss_elements(phi, ss_load_index(face_cell0, texel));
}
