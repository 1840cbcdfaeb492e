#version 430 core
// Overlay colour: the colour map at t (clamped to [0, 1]) where mapped, the vertex colour otherwise.
in vec4 flat_colour;
in float t;
flat in float mapped;
uniform vec3 colormap[64];
uniform int colormap_size;
out vec4 colour;
void main() {
  if (mapped < 0.5) {
    colour = flat_colour;
    return;
  }
  float s = clamp(t, 0.0, 1.0) * float(colormap_size - 1);
  int i = min(int(s), colormap_size - 2);
  colour = vec4(mix(colormap[i], colormap[i + 1], s - float(i)), 1.0);
}
