// A sparse matrix applied as a gather, with an optional subtracted input and an optional added one
// (multigrid transfers and coarse operators, the flow viscous operator's factors):
//   y_i = add_i + Σ_{k in row i} w_k (x[column_k] − sub[column_k])
// x and sub may be longer or shorter than y (restriction: fine → coarse; prolongation: coarse → fine).
uniform sampler2D x;
uniform sampler2D sub;
uniform sampler2D add;
uniform int has_sub;
uniform int has_add;
#include "sparse_rows.glsl"
SS_VALUE kernel(ivec2 texel) {
  SS_VALUE result = sparse_rows(texel, x, sub, has_sub != 0);
  if (has_add != 0) result += row_value(add, texel);
  return result;
}
