#pragma once
// GPU staggered-mesh operators (definitions in operators/mesh_operators.hpp): one fragment kernel
// per operator in gather form, one output element per fragment (shaders/mesh_*.glsl). The mesh
// tables (MeshOperatorTables) are uploaded once: connectivity as IndexFields with the signed index
// encoding, geometric coefficients as float Fields, each with the layout of the operator's output
// so a kernel reads its rows at its own texel; inputs are read by element index (any layout of
// the backend's packing). Works for both packings (R32F: 1 element per texel, RGBA32F: 4).
#include <array>
#include <cstdint>
#include <vector>

#include "kernels/gpu_backend.hpp"
#include "mesh/load_mesh.hpp"
#include "operators/mesh_operator_tables.hpp"

namespace ss {

class GpuMeshOperators {
public:
  using Backend = GpuBackend;
  using Vector = GpuBackend::Vector;

  GpuMeshOperators(GpuBackend& backend, const LoadedMesh& mesh);
  GpuMeshOperators(GpuBackend& backend, const Topology& topology, const Geometry& geometry);
  GpuMeshOperators(GpuBackend& backend, const MeshOperatorTables& tables);

  std::int64_t num_cells() const { return num_cells_; }
  std::int64_t num_faces() const { return num_faces_; }
  std::int64_t num_edges() const { return num_edges_; }
  std::int64_t num_boundary_faces() const { return std::int64_t(boundary_faces_.size()); }
  const std::vector<std::int32_t>& boundary_faces() const { return boundary_faces_; }

  // A_f / L_f per face (thesis eq. 7.12) and V_c per cell.
  const Vector& face_area_over_distance() const { return face_area_over_distance_; }
  const Vector& cell_volumes() const { return cell_volumes_; }

  // Outputs are resized (reallocated) when they do not have the operator's output layout.
  void gradient(const Vector& phi, Vector& out);                                   // boundary values 0
  void gradient(const Vector& phi, const Vector& boundary_values, Vector& out);
  void divergence(const Vector& flux, Vector& out);
  void curl(const Vector& stream, Vector& out);
  void rotation(const Vector& flux, Vector& out);
  void interpolate(const Vector& flux, Vector& vx, Vector& vy, Vector& vz);
  // The same, for reductions over the owned cells (over MPI ranks the ghost cells are left stale).
  void interpolate_owned(const Vector& flux, Vector& vx, Vector& vy, Vector& vz) { interpolate(flux, vx, vy, vz); }
  void divergence_owned(const Vector& flux, Vector& out) { divergence(flux, out); }
  void integrate(const Vector& vx, const Vector& vy, const Vector& vz, Vector& out);

  // Connectivity tables for operators built beside these (flow): signed cell -> face of local face
  // k, and face -> cells (face_cell1 holds ~k on boundary face k).
  const IndexField& cell_faces(int k) const { return cell_faces_[size_t(k)]; }
  const IndexField& face_cell0() const { return face_cell0_; }
  const IndexField& face_cell1() const { return face_cell1_; }

  // Bytes of tables on the device (connectivity + coefficients).
  std::int64_t table_bytes() const;

private:
  void gradient_impl(const Vector& phi, const Vector* boundary_values, Vector& out);
  void require_input(const Vector& v, std::int64_t n, const char* op, const char* what) const;
  void prepare_output(Vector& out, std::int64_t n);

  GpuBackend& backend_;
  std::int64_t num_cells_ = 0, num_faces_ = 0, num_edges_ = 0;
  std::vector<std::int32_t> boundary_faces_;
  IndexField face_cell0_, face_cell1_;
  std::array<IndexField, 4> cell_faces_;
  std::array<IndexField, 3> face_edges_;
  IndexField edge_face_start_, edge_face_count_, edge_face_list_;
  std::array<Field, 12> interpolation_;  // slot k, component d at 3k + d
  std::array<Field, 3> integration0_, integration1_;
  Field face_area_over_distance_, cell_volumes_;
  Field dummy_;  // bound to samplers a variant does not read (one element)
};

}  // namespace ss
