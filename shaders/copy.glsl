// z = x
uniform sampler2D x;
SS_VALUE kernel(ivec2 texel) { return ss_load(x, texel); }
