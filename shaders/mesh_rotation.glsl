// Rotation R = C^T, face -> edge (operators/mesh_operators.hpp): z_e = sum over the faces around
// edge e of sign * flux[f]; a variable number of faces per edge, read from a CSR list (start and
// count per edge, signed face indices in the list).
uniform sampler2D flux;
uniform isampler2D edge_face_start, edge_face_count, edge_face_list;

float rotation_of(int start, int count) {
  float sum = 0.0;
  for (int k = start; k < start + count; ++k) {
    int v = ss_index_element(edge_face_list, k);
    sum += ss_index_sign1(v) * ss_element(flux, ss_signed_index1(v));
  }
  return sum;
}

SS_VALUE kernel(ivec2 texel) {
  SS_IVALUE start = ss_load_index(edge_face_start, texel);
  SS_IVALUE count = ss_load_index(edge_face_count, texel);
#if SS_ELEMENTS_PER_TEXEL == 4
  return vec4(rotation_of(start.x, count.x), rotation_of(start.y, count.y), rotation_of(start.z, count.z),
              rotation_of(start.w, count.w));
#else
  return rotation_of(start, count);
#endif
}
