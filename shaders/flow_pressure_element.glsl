// Pressure operator P = Gᵀ W G (operators/flow_operators.hpp), per cell, for flow_pressure_apply.glsl
// (every cell) and flow_pressure_rows.glsl (listed cells: the same function, so the same values):
//   (P φ)_c = Σ_f W_f (φ_c − φ_nb),  φ_nb = 0 beyond the boundary (W_f = 0 on prescribed faces)
// The including kernel declares the samplers and includes flow_neighbor.glsl first.
float face_term(int code, float pc) {
  int nb = flow_neighbor(code);
  return ss_element(pressure_weight, ss_signed_index1(code)) * (pc - (nb >= 0 ? ss_element(phi, nb) : 0.0));
}

float element(int c) {
  float pc = ss_element(phi, c);
  return face_term(ss_index_element(cell_face0, c), pc) + face_term(ss_index_element(cell_face1, c), pc) +
         face_term(ss_index_element(cell_face2, c), pc) + face_term(ss_index_element(cell_face3, c), pc);
}
