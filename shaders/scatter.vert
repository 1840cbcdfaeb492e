#version 430 core
// Scatter (thesis §5.3): one point per (element, value), placed on the texel centre of the element.
// With RGBA packing the draw runs once per component; points of other components are clipped.
layout(location = 0) in int element;
layout(location = 1) in float value;
uniform ivec2 ss_size;
uniform int elements_per_texel;
uniform int component;
flat out float scattered;
void main() {
  int texel = element / elements_per_texel;
  ivec2 t = ivec2(texel % ss_size.x, texel / ss_size.x);
  bool mine = (element % elements_per_texel) == component;
  gl_Position = mine ? vec4((vec2(t) + 0.5) / vec2(ss_size) * 2.0 - 1.0, 0.0, 1.0) : vec4(2.0, 2.0, 2.0, 1.0);
  scattered = value;
}
