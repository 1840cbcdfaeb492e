// The sliced-ELLPACK row gather (operators/sparse_kernels.hpp), included by mg_sparse_apply.glsl and
// mg_sparse_chebyshev.glsl. Row i = s·S + r of slice s keeps its k-th entry at element
// slice_start[s] + k·S + r (S = slice_rows, a multiple of 4), rows padded with zero weights to the
// slice's longest row. So the rows of one texel (four consecutive rows in RGBA packing) find their
// k-th entries in one texel of `columns` and one of `weights`, and neighbouring invocations read
// neighbouring texels.
uniform isampler2D slice_start;  // slices + 1 entries
uniform isampler2D columns;
uniform sampler2D weights;
uniform int slice_rows;
uniform int has_row_map;        // the rows of a larger matrix (select_rows): output row k is its row
uniform isampler2D row_map;     // row_map[k]; per-row inputs are read there
// A per-row input (b, d, x, the added vector) at the rows held by output texel `texel`.
SS_VALUE row_value(sampler2D v, ivec2 texel) {
  return has_row_map != 0 ? ss_elements(v, ss_load_index(row_map, texel)) : ss_load(v, texel);
}
// Σ_k w_k (x[column_k] − sub[column_k]) for the rows held by output texel `texel` (0 past ss_n);
// sub is read only when has_sub.
SS_VALUE sparse_rows(ivec2 texel, sampler2D x, sampler2D sub, bool has_sub) {
  SS_VALUE result = SS_VALUE(0.0);
  int first = ss_first_element(texel);
  if (first >= ss_n) return result;
  int slice = first / slice_rows;
  int begin = ss_index_element(slice_start, slice);
  int width = (ss_index_element(slice_start, slice + 1) - begin) / slice_rows;
  int entry = begin + (first - slice * slice_rows);
  int table_width = textureSize(columns, 0).x;
  for (int k = 0; k < width; ++k, entry += slice_rows) {
    ivec2 t = ss_texel_of(entry / SS_ELEMENTS_PER_TEXEL, table_width);
    SS_IVALUE j = ss_load_index(columns, t);
    SS_VALUE v = ss_elements(x, j);
    if (has_sub) v -= ss_elements(sub, j);
    result += ss_load(weights, t) * v;
  }
  return result;
}
