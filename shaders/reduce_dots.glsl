// First pass of up to four dot products at once (the one reduction of a single-sync CG iteration):
// channel k of the RGBA32F output texel holds Σ a_k·b_k over its f×f sources (whatever the packing
// of the inputs); the next passes reduce the four channels together (reduce_sum.glsl, RGBA), and
// one read-back returns all of them. Products are fused (no a·b field is written). Channels past
// `dots` hold 0. With weights (a distributed vector's owner marker) each product is weighted, so
// no masked copy of a factor is written.
uniform sampler2D a0, b0, a1, b1, a2, b2, a3, b3;
uniform sampler2D weights;  // read when weighted != 0: each term is w·a_k·b_k (an owner marker)
uniform int dots;           // 1 to 4
uniform int weighted;
float ss_total(vec4 v) { return (v.x + v.y) + (v.z + v.w); }
vec4 kernel(ivec2 texel) {
  vec4 s0 = vec4(0.0), s1 = vec4(0.0), s2 = vec4(0.0), s3 = vec4(0.0);
  for (int q = 0; q < ss_packs(); ++q) {
    const vec4 w = weighted != 0 ? ss_pack(weights, texel, q, 0.0) : vec4(1.0);
    s0 += w * ss_pack(a0, texel, q, 0.0) * ss_pack(b0, texel, q, 0.0);
    if (dots > 1) s1 += w * ss_pack(a1, texel, q, 0.0) * ss_pack(b1, texel, q, 0.0);
    if (dots > 2) s2 += w * ss_pack(a2, texel, q, 0.0) * ss_pack(b2, texel, q, 0.0);
    if (dots > 3) s3 += w * ss_pack(a3, texel, q, 0.0) * ss_pack(b3, texel, q, 0.0);
  }
  return vec4(ss_total(s0), ss_total(s1), ss_total(s2), ss_total(s3));
}
