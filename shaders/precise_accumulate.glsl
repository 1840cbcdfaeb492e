// x ← x + d with x held in double as a float pair (hi, lo), x = hi + lo, |lo| <= ulp(hi)/2, and d a
// float field; the sum in fp64 (GLSL 4.0 doubles), split back into its nearest float and the rest.
uniform sampler2D x_hi, x_lo, d;
void kernel(ivec2 texel, out SS_VALUE hi, out SS_VALUE lo) {
  dvec4 v = dvec4(ss_vec4(ss_load(x_hi, texel))) + dvec4(ss_vec4(ss_load(x_lo, texel))) +
            dvec4(ss_vec4(ss_load(d, texel)));
  vec4 h = vec4(v);
  hi = ss_from_vec4(h);
  lo = ss_from_vec4(vec4(v - dvec4(h)));
}
