// One reduction pass of a maximum; missing sources read as −inf
uniform sampler2D source;
SS_VALUE kernel(ivec2 texel) {
  vec4 m = vec4(-ss_inf);
  for (int q = 0; q < ss_packs(); ++q) m = max(m, ss_pack(source, texel, q, -ss_inf));
  return ss_collapse_max(m);
}
