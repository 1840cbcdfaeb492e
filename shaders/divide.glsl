// z = x / y (element-wise)
uniform sampler2D x;
uniform sampler2D y;
SS_VALUE kernel(ivec2 texel) { return ss_load(x, texel) / ss_load(y, texel); }
