// First pass of the squared norm: out(t) = Σ_q x² at t + q·half
uniform sampler2D source;
SS_VALUE kernel(ivec2 texel) {
  SS_VALUE s = SS_VALUE(0.0);
  for (int q = 0; q < 4; ++q) {
    SS_VALUE v = ss_quarter(source, texel, q, SS_VALUE(0.0));
    s += v * v;
  }
  return s;
}
