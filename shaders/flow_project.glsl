// Projection (operators/flow_operators.hpp), per face: U = U* − Δt W_f (φ_c1 − φ_c0), φ_c1 = 0 on
// the boundary.
uniform sampler2D flux_star, phi, pressure_weight;
uniform isampler2D face_cell0, face_cell1;
uniform float dt;

float element(int f) {
  int c1 = ss_index_element(face_cell1, f);
  float gradient = (c1 >= 0 ? ss_element(phi, c1) : 0.0) - ss_element(phi, ss_index_element(face_cell0, f));
  return ss_element(flux_star, f) - dt * ss_element(pressure_weight, f) * gradient;
}

#include "per_element.glsl"
