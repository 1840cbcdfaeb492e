// Upwind advection of a node temperature by edge fluxes (operators/heat_advection.hpp), one node
// per element, two outputs:
//   rate_i   = Σ_{k in row i} max(−F_ij, 0) (T[neighbor_k] − T_i)
//   inflow_i = Σ_{k in row i} max(−F_ij, 0)
// F_ij = ±F[e] for the entry's edge e, stored as ±(e + 1) (+ when e points from i to the neighbour).
uniform sampler2D F;             // flux per edge, from its low node to its high node
uniform sampler2D T;             // nodal temperatures, same layout as the outputs
uniform isampler2D offsets;      // CSR row starts, num_nodes + 1 entries
uniform isampler2D neighbors;    // neighbour node of each entry
uniform isampler2D entry_edges;  // ±(edge + 1) of each entry
void kernel(ivec2 texel, out SS_VALUE rate, out SS_VALUE inflow) {
  vec4 t = ss_vec4(ss_load(T, texel));
  vec4 r = vec4(0.0), q = vec4(0.0);
  int first = ss_first_element(texel);
  int begin = ss_index_element(offsets, min(first, ss_n));
  for (int c = 0; c < SS_ELEMENTS_PER_TEXEL; ++c) {
    int i = first + c;
    if (i >= ss_n) break;
    int end = ss_index_element(offsets, i + 1);
    for (int k = begin; k < end; ++k) {
      int e = ss_index_element(entry_edges, k);
      float out_flux = e > 0 ? ss_element(F, e - 1) : -ss_element(F, -e - 1);
      float w = max(-out_flux, 0.0);
      r[c] += w * (ss_element(T, ss_index_element(neighbors, k)) - t[c]);
      q[c] += w;
    }
    begin = end;
  }
  rate = ss_from_vec4(r);
  inflow = ss_from_vec4(q);
}
