// z = a·x
uniform float a;
uniform sampler2D x;
SS_VALUE kernel(ivec2 texel) { return a * ss_load(x, texel); }
