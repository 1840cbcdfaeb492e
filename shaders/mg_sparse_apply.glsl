// A sparse matrix applied as a gather, with an optional subtracted input and an optional added one
// (multigrid transfers and coarse operators, the flow viscous operator's factors):
//   y_i = add_i + Σ_{k in row i} w_k (x[column_k] − sub[column_k])
// x and sub may be longer or shorter than y (restriction: fine → coarse; prolongation: coarse → fine).
// Storage: sliced ELLPACK (operators/sparse_kernels.hpp). Row i = s·S + r of slice s keeps its k-th
// entry at element slice_start[s] + k·S + r (S = slice_rows, a multiple of 4), rows padded with zero
// weights to the slice's longest row. So the rows of one texel (four consecutive rows in RGBA
// packing) find their k-th entries in one texel of `columns` and one of `weights`, and neighbouring
// invocations read neighbouring texels.
uniform sampler2D x;
uniform sampler2D sub;
uniform sampler2D add;
uniform isampler2D slice_start;  // slices + 1 entries
uniform isampler2D columns;
uniform sampler2D weights;
uniform int slice_rows;
uniform int has_sub;
uniform int has_add;
SS_VALUE kernel(ivec2 texel) {
  SS_VALUE result = SS_VALUE(0.0);
  int first = ss_first_element(texel);
  if (first < ss_n) {
    int slice = first / slice_rows;
    int begin = ss_index_element(slice_start, slice);
    int width = (ss_index_element(slice_start, slice + 1) - begin) / slice_rows;
    int entry = begin + (first - slice * slice_rows);
    int table_width = textureSize(columns, 0).x;
    for (int k = 0; k < width; ++k, entry += slice_rows) {
      ivec2 t = ss_texel_of(entry / SS_ELEMENTS_PER_TEXEL, table_width);
      SS_IVALUE j = ss_load_index(columns, t);
      SS_VALUE v = ss_elements(x, j);
      if (has_sub != 0) v -= ss_elements(sub, j);
      result += ss_load(weights, t) * v;
    }
  }
  if (has_add != 0) result += ss_load(add, texel);
  return result;
}
