// First pass of the squared norm: out(t) = Σ_q x² at its fold sources
uniform sampler2D source;
SS_VALUE kernel(ivec2 texel) {
  SS_VALUE s = SS_VALUE(0.0);
  for (int q = 0; q < ss_sources(); ++q) {
    SS_VALUE v = ss_fold_load(source, texel, q, SS_VALUE(0.0));
    s += v * v;
  }
  return s;
}
