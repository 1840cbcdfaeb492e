// One reduction pass of a sum: out(t) = Σ_q in(its fold sources)
uniform sampler2D source;
SS_VALUE kernel(ivec2 texel) {
  SS_VALUE s = SS_VALUE(0.0);
  for (int q = 0; q < ss_sources(); ++q) s += ss_fold_load(source, texel, q, SS_VALUE(0.0));
  return s;
}
