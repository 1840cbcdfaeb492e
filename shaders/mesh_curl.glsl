// Curl C, edge -> face (operators/mesh_operators.hpp): z_f = sum over the face's 3 edges of
// sign * stream[e], sign + where the edge runs along the face's cycle (signed index tables).
uniform sampler2D stream;
uniform isampler2D face_edge0, face_edge1, face_edge2;

SS_VALUE signed_stream(isampler2D table, ivec2 texel) {
  SS_IVALUE v = ss_load_index(table, texel);
  return ss_index_sign(v) * ss_elements(stream, ss_signed_index(v));
}

SS_VALUE kernel(ivec2 texel) {
  SS_VALUE sum = signed_stream(face_edge0, texel);
  sum += signed_stream(face_edge1, texel);
  sum += signed_stream(face_edge2, texel);
  return sum;
}
