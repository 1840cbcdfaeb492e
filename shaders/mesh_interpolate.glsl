// Interpolation, face fluxes -> cell vectors (thesis eq. 5.1 / 7.5; operators/mesh_operators.hpp):
// v_c = sum over the 4 faces of sign * flux[f] * w_k, w_k = (x_f - x_c) / V_c precomputed per
// (cell, local face) and component. Three outputs (x, y, z) in one pass.
uniform sampler2D flux;
uniform isampler2D cell_face0, cell_face1, cell_face2, cell_face3;
uniform sampler2D w0x, w0y, w0z, w1x, w1y, w1z, w2x, w2y, w2z, w3x, w3y, w3z;

SS_VALUE signed_flux(isampler2D table, ivec2 texel) {
  SS_IVALUE v = ss_load_index(table, texel);
  return ss_index_sign(v) * ss_elements(flux, ss_signed_index(v));
}

void kernel(ivec2 texel, out SS_VALUE vx, out SS_VALUE vy, out SS_VALUE vz) {
  SS_VALUE u = signed_flux(cell_face0, texel);
  vx = u * ss_load(w0x, texel);
  vy = u * ss_load(w0y, texel);
  vz = u * ss_load(w0z, texel);
  u = signed_flux(cell_face1, texel);
  vx += u * ss_load(w1x, texel);
  vy += u * ss_load(w1y, texel);
  vz += u * ss_load(w1z, texel);
  u = signed_flux(cell_face2, texel);
  vx += u * ss_load(w2x, texel);
  vy += u * ss_load(w2y, texel);
  vz += u * ss_load(w2z, texel);
  u = signed_flux(cell_face3, texel);
  vx += u * ss_load(w3x, texel);
  vy += u * ss_load(w3y, texel);
  vz += u * ss_load(w3z, texel);
}
