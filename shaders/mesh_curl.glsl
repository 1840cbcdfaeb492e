// Curl C, edge -> face (operators/mesh_operators.hpp): z_f = sum over the face's 3 edges of
// sign * stream[e], sign + where the edge runs along the face's cycle (signed index tables).
// The three terms are added in fp64 and rounded once, so z_f is the float nearest the exact sum:
// a streamfunction's values can be far larger than the fluxes they make, and D C s must vanish to
// the fluxes' round-off, not the streamfunction's (the exact fractional step, thesis §7.4).
uniform sampler2D stream;
uniform isampler2D face_edge0, face_edge1, face_edge2;

dvec4 signed_stream(isampler2D table, ivec2 texel) {
  SS_IVALUE v = ss_load_index(table, texel);
  return dvec4(ss_vec4(ss_index_sign(v) * ss_elements(stream, ss_signed_index(v))));
}

SS_VALUE kernel(ivec2 texel) {
  dvec4 sum = signed_stream(face_edge0, texel) + signed_stream(face_edge1, texel) + signed_stream(face_edge2, texel);
  return ss_from_vec4(vec4(sum));
}
