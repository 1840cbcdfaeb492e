#version 430 core
// Boundary surface of the mesh for pictures (src/render): positions relative to the view target,
// per-corner normals (smoothed up to the crease angle) and the value mapped to [0, 1] (< 0: none).
layout(location = 0) in vec3 position;
layout(location = 1) in vec3 normal;
layout(location = 2) in float value_t;
uniform mat4 view_projection;
uniform mat3 view_rotation;
out vec3 view_normal;
out float t;
void main() {
  gl_Position = view_projection * vec4(position, 1.0);
  view_normal = view_rotation * normal;
  t = value_t;
}
