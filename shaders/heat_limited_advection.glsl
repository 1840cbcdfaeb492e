// Limited linear upwind advection of a node temperature by edge fluxes (operators/heat_advection.hpp),
// one node per element, two outputs: the upwind rate and inflow of heat_upwind_advection.glsl, the
// rate with every edge's antidiffusive flux A_e = ½ |F_e| L(a, Δ) added (downwind node) or taken
// (upwind node): Δ = T_d − T_u, a = 2 ∇T_u · (x_d − x_u) − Δ, L(a, Δ) = (a|Δ| + |a|Δ) / (|a| + |Δ|).
uniform sampler2D F;              // flux per edge, from its low node to its high node
uniform sampler2D T;              // nodal temperatures, same layout as the outputs
uniform sampler2D gx, gy, gz;     // ∇T per node (heat_node_gradient.glsl)
uniform sampler2D px, py, pz;     // node positions
uniform isampler2D offsets;       // CSR row starts, num_nodes + 1 entries
uniform isampler2D neighbors;     // neighbour node of each entry
uniform isampler2D entry_edges;   // ±(edge + 1) of each entry

vec3 gradient_at(int i) { return vec3(ss_element(gx, i), ss_element(gy, i), ss_element(gz, i)); }
vec3 position_at(int i) { return vec3(ss_element(px, i), ss_element(py, i), ss_element(pz, i)); }
float van_leer(float a, float delta) {
  float denominator = abs(a) + abs(delta);
  return denominator > 0.0 ? (a * abs(delta) + abs(a) * delta) / denominator : 0.0;
}

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
      int j = ss_index_element(neighbors, k);
      float tj = ss_element(T, j);
      float w = max(-out_flux, 0.0);
      r[c] += w * (tj - t[c]);
      q[c] += w;
      int u = out_flux > 0.0 ? i : j, d = out_flux > 0.0 ? j : i;
      float delta = out_flux > 0.0 ? tj - t[c] : t[c] - tj;
      float extrapolated = 2.0 * dot(gradient_at(u), position_at(d) - position_at(u));
      float flux = 0.5 * abs(out_flux) * van_leer(extrapolated - delta, delta);
      r[c] += out_flux > 0.0 ? -flux : flux;
    }
    begin = end;
  }
  rate = ss_from_vec4(r);
  inflow = ss_from_vec4(q);
}
