// The CG update in one pass with two outputs: x' = x + a·p, r' = r − a·q
uniform float a;
uniform sampler2D p, q, x, r;
void kernel(ivec2 texel, out SS_VALUE x_new, out SS_VALUE r_new) {
  x_new = ss_load(x, texel) + a * ss_load(p, texel);
  r_new = ss_load(r, texel) - a * ss_load(q, texel);
}
