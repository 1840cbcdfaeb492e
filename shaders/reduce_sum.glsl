// One reduction pass of a sum: out(t) = Σ of its f×f sources
uniform sampler2D source;
SS_VALUE kernel(ivec2 texel) {
  vec4 s = vec4(0.0);
  for (int q = 0; q < ss_packs(); ++q) s += ss_pack(source, texel, q, 0.0);
  return ss_collapse_sum(s);
}
