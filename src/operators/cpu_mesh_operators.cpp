#include "operators/cpu_mesh_operators.hpp"

#include <utility>

#include "util/error.hpp"

namespace ss {
namespace {

void require_size(const std::vector<double>& v, std::int64_t n, const char* op, const char* what) {
  SS_REQUIRE(std::int64_t(v.size()) == n, op << ": " << what << " has " << v.size() << " values, expected " << n);
}

// out[i] = f(i) for every i, in parallel.
template <typename F>
void for_each_output(std::vector<double>& out, std::int64_t n, F f) {
  out.resize(size_t(n));
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < n; ++i) out[size_t(i)] = f(size_t(i));
}

}  // namespace

CpuMeshOperators::CpuMeshOperators(const LoadedMesh& mesh) : CpuMeshOperators(mesh.topology, mesh.geometry) {}

CpuMeshOperators::CpuMeshOperators(const Topology& topology, const Geometry& geometry)
    : tables_(build_mesh_operator_tables(topology, geometry)) {}

CpuMeshOperators::CpuMeshOperators(MeshOperatorTables tables) : tables_(std::move(tables)) {}

void CpuMeshOperators::gradient(const Vector& phi, Vector& out) { gradient_impl(phi, nullptr, out); }

void CpuMeshOperators::gradient(const Vector& phi, const Vector& boundary_values, Vector& out) {
  // A mesh without boundary faces (periodic) has one unused entry, as on the GPU.
  require_size(boundary_values, std::max<std::int64_t>(1, num_boundary_faces()), "gradient", "the boundary vector");
  gradient_impl(phi, &boundary_values, out);
}

void CpuMeshOperators::gradient_impl(const Vector& phi, const Vector* boundary_values, Vector& out) {
  require_size(phi, num_cells(), "gradient", "the cell field");
  const auto& c0 = tables_.face_cell0;
  const auto& c1 = tables_.face_cell1;
  for_each_output(out, num_faces(), [&](size_t f) {
    const std::int32_t other = c1[f];
    const double v1 = other >= 0 ? phi[size_t(other)] : boundary_values ? (*boundary_values)[size_t(~other)] : 0.0;
    return v1 - phi[size_t(c0[f])];
  });
}

void CpuMeshOperators::divergence(const Vector& flux, Vector& out) {
  require_size(flux, num_faces(), "divergence", "the face field");
  const auto& cf = tables_.cell_faces;
  for_each_output(out, num_cells(), [&](size_t c) {
    double sum = 0.0;
    for (size_t k = 0; k < 4; ++k) sum += decode_sign(cf[k][c]) * flux[size_t(decode_index(cf[k][c]))];
    return sum;
  });
}

void CpuMeshOperators::curl(const Vector& stream, Vector& out) {
  require_size(stream, num_edges(), "curl", "the edge field");
  const auto& fe = tables_.face_edges;
  for_each_output(out, num_faces(), [&](size_t f) {
    double sum = 0.0;
    for (size_t j = 0; j < 3; ++j) sum += decode_sign(fe[j][f]) * stream[size_t(decode_index(fe[j][f]))];
    return sum;
  });
}

void CpuMeshOperators::rotation(const Vector& flux, Vector& out) {
  require_size(flux, num_faces(), "rotation", "the face field");
  const auto& start = tables_.edge_face_start;
  const auto& count = tables_.edge_face_count;
  const auto& list = tables_.edge_face_list;
  for_each_output(out, num_edges(), [&](size_t e) {
    double sum = 0.0;
    for (std::int32_t k = start[e], end = start[e] + count[e]; k < end; ++k)
      sum += decode_sign(list[size_t(k)]) * flux[size_t(decode_index(list[size_t(k)]))];
    return sum;
  });
}

void CpuMeshOperators::interpolate(const Vector& flux, Vector& vx, Vector& vy, Vector& vz) {
  require_size(flux, num_faces(), "interpolate", "the face field");
  SS_REQUIRE(&vx != &vy && &vy != &vz && &vx != &vz, "interpolate: the three outputs must be different vectors");
  const std::int64_t n = num_cells();
  vx.resize(size_t(n));
  vy.resize(size_t(n));
  vz.resize(size_t(n));
  const auto& cf = tables_.cell_faces;
  const auto& w = tables_.interpolation;
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < n; ++i) {
    const size_t c = size_t(i);
    double x = 0.0, y = 0.0, z = 0.0;
    for (size_t k = 0; k < 4; ++k) {
      const double u = decode_sign(cf[k][c]) * flux[size_t(decode_index(cf[k][c]))];
      x += u * w[k][0][c];
      y += u * w[k][1][c];
      z += u * w[k][2][c];
    }
    vx[c] = x, vy[c] = y, vz[c] = z;
  }
}

void CpuMeshOperators::integrate(const Vector& vx, const Vector& vy, const Vector& vz, Vector& out) {
  require_size(vx, num_cells(), "integrate", "the x component");
  require_size(vy, num_cells(), "integrate", "the y component");
  require_size(vz, num_cells(), "integrate", "the z component");
  const auto& c0 = tables_.face_cell0;
  const auto& c1 = tables_.face_cell1;
  const auto& a = tables_.integration0;
  const auto& b = tables_.integration1;
  for_each_output(out, num_faces(), [&](size_t f) {
    const size_t i = size_t(c0[f]);
    double u = vx[i] * a[0][f] + vy[i] * a[1][f] + vz[i] * a[2][f];
    if (c1[f] >= 0) {
      const size_t j = size_t(c1[f]);
      u += vx[j] * b[0][f] + vy[j] * b[1][f] + vz[j] * b[2][f];
    }
    return u;
  });
}

}  // namespace ss
