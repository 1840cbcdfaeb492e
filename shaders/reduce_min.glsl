// One reduction pass of a minimum; missing sources give +inf
uniform sampler2D source;
SS_VALUE kernel(ivec2 texel) {
  SS_VALUE m = SS_VALUE(ss_inf);
  for (int q = 0; q < ss_sources(); ++q) m = min(m, ss_fold_load(source, texel, q, SS_VALUE(ss_inf)));
  return m;
}
