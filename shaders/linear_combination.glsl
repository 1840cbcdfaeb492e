// z = c0·x0 + c1·x1 + c2·x2 + c3·x3, the first `terms` of them
uniform int terms;
uniform float c0, c1, c2, c3;
uniform sampler2D x0, x1, x2, x3;
SS_VALUE kernel(ivec2 texel) {
  SS_VALUE z = c0 * ss_load(x0, texel);
  if (terms > 1) z += c1 * ss_load(x1, texel);
  if (terms > 2) z += c2 * ss_load(x2, texel);
  if (terms > 3) z += c3 * ss_load(x3, texel);
  return z;
}
