// First pass of the count of non-finite values (NaN, ±inf): out(t) = Σ_q [x not finite]
uniform sampler2D source;
SS_VALUE kernel(ivec2 texel) {
  SS_VALUE s = SS_VALUE(0.0);
  for (int q = 0; q < ss_sources(); ++q) s += ss_nonfinite(ss_fold_load(source, texel, q, SS_VALUE(0.0)));
  return s;
}
