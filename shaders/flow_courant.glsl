// Courant number per unit time step, per cell: (1 / 2V_c) Σ_f |U_f| (CFL = Δt · this).
uniform sampler2D flux, inverse_volume;
uniform isampler2D cell_face0, cell_face1, cell_face2, cell_face3;

float face_flux(isampler2D table, int c) { return abs(ss_element(flux, ss_signed_index1(ss_index_element(table, c)))); }

float element(int c) {
  float sum = face_flux(cell_face0, c) + face_flux(cell_face1, c) + face_flux(cell_face2, c) + face_flux(cell_face3, c);
  return 0.5 * sum * ss_element(inverse_volume, c);
}

#include "per_element.glsl"
