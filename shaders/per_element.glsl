// Launch glue for kernels written per output element: the including kernel defines
// `float element(int i)` for output element i < ss_n; this runs it for each element of the texel.
SS_VALUE kernel(ivec2 texel) {
  int i = ss_first_element(texel);
#if SS_ELEMENTS_PER_TEXEL == 4
  return vec4(i < ss_n ? element(i) : 0.0, i + 1 < ss_n ? element(i + 1) : 0.0, i + 2 < ss_n ? element(i + 2) : 0.0,
              i + 3 < ss_n ? element(i + 3) : 0.0);
#else
  return i < ss_n ? element(i) : 0.0;
#endif
}
