// The residual of the heat system in double precision (the outer loop of mixed-precision defect
// correction, src/solver/refinement.hpp), over the full neighbour CSR of K (no elimination):
//   out_i = f_i − (a m_i x_i + s Σ_{k in row i} K_ik (x[neighbor_k] − x_i))     i free
//   out_i = fixed_rows ? x_i : 0                                                i fixed
// With x_D = T_D this is b̃ − (a·M + s·K̃) x of the eliminated system on free rows (the fixed
// columns' K_ij T_j are in the sum) and 0 on fixed rows; with x = (T_D, 0) and fixed_rows = 1 it
// is b̃ itself. f, x, m and K_ik are doubles stored as float pairs (hi + lo, ~48 significant bits),
// a and s are uniform pairs, the arithmetic is fp64 and the result is split into hi and lo again.
// Rows are read element by element (RGBA packing pads rows with K = 0 entries: they add 0).
uniform sampler2D f_hi, f_lo, x_hi, x_lo, mass_hi, mass_lo, coefficients_hi, coefficients_lo, fixed_mask;
uniform isampler2D offsets, neighbors;
uniform float a_hi, a_lo, s_hi, s_lo;
uniform int fixed_rows;
double ss_pair(sampler2D hi, sampler2D lo, int i) { return double(ss_element(hi, i)) + double(ss_element(lo, i)); }
void kernel(ivec2 texel, out SS_VALUE hi, out SS_VALUE lo) {
  double a = double(a_hi) + double(a_lo), s = double(s_hi) + double(s_lo);
  int first = ss_first_element(texel);
  vec4 h = vec4(0.0), l = vec4(0.0);
  int begin = ss_index_element(offsets, min(first, ss_n));
  for (int c = 0; c < SS_ELEMENTS_PER_TEXEL; ++c) {
    int i = first + c;
    if (i >= ss_n) break;
    int end = ss_index_element(offsets, i + 1);
    double xi = ss_pair(x_hi, x_lo, i), v;
    if (ss_element(fixed_mask, i) > 0.5) {
      v = fixed_rows != 0 ? xi : 0.0lf;
    } else {
      double row = 0.0lf;
      for (int k = begin; k < end; ++k)
        row += ss_pair(coefficients_hi, coefficients_lo, k) * (ss_pair(x_hi, x_lo, ss_index_element(neighbors, k)) - xi);
      v = ss_pair(f_hi, f_lo, i) - (a * ss_pair(mass_hi, mass_lo, i) * xi + s * row);
    }
    h[c] = float(v);
    l[c] = float(v - double(h[c]));
    begin = end;
  }
  hi = ss_from_vec4(h);
  lo = ss_from_vec4(l);
}
