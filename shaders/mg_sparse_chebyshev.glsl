// One Chebyshev step with the sparse product inside (mg_chebyshev.glsl and mg_sparse_apply.glsl in
// one pass, two outputs):
//   r = b − A x,   d' = c_d · d + c_r · D⁻¹ r,   x' = x + d'
// (with a row map: x' and d' of the mapped rows only, into outputs of the map's length)
uniform sampler2D b;
uniform sampler2D x;
uniform sampler2D d;
uniform sampler2D inverse_diagonal;
uniform float c_d;
uniform float c_r;
#include "sparse_rows.glsl"
void kernel(ivec2 texel, out SS_VALUE x_new, out SS_VALUE d_new) {
  SS_VALUE r = row_value(b, texel) - sparse_rows(texel, x, x, false);
  d_new = c_d * row_value(d, texel) + c_r * row_value(inverse_diagonal, texel) * r;
  x_new = row_value(x, texel) + d_new;
}
