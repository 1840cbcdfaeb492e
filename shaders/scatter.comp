#version 430 core
// Scatter on the compute path: value position[k] of the uploaded values goes to element element[k]
// of the field (one channel of a texel with RGBA packing). The elements of one dispatch lie in
// distinct texels (the scatter list groups them by channel, one dispatch per channel, and keeps
// one value per element), so reading and rewriting a texel races with nothing.
layout(local_size_x = 256) in;
layout(std430, binding = 0) readonly buffer Targets { ivec2 target[]; };  // (element, position)
layout(std430, binding = 1) readonly buffer Values { float value[]; };
layout(FIELD_FORMAT, binding = 0) uniform image2D field;
uniform int first;
uniform int count;
uniform ivec2 ss_size;
uniform int elements_per_texel;
void main() {
  int k = int(gl_GlobalInvocationID.x);
  if (k >= count) return;
  ivec2 t = target[first + k];
  int texel = t.x / elements_per_texel;
  ivec2 at = ivec2(texel % ss_size.x, texel / ss_size.x);
  vec4 texel_value = imageLoad(field, at);
  texel_value[t.x % elements_per_texel] = value[t.y];
  imageStore(field, at, texel_value);
}
