// A sparse matrix (CSR, one row per output element) applied as a gather, with an optional
// subtracted input and an optional added one (multigrid transfers and coarse operators):
//   y_i = add_i + Σ_{k in row i} w_k (x[column_k] − sub[column_k])
// x and sub may be longer or shorter than y (restriction: fine → coarse; prolongation: coarse → fine).
// In RGBA packing a fragment does four consecutive rows and rows are padded to multiples of four
// entries (column 0, weight 0), so one fetch reads four columns and one four weights (quad_rows = 1).
uniform sampler2D x;
uniform sampler2D sub;
uniform sampler2D add;
uniform isampler2D offsets;   // rows + 1 entries
uniform isampler2D columns;
uniform sampler2D weights;
uniform int quad_rows;
uniform int has_sub;
uniform int has_add;
float row_value(int begin, int end) {
  float s = 0.0;
  if (quad_rows != 0) {
    for (int q = begin >> 2; q < (end >> 2); ++q) {
      ivec4 j = ss_index_quad(columns, q);
      vec4 v = vec4(ss_element(x, j.x), ss_element(x, j.y), ss_element(x, j.z), ss_element(x, j.w));
      if (has_sub != 0) v -= vec4(ss_element(sub, j.x), ss_element(sub, j.y), ss_element(sub, j.z), ss_element(sub, j.w));
      s += dot(ss_quad(weights, q), v);
    }
  } else {
    for (int k = begin; k < end; ++k) {
      int j = ss_index_element(columns, k);
      float v = ss_element(x, j);
      if (has_sub != 0) v -= ss_element(sub, j);
      s += ss_element(weights, k) * v;
    }
  }
  return s;
}
SS_VALUE kernel(ivec2 texel) {
  int first = ss_first_element(texel);
  vec4 result = vec4(0.0);
  int begin = ss_index_element(offsets, min(first, ss_n));
  for (int c = 0; c < SS_ELEMENTS_PER_TEXEL; ++c) {
    int i = first + c;
    if (i >= ss_n) break;
    int end = ss_index_element(offsets, i + 1);
    result[c] = row_value(begin, end);
    begin = end;
  }
  if (has_add != 0) result += ss_vec4(ss_load(add, texel));
  return ss_from_vec4(result);
}
