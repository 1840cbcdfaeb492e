// First pass of the squared norm: out(t) = Σ x² over its f×f sources
uniform sampler2D source;
SS_VALUE kernel(ivec2 texel) {
  vec4 s = vec4(0.0);
  for (int q = 0; q < ss_packs(); ++q) {
    vec4 v = ss_pack(source, texel, q, 0.0);
    s += v * v;
  }
  return ss_collapse_sum(s);
}
