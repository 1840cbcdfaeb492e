// The median-dual Green–Gauss gradient of a node temperature (operators/heat_advection.hpp), one
// node per element, three outputs:
//   g_i = (1/V_i) Σ_{k in row i} ½ (T[neighbor_k] − T_i) S_ij,   S_ij = ±S_e (+ when e points from i)
uniform sampler2D T;              // nodal temperatures, same layout as the outputs
uniform sampler2D area_x, area_y, area_z;  // S_e per edge, from its low node to its high node
uniform sampler2D inverse_volume;          // 1/V_i per node
uniform isampler2D offsets;       // CSR row starts, num_nodes + 1 entries
uniform isampler2D neighbors;     // neighbour node of each entry
uniform isampler2D entry_edges;   // ±(edge + 1) of each entry
void kernel(ivec2 texel, out SS_VALUE gx, out SS_VALUE gy, out SS_VALUE gz) {
  vec4 t = ss_vec4(ss_load(T, texel)), w = ss_vec4(ss_load(inverse_volume, texel));
  vec4 x = vec4(0.0), y = vec4(0.0), z = vec4(0.0);
  int first = ss_first_element(texel);
  int begin = ss_index_element(offsets, min(first, ss_n));
  for (int c = 0; c < SS_ELEMENTS_PER_TEXEL; ++c) {
    int i = first + c;
    if (i >= ss_n) break;
    int end = ss_index_element(offsets, i + 1);
    for (int k = begin; k < end; ++k) {
      int e = ss_index_element(entry_edges, k);
      int edge = e > 0 ? e - 1 : -e - 1;
      float half_difference = (e > 0 ? 0.5 : -0.5) * (ss_element(T, ss_index_element(neighbors, k)) - t[c]);
      x[c] += half_difference * ss_element(area_x, edge);
      y[c] += half_difference * ss_element(area_y, edge);
      z[c] += half_difference * ss_element(area_z, edge);
    }
    begin = end;
  }
  gx = ss_from_vec4(x * w);
  gy = ss_from_vec4(y * w);
  gz = ss_from_vec4(z * w);
}
