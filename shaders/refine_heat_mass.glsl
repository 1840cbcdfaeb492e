// The fine level's lumped heat capacity (Σ ρc V/4 over the cells around a node: heat_problem.hpp's
// assemble_heat_system) per fine node, from the coarse level. Every child has volume V_c/8 and its
// parent's ρc, so a coarse node keeps 1/8 of its coarse value (one corner child in each cell around
// it), and the midpoint of coarse edge e gets, from each cell around e,
// ρc V_c/8 · (2 corner children + 4 octahedron children on the diagonal, else 2) / 4.
#include "refine_children.glsl"
#include "refine_fine_edges.glsl"
uniform sampler2D coarse_volumes_eighth;
uniform sampler2D coarse_mass;           // the coarse level's Σ ρc V/4
uniform sampler2D coarse_heat_capacity;  // ρc of each coarse cell

float fine_mass(int i) {
  int v, e;
  fine_node_entity(i, v, e);
  if (e < 0) return ss_element(coarse_mass, v) / 8.0;
  float mass = 0.0;
  for (int r = ss_index_element(edge_cell_offsets, e); r < ss_index_element(edge_cell_offsets, e + 1); ++r) {
    int entry = ss_index_element(edge_cells, r), c = entry / 6, k = entry % 6;
    mass += ss_element(coarse_heat_capacity, c) * ss_element(coarse_volumes_eighth, c) * (on_diagonal(c, k) ? 1.5 : 1.0);
  }
  return mass;
}

SS_VALUE kernel(ivec2 texel) {
  int first = ss_first_element(texel);
  vec4 values = vec4(0.0);
  for (int k = 0; k < SS_ELEMENTS_PER_TEXEL; ++k) {
    if (first + k >= ss_n) break;
    values[k] = fine_mass(first + k);
  }
  return ss_from_vec4(values);
}
