// Momentum operator (operators/flow_operators.hpp): y = m (H/Δt x − s·lap) + (1 − m) x per face,
// lap = K (m x) of the viscous operator in use (two-point or curl–curl), or its diagonal.
uniform sampler2D x, lap, free_mask, face_mass;
uniform float inv_dt, s;

SS_VALUE kernel(ivec2 texel) {
  SS_VALUE m = ss_load(free_mask, texel), xv = ss_load(x, texel);
  return m * (inv_dt * ss_load(face_mass, texel) * xv - s * ss_load(lap, texel)) + (1.0 - m) * xv;
}
