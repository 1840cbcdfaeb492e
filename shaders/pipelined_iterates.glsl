// Pipelined CG's iterate recurrences in one pass with four outputs (solver/cg.hpp):
//   x' = x + α·p,   r' = r − α·s,   u' = u − α·q,   w' = w − α·z
uniform float alpha;
uniform sampler2D p, s, q, z, x, r, u, w;
void kernel(ivec2 texel, out SS_VALUE x_new, out SS_VALUE r_new, out SS_VALUE u_new, out SS_VALUE w_new) {
  x_new = ss_load(x, texel) + alpha * ss_load(p, texel);
  r_new = ss_load(r, texel) - alpha * ss_load(s, texel);
  u_new = ss_load(u, texel) - alpha * ss_load(q, texel);
  w_new = ss_load(w, texel) - alpha * ss_load(z, texel);
}
