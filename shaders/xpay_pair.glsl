// Two direction updates of single-sync CG in one pass with two outputs:
//   p' = u + a·p,   s' = w + a·s
uniform float a;
uniform sampler2D u, p, w, s;
void kernel(ivec2 texel, out SS_VALUE p_new, out SS_VALUE s_new) {
  p_new = ss_load(u, texel) + a * ss_load(p, texel);
  s_new = ss_load(w, texel) + a * ss_load(s, texel);
}
