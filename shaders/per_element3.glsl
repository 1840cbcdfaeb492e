// Launch glue for three-output kernels written per output element: the including kernel defines
// `vec3 element(int i)` for output element i < ss_n; component d goes to output d.
void kernel(ivec2 texel, out SS_VALUE x, out SS_VALUE y, out SS_VALUE z) {
  int i = ss_first_element(texel);
#if SS_ELEMENTS_PER_TEXEL == 4
  vec3 a = i < ss_n ? element(i) : vec3(0.0), b = i + 1 < ss_n ? element(i + 1) : vec3(0.0);
  vec3 c = i + 2 < ss_n ? element(i + 2) : vec3(0.0), d = i + 3 < ss_n ? element(i + 3) : vec3(0.0);
  x = vec4(a.x, b.x, c.x, d.x);
  y = vec4(a.y, b.y, c.y, d.y);
  z = vec4(a.z, b.z, c.z, d.z);
#else
  vec3 a = i < ss_n ? element(i) : vec3(0.0);
  x = a.x;
  y = a.y;
  z = a.z;
#endif
}
