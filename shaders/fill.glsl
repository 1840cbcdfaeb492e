// z = value
uniform float value;
SS_VALUE kernel(ivec2 texel) { return SS_VALUE(value); }
