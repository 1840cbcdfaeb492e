// The heat system a·M + s·K with Dirichlet nodes eliminated symmetrically (heat_operator.hpp):
//   out_i = T_i                                                   i fixed
//   out_i = (a m_i + s d_i) T_i + s Σ_{k in row i} K_ik (T[neighbor_k] - T_i)   i free
// over the CSR without fixed columns (fixed rows empty); d_i = -Σ_{j fixed} K_ij.
uniform sampler2D T;             // nodal values, same layout as the output
uniform isampler2D offsets;      // CSR row starts of K_FF, num_nodes + 1 entries
uniform isampler2D neighbors;
uniform sampler2D coefficients;
uniform sampler2D mass;          // m_i (dual volumes)
uniform sampler2D shift;         // d_i
uniform sampler2D fixed_mask;        // 1 fixed, 0 free
uniform float mass_coefficient;       // a
uniform float stiffness_coefficient;  // s
uniform int quad_rows;           // 1: rows padded to multiples of 4 entries, read a quad per fetch
#include "heat_row_sum.glsl"
SS_VALUE kernel(ivec2 texel) {
  vec4 t = ss_vec4(ss_load(T, texel));
  vec4 result = row_sums(texel, t);
  vec4 m = ss_vec4(ss_load(mass, texel)), d = ss_vec4(ss_load(shift, texel));
  vec4 free_rows = (mass_coefficient * m + stiffness_coefficient * d) * t + stiffness_coefficient * result;
  return ss_from_vec4(mix(free_rows, t, greaterThan(ss_vec4(ss_load(fixed_mask, texel)), vec4(0.5))));
}
