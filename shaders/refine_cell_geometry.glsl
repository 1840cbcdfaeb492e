// Volume and centroid of each fine cell (compute_geometry's cell_volumes and cell_centroids). The
// eight children of a tet have equal volumes (red refinement: V/8 each), gathered from the coarse
// level; the centroid is the mean of the child's corners in fp64 (refined_child), rounded to float.
#include "refine_children.glsl"
uniform sampler2D coarse_volumes_eighth;  // V/8 of each coarse cell
void kernel(ivec2 texel, out SS_VALUE volume, out SS_VALUE centroid_x, out SS_VALUE centroid_y, out SS_VALUE centroid_z) {
  int first = ss_first_element(texel);
  vec4 v = vec4(0.0), cx = vec4(0.0), cy = vec4(0.0), cz = vec4(0.0);
  for (int c = 0; c < SS_ELEMENTS_PER_TEXEL; ++c) {
    int i = first + c;
    if (i >= ss_n) break;
    ivec4 nodes;
    dvec3 p[4];
    refined_child(i, nodes, p);
    precise dvec3 center = (((p[0] + p[1]) + p[2]) + p[3]) * 0.25;  // = / 4 exactly (IEEE)
    v[c] = ss_element(coarse_volumes_eighth, i >> 3);
    cx[c] = float(center.x), cy[c] = float(center.y), cz[c] = float(center.z);
  }
  volume = ss_from_vec4(v);
  centroid_x = ss_from_vec4(cx), centroid_y = ss_from_vec4(cy), centroid_z = ss_from_vec4(cz);
}
