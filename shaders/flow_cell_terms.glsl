// Cell terms of the momentum equation (operators/flow_operators.hpp), per cell c:
//   f_c = −N_c [convection ≠ 0] + a·Λ₀(u)_c + b·(1/V_c) Σ_{velocity faces} (A_f/L_f) u_b
//   N_c = (1/V_c) Σ_f F u_f, F = ±U_f outward, u_f central ½(u_c + u_nb) or upwind (eq. 7.6)
//   Λ₀(u)_c = (1/V_c) Σ_f (A_f/L_f)(u_nb − u_c), u_nb = 0 on velocity faces, u_c on zero-gradient faces
uniform sampler2D flux, ux, uy, uz, bx, by, bz, area_over_distance, inverse_volume, dirichlet_velocity;
uniform isampler2D cell_face0, cell_face1, cell_face2, cell_face3, face_cell0, face_cell1;
uniform int convection;  // 0 none, 1 central, 2 upwind
uniform float a, b;

#include "flow_neighbor.glsl"

vec3 cell_velocity(int c) { return vec3(ss_element(ux, c), ss_element(uy, c), ss_element(uz, c)); }

vec3 face_term(int code, vec3 uc) {
  int f = ss_signed_index1(code);
  int nb = flow_neighbor(code);
  vec3 un, face_value;
  bool dirichlet = false;
  if (nb >= 0) {
    un = cell_velocity(nb);
    face_value = convection == 1 ? 0.5 * (uc + un) : un;  // upwind chooses below
  } else {
    int k = ~nb;
    dirichlet = ss_element(dirichlet_velocity, k) > 0.0;
    vec3 ub = vec3(ss_element(bx, k), ss_element(by, k), ss_element(bz, k));
    un = dirichlet ? vec3(0.0) : uc;
    face_value = dirichlet ? ub : uc;
  }
  float w = ss_element(area_over_distance, f);
  vec3 term = a * w * (un - uc);
  if (dirichlet) term += b * w * face_value;
  if (convection != 0) {
    float outward = ss_index_sign1(code) * ss_element(flux, f);
    if (convection == 2 && nb >= 0 && outward > 0.0) face_value = uc;
    term -= outward * face_value;
  }
  return term;
}

vec3 element(int c) {
  vec3 uc = cell_velocity(c);
  vec3 sum = face_term(ss_index_element(cell_face0, c), uc);
  sum += face_term(ss_index_element(cell_face1, c), uc);
  sum += face_term(ss_index_element(cell_face2, c), uc);
  sum += face_term(ss_index_element(cell_face3, c), uc);
  return sum * ss_element(inverse_volume, c);
}

#include "per_element3.glsl"
