#version 430 core
// 2D overlay of pictures (colour bar, ticks, text, slices) in pixel coordinates, origin top left.
layout(location = 0) in vec2 pixel;
layout(location = 1) in vec4 rgba;
layout(location = 2) in float value_t;
layout(location = 3) in float value_mapped;
uniform vec2 viewport_size;
out vec4 flat_colour;
out float t;
flat out float mapped;
void main() {
  gl_Position = vec4(pixel.x / viewport_size.x * 2.0 - 1.0, 1.0 - pixel.y / viewport_size.y * 2.0, 0.0, 1.0);
  flat_colour = rgba;
  t = value_t;
  mapped = value_mapped;
}
