// First pass of dot(x, y) with the product fused in (reads 2 values per source, writes 1):
// out(t) = Σ_q x·y over its fold sources
uniform sampler2D x;
uniform sampler2D y;
SS_VALUE kernel(ivec2 texel) {
  SS_VALUE s = SS_VALUE(0.0);
  for (int q = 0; q < ss_sources(); ++q) s += ss_fold_load(x, texel, q, SS_VALUE(0.0)) * ss_fold_load(y, texel, q, SS_VALUE(0.0));
  return s;
}
