#version 430 core
// Colour-mapped, lit boundary surface (mode 0) or its feature edges in one colour (mode 1).
in vec3 view_normal;
in float t;
uniform vec3 colormap[64];
uniform int colormap_size;
uniform int mode;
uniform vec3 edge_colour;
uniform vec3 no_value_colour;
out vec4 colour;

vec3 lookup(float x) {
  float s = clamp(x, 0.0, 1.0) * float(colormap_size - 1);
  int i = min(int(s), colormap_size - 2);
  return mix(colormap[i], colormap[i + 1], s - float(i));
}

void main() {
  if (mode == 1) {
    colour = vec4(edge_colour, 1.0);
    return;
  }
  vec3 base = t < -0.5 ? no_value_colour : lookup(t);
  vec3 n = normalize(view_normal);
  if (!gl_FrontFacing) n = -n;
  // A light from just above and right of the eye: faces towards the viewer stay near the colour
  // bar's colours, faces turned away darken to about half, so the shape reads without hiding the
  // value; a faint highlight marks curvature.
  const vec3 key = normalize(vec3(0.25, 0.35, 1.0));
  float diffuse = max(dot(n, key), 0.0);
  float highlight = pow(max(dot(n, normalize(key + vec3(0.0, 0.0, 1.0))), 0.0), 40.0);
  vec3 lit = base * (0.5 + 0.52 * diffuse) + vec3(0.06 * highlight);
  colour = vec4(min(lit, vec3(1.0)), 1.0);
}
