// One step of the Chebyshev smoother (multigrid), two outputs in one pass:
//   r = b − A x,   d' = c_d · d + c_r · D⁻¹ r,   x' = x + d'
// With zero_start = 1 the step starts from x = 0, d = 0 (r = b; Ax, x and d are not read).
uniform sampler2D b;
uniform sampler2D ax;
uniform sampler2D x;
uniform sampler2D d;
uniform sampler2D inverse_diagonal;
uniform float c_d;
uniform float c_r;
uniform int zero_start;
void kernel(ivec2 texel, out SS_VALUE x_new, out SS_VALUE d_new) {
  SS_VALUE r = ss_load(b, texel);
  SS_VALUE xv = SS_VALUE(0.0), dv = SS_VALUE(0.0);
  if (zero_start == 0) {
    r -= ss_load(ax, texel);
    xv = ss_load(x, texel);
    dv = ss_load(d, texel);
  }
  d_new = c_d * dv + c_r * ss_load(inverse_diagonal, texel) * r;
  x_new = xv + d_new;
}
