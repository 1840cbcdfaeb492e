// Integration, cell vectors -> face scalars (thesis eq. 5.2; operators/mesh_operators.hpp):
// u_f = v_c0 . a_f + v_c1 . b_f with a_f = x_f - x_c0, b_f = x_c1 - x_f: the integral of v along
// the dual edge c0 -> f -> c1. On boundary faces (face_cell1 < 0) b_f = 0 and cell 0 is read in
// place of c1, so the second term vanishes without a branch.
uniform sampler2D vx, vy, vz;
uniform isampler2D face_cell0, face_cell1;
uniform sampler2D a0, a1, a2, b0, b1, b2;

SS_VALUE kernel(ivec2 texel) {
  SS_IVALUE c0 = ss_load_index(face_cell0, texel);
  SS_IVALUE c1 = max(ss_load_index(face_cell1, texel), 0);
  SS_VALUE u = ss_elements(vx, c0) * ss_load(a0, texel) + ss_elements(vy, c0) * ss_load(a1, texel) +
               ss_elements(vz, c0) * ss_load(a2, texel);
  u += ss_elements(vx, c1) * ss_load(b0, texel) + ss_elements(vy, c1) * ss_load(b1, texel) +
       ss_elements(vz, c1) * ss_load(b2, texel);
  return u;
}
