// z = x + a·y
uniform float a;
uniform sampler2D x;
uniform sampler2D y;
SS_VALUE kernel(ivec2 texel) { return ss_load(x, texel) + a * ss_load(y, texel); }
