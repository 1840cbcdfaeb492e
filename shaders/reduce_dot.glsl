// First pass of dot(x, y), the product fused into the reduction (no x·y field is written):
// out(t) = Σ x·y over its f×f sources
uniform sampler2D x;
uniform sampler2D y;
SS_VALUE kernel(ivec2 texel) {
  vec4 s = vec4(0.0);
  for (int q = 0; q < ss_packs(); ++q) s += ss_pack(x, texel, q, 0.0) * ss_pack(y, texel, q, 0.0);
  return ss_collapse_sum(s);
}
