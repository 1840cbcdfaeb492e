#pragma once
// CPU reference of the staggered-mesh operators (definitions in operators/mesh_operators.hpp):
// double precision, OpenMP, gather form (one output element per loop iteration), so each result
// is summed in the same order as on the GPU.
#include <cstdint>
#include <vector>

#include "cpu/cpu_backend.hpp"
#include "mesh/load_mesh.hpp"
#include "operators/mesh_operator_tables.hpp"

namespace ss {

class CpuMeshOperators {
public:
  using Backend = CpuBackend;
  using Vector = CpuBackend::Vector;

  explicit CpuMeshOperators(const LoadedMesh& mesh);
  CpuMeshOperators(const Topology& topology, const Geometry& geometry);
  explicit CpuMeshOperators(MeshOperatorTables tables);  // tables made already (no second copy)

  std::int64_t num_cells() const { return tables_.num_cells; }
  std::int64_t num_faces() const { return tables_.num_faces; }
  std::int64_t num_edges() const { return tables_.num_edges; }
  std::int64_t num_boundary_faces() const { return std::int64_t(tables_.boundary_faces.size()); }
  const std::vector<std::int32_t>& boundary_faces() const { return tables_.boundary_faces; }
  const MeshOperatorTables& tables() const { return tables_; }

  // A_f / L_f per face (thesis eq. 7.12) and V_c per cell.
  const Vector& face_area_over_distance() const { return tables_.face_area_over_distance; }
  const Vector& cell_volumes() const { return tables_.cell_volumes; }

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

private:
  void gradient_impl(const Vector& phi, const Vector* boundary_values, Vector& out);
  MeshOperatorTables tables_;
};

}  // namespace ss
