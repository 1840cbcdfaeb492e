// Launch glue for kernels written per output element (as per_element.glsl) at listed elements:
// output element k is element(rows[k]), k < ss_n; `rows` has the output's length.
uniform isampler2D rows;
SS_VALUE kernel(ivec2 texel) {
  int i = ss_first_element(texel);
  SS_IVALUE r = ss_load_index(rows, texel);
#if SS_ELEMENTS_PER_TEXEL == 4
  return vec4(i < ss_n ? element(r.x) : 0.0, i + 1 < ss_n ? element(r.y) : 0.0, i + 2 < ss_n ? element(r.z) : 0.0,
              i + 3 < ss_n ? element(r.w) : 0.0);
#else
  return i < ss_n ? element(r) : 0.0;
#endif
}
