// First pass of dot(x, y), the product fused in (reads 8, writes 1): out(t) = Σ_q x·y at t + q·half
uniform sampler2D x;
uniform sampler2D y;
SS_VALUE kernel(ivec2 texel) {
  SS_VALUE s = SS_VALUE(0.0);
  for (int q = 0; q < 4; ++q) s += ss_quarter(x, texel, q, SS_VALUE(0.0)) * ss_quarter(y, texel, q, SS_VALUE(0.0));
  return s;
}
