// Node-based diffusion (thesis §6.1) as a gather over node neighbours, one node per element:
//   (K·T)_i = Σ_{k in row i} K_ik (T[neighbor_k] - T_i)      (rows sum to zero: K·1 = 0 exactly)
// Row i of the CSR is entries [offsets[i], offsets[i+1]); in RGBA packing a fragment does four
// consecutive rows, each ending where the next begins, and the operator pads every row to a
// multiple of four entries (neighbour = the node itself, K = 0) so one fetch reads four neighbour
// ids and one four coefficients (quad_rows = 1).
uniform sampler2D T;             // nodal temperatures, same layout as the output
uniform isampler2D offsets;      // CSR row starts, num_nodes + 1 entries
uniform isampler2D neighbors;    // neighbour node of each entry
uniform sampler2D coefficients;  // K_ij of each entry
uniform int quad_rows;           // 1: rows padded to multiples of 4 entries, read a quad per fetch
#include "heat_row_sum.glsl"
SS_VALUE kernel(ivec2 texel) {
  vec4 t = ss_vec4(ss_load(T, texel));
  vec4 result = row_sums(texel, t);
  return ss_from_vec4(result);
}
