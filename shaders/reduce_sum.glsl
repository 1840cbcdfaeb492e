// One quarter-reduction pass of a sum: out(t) = Σ_q in(t + q·half)
uniform sampler2D source;
SS_VALUE kernel(ivec2 texel) {
  SS_VALUE s = SS_VALUE(0.0);
  for (int q = 0; q < 4; ++q) s += ss_quarter(source, texel, q, SS_VALUE(0.0));
  return s;
}
