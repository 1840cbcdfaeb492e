// The cell across local face `code` (signed cell->face entry) of a cell: face_cell1 when the face
// normal points out of the cell, else face_cell0; a negative result ~k is boundary face k.
int flow_neighbor(int code) {
  int f = ss_signed_index1(code);
  return ss_index_sign1(code) > 0.0 ? ss_index_element(face_cell1, f) : ss_index_element(face_cell0, f);
}
