#pragma once
// The tables behind the staggered-mesh operators (thesis ch. 5, §7.2–7.4), built once per mesh on
// the host in double precision. CpuMeshOperators works on them directly; GpuMeshOperators uploads
// each vector as one Field / IndexField (same layout as the operator's output, so a kernel reads
// row i of a table at its own output texel).
//
// Signed index encoding (all connectivity with an orientation): a value v >= 0 stands for entity
// v with sign +1, a value v < 0 for entity ~v (= -1 - v) with sign -1. Decoding is branch-free on
// both sides: index = v ^ (v >> 31), sign = 2 (v >> 31) + 1. This halves the connectivity bytes a
// gather reads compared with separate index and sign tables.
#include <array>
#include <cstdint>
#include <vector>

#include "mesh/geometry.hpp"
#include "mesh/topology.hpp"

namespace ss {

inline std::int32_t decode_index(std::int32_t v) { return v ^ (v >> 31); }
inline double decode_sign(std::int32_t v) { return v < 0 ? -1.0 : 1.0; }
inline std::int32_t encode_signed_index(std::int32_t index, int sign) { return sign >= 0 ? index : ~index; }

struct MeshOperatorTables {
  std::int32_t num_cells = 0, num_faces = 0, num_edges = 0;
  std::vector<std::int32_t> boundary_faces;  // face id of boundary face k (ascending; Topology::boundary_faces)

  // Faces -> cells. face_cell1 holds the cell on the normal's side, or ~k for boundary face k
  // (the index of its value in a boundary vector).
  std::vector<std::int32_t> face_cell0, face_cell1;
  // Cells -> faces, one table per local face (opposite local node k), signed: + when the face
  // normal points out of the cell.
  std::array<std::vector<std::int32_t>, 4> cell_faces;
  // Faces -> edges, one table per local edge ((p0,p1), (p1,p2), (p2,p0)), signed: + when the
  // edge's low->high direction runs along the face's cycle (whose right-hand normal is the face
  // normal).
  std::array<std::vector<std::int32_t>, 3> face_edges;
  // Edges -> faces (CSR: start, count per edge; list ascending in face id), signed as face_edges.
  std::vector<std::int32_t> edge_face_start, edge_face_count, edge_face_list;

  // Interpolation (eq. 5.1 with U_f = u_f A_f, eq. 7.5): coefficient of local face k of cell c,
  // (x_f - x_c) / V_c, component d; the sign comes from cell_faces.
  std::array<std::array<std::vector<double>, 3>, 4> interpolation;
  // Integration (eq. 5.2): u_f = v_c0 . (x_f - x_c0) + v_c1 . (x_c1 - x_f) (second term absent on
  // the boundary, where integration1 holds 0).
  std::array<std::vector<double>, 3> integration0, integration1;

  // Geometric face and cell coefficients for solvers: A_f / L_f with L_f = |x_c1 - x_c0| (boundary
  // faces: |x_f - x_c0|) — the approximate inverse of thesis eq. 7.12 — and cell volumes.
  std::vector<double> face_area_over_distance;
  std::vector<double> cell_volumes;
};

MeshOperatorTables build_mesh_operator_tables(const Topology& topology, const Geometry& geometry);

}  // namespace ss
