// Pipelined CG's direction recurrences in one pass with four outputs (solver/cg.hpp):
//   p' = u + β·p,   s' = w + β·s,   q' = m + β·q,   z' = n + β·z
uniform float beta;
uniform sampler2D u, w, m, n, p, s, q, z;
void kernel(ivec2 texel, out SS_VALUE p_new, out SS_VALUE s_new, out SS_VALUE q_new, out SS_VALUE z_new) {
  p_new = ss_load(u, texel) + beta * ss_load(p, texel);
  s_new = ss_load(w, texel) + beta * ss_load(s, texel);
  q_new = ss_load(m, texel) + beta * ss_load(q, texel);
  z_new = ss_load(n, texel) + beta * ss_load(z, texel);
}
