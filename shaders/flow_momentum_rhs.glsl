// Momentum right-hand side (operators/flow_operators.hpp), per face:
//   out = m (H/Δt Uⁿ + T f − G pⁿ + s Y) + (1 − m) U_b
uniform sampler2D flux, integrated, pressure_gradient, fixed_columns, boundary_flux, free_mask, face_mass;
uniform float inv_dt, s;

SS_VALUE kernel(ivec2 texel) {
  SS_VALUE m = ss_load(free_mask, texel);
  SS_VALUE free_part = inv_dt * ss_load(face_mass, texel) * ss_load(flux, texel) + ss_load(integrated, texel) -
                       ss_load(pressure_gradient, texel) + s * ss_load(fixed_columns, texel);
  return m * free_part + (1.0 - m) * ss_load(boundary_flux, texel);
}
