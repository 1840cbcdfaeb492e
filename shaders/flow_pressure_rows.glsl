// y_k = (P φ)_{rows[k]}: the pressure operator at listed cells (a halo's send rows), with the same
// element function as flow_pressure_apply.glsl.
uniform sampler2D phi, pressure_weight;
uniform isampler2D cell_face0, cell_face1, cell_face2, cell_face3, face_cell0, face_cell1;

#include "flow_neighbor.glsl"
#include "flow_pressure_element.glsl"
#include "per_row.glsl"
