// Divergence D, face -> cell (operators/mesh_operators.hpp): z_c = sum over the 4 faces of
// sign * flux[f], sign + where the face normal points out of c (signed index tables).
uniform sampler2D flux;
uniform isampler2D cell_face0, cell_face1, cell_face2, cell_face3;

SS_VALUE signed_flux(isampler2D table, ivec2 texel) {
  SS_IVALUE v = ss_load_index(table, texel);
  return ss_index_sign(v) * ss_elements(flux, ss_signed_index(v));
}

SS_VALUE kernel(ivec2 texel) {
  SS_VALUE sum = signed_flux(cell_face0, texel);
  sum += signed_flux(cell_face1, texel);
  sum += signed_flux(cell_face2, texel);
  sum += signed_flux(cell_face3, texel);
  return sum;
}
