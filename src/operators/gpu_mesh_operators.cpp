#include "operators/gpu_mesh_operators.hpp"

#include <GL/glew.h>

#include "util/error.hpp"

namespace ss {
namespace {

Field upload_field(GpuBackend& backend, const std::vector<double>& values) { return backend.upload(values); }

// The most samplers one operator binds (interpolation: flux, 4 cell->face tables, 12 coefficients).
constexpr int kMaxSamplers = 17;

}  // namespace

GpuMeshOperators::GpuMeshOperators(GpuBackend& backend, const LoadedMesh& mesh)
    : GpuMeshOperators(backend, mesh.topology, mesh.geometry) {}

GpuMeshOperators::GpuMeshOperators(GpuBackend& backend, const Topology& topology, const Geometry& geometry)
    : GpuMeshOperators(backend, build_mesh_operator_tables(topology, geometry)) {}

GpuMeshOperators::GpuMeshOperators(GpuBackend& backend, const MeshOperatorTables& t) : backend_(backend) {
  GLint units = 0;
  glGetIntegerv(GL_MAX_TEXTURE_IMAGE_UNITS, &units);
  SS_REQUIRE(units >= kMaxSamplers, "mesh operators need " << kMaxSamplers << " texture units in a fragment shader; the device has "
                                                            << units);
  num_cells_ = t.num_cells;
  num_faces_ = t.num_faces;
  num_edges_ = t.num_edges;
  boundary_faces_ = t.boundary_faces;
  face_cell0_ = backend.upload_indices(t.face_cell0);
  face_cell1_ = backend.upload_indices(t.face_cell1);
  for (size_t k = 0; k < 4; ++k) cell_faces_[k] = backend.upload_indices(t.cell_faces[k]);
  for (size_t j = 0; j < 3; ++j) face_edges_[j] = backend.upload_indices(t.face_edges[j]);
  edge_face_start_ = backend.upload_indices(t.edge_face_start);
  edge_face_count_ = backend.upload_indices(t.edge_face_count);
  edge_face_list_ = backend.upload_indices(t.edge_face_list);
  for (size_t k = 0; k < 4; ++k)
    for (size_t d = 0; d < 3; ++d) interpolation_[3 * k + d] = upload_field(backend, t.interpolation[k][d]);
  for (size_t d = 0; d < 3; ++d) {
    integration0_[d] = upload_field(backend, t.integration0[d]);
    integration1_[d] = upload_field(backend, t.integration1[d]);
  }
  face_area_over_distance_ = upload_field(backend, t.face_area_over_distance);
  cell_volumes_ = upload_field(backend, t.cell_volumes);
  dummy_ = upload_field(backend, {0.0});
}

std::int64_t GpuMeshOperators::table_bytes() const {
  std::int64_t texels = 0;
  auto add = [&](const Layout& l) { texels += l.texels() * l.elements_per_texel; };
  add(face_cell0_.layout()), add(face_cell1_.layout());
  for (const auto& f : cell_faces_) add(f.layout());
  for (const auto& f : face_edges_) add(f.layout());
  add(edge_face_start_.layout()), add(edge_face_count_.layout()), add(edge_face_list_.layout());
  for (const auto& f : interpolation_) add(f.layout());
  for (const auto& f : integration0_) add(f.layout());
  for (const auto& f : integration1_) add(f.layout());
  add(face_area_over_distance_.layout()), add(cell_volumes_.layout());
  return 4 * texels;
}

void GpuMeshOperators::require_input(const Vector& v, std::int64_t n, const char* op, const char* what) const {
  SS_REQUIRE(v.size() == n, op << ": " << what << " has " << v.size() << " values, expected " << n);
  SS_REQUIRE(v.layout().elements_per_texel == int(backend_.layout_options().packing),
             op << ": " << what << " uses a different packing than the backend");
}

void GpuMeshOperators::prepare_output(Vector& out, std::int64_t n) {
  const Layout layout = backend_.layout_for(n);
  if (!(out.layout() == layout)) out = Field(layout);
}

// ---- gradient: cell -> face ----

void GpuMeshOperators::gradient(const Vector& phi, Vector& out) { gradient_impl(phi, nullptr, out); }

void GpuMeshOperators::gradient(const Vector& phi, const Vector& boundary_values, Vector& out) {
  // A mesh without boundary faces (periodic) still has one entry: a GPU field is never empty.
  require_input(boundary_values, std::max<std::int64_t>(1, num_boundary_faces()), "gradient", "the boundary vector");
  SS_REQUIRE(&boundary_values != &out, "gradient: the output must not be the boundary vector");
  gradient_impl(phi, &boundary_values, out);
}

void GpuMeshOperators::gradient_impl(const Vector& phi, const Vector* boundary_values, Vector& out) {
  require_input(phi, num_cells_, "gradient", "the cell field");
  SS_REQUIRE(&phi != &out, "gradient: the output must not be the input");
  prepare_output(out, num_faces_);
  // Without boundary values the boundary sampler is bound to a one-element dummy it never reads.
  const Vector& boundary = boundary_values ? *boundary_values : dummy_;
  backend_.launch("mesh_gradient.glsl",
                  {GpuBackend::in("phi", phi), GpuBackend::in("boundary_values", boundary),
                   GpuBackend::in("face_cell0", face_cell0_), GpuBackend::in("face_cell1", face_cell1_)},
                  {&out}, {uniform_int("use_boundary_values", boundary_values ? 1 : 0)});
}

// ---- divergence: face -> cell ----

void GpuMeshOperators::divergence(const Vector& flux, Vector& out) {
  require_input(flux, num_faces_, "divergence", "the face field");
  SS_REQUIRE(&flux != &out, "divergence: the output must not be the input");
  prepare_output(out, num_cells_);
  backend_.launch("mesh_divergence.glsl",
                  {GpuBackend::in("flux", flux), GpuBackend::in("cell_face0", cell_faces_[0]),
                   GpuBackend::in("cell_face1", cell_faces_[1]), GpuBackend::in("cell_face2", cell_faces_[2]),
                   GpuBackend::in("cell_face3", cell_faces_[3])},
                  {&out});
}

// ---- curl: edge -> face ----

void GpuMeshOperators::curl(const Vector& stream, Vector& out) {
  require_input(stream, num_edges_, "curl", "the edge field");
  SS_REQUIRE(&stream != &out, "curl: the output must not be the input");
  prepare_output(out, num_faces_);
  backend_.launch("mesh_curl.glsl",
                  {GpuBackend::in("stream", stream), GpuBackend::in("face_edge0", face_edges_[0]),
                   GpuBackend::in("face_edge1", face_edges_[1]), GpuBackend::in("face_edge2", face_edges_[2])},
                  {&out});
}

// ---- rotation: face -> edge ----

void GpuMeshOperators::rotation(const Vector& flux, Vector& out) {
  require_input(flux, num_faces_, "rotation", "the face field");
  SS_REQUIRE(&flux != &out, "rotation: the output must not be the input");
  prepare_output(out, num_edges_);
  backend_.launch("mesh_rotation.glsl",
                  {GpuBackend::in("flux", flux), GpuBackend::in("edge_face_start", edge_face_start_),
                   GpuBackend::in("edge_face_count", edge_face_count_), GpuBackend::in("edge_face_list", edge_face_list_)},
                  {&out});
}

// ---- interpolation: face -> cell vectors (three outputs, one pass) ----

void GpuMeshOperators::interpolate(const Vector& flux, Vector& vx, Vector& vy, Vector& vz) {
  require_input(flux, num_faces_, "interpolate", "the face field");
  SS_REQUIRE(&vx != &vy && &vy != &vz && &vx != &vz, "interpolate: the three outputs must be different fields");
  SS_REQUIRE(&flux != &vx && &flux != &vy && &flux != &vz, "interpolate: an output must not be the input");
  prepare_output(vx, num_cells_);
  prepare_output(vy, num_cells_);
  prepare_output(vz, num_cells_);
  static const char* coefficient_names[12] = {"w0x", "w0y", "w0z", "w1x", "w1y", "w1z",
                                              "w2x", "w2y", "w2z", "w3x", "w3y", "w3z"};
  std::vector<KernelInput> inputs{GpuBackend::in("flux", flux), GpuBackend::in("cell_face0", cell_faces_[0]),
                                  GpuBackend::in("cell_face1", cell_faces_[1]), GpuBackend::in("cell_face2", cell_faces_[2]),
                                  GpuBackend::in("cell_face3", cell_faces_[3])};
  for (size_t i = 0; i < 12; ++i) inputs.push_back(GpuBackend::in(coefficient_names[i], interpolation_[i]));
  backend_.launch("mesh_interpolate.glsl", inputs, {&vx, &vy, &vz});
}

// ---- integration: cell vectors -> face ----

void GpuMeshOperators::integrate(const Vector& vx, const Vector& vy, const Vector& vz, Vector& out) {
  require_input(vx, num_cells_, "integrate", "the x component");
  require_input(vy, num_cells_, "integrate", "the y component");
  require_input(vz, num_cells_, "integrate", "the z component");
  SS_REQUIRE(&out != &vx && &out != &vy && &out != &vz, "integrate: the output must not be an input");
  prepare_output(out, num_faces_);
  backend_.launch("mesh_integrate.glsl",
                  {GpuBackend::in("vx", vx), GpuBackend::in("vy", vy), GpuBackend::in("vz", vz),
                   GpuBackend::in("face_cell0", face_cell0_), GpuBackend::in("face_cell1", face_cell1_),
                   GpuBackend::in("a0", integration0_[0]), GpuBackend::in("a1", integration0_[1]),
                   GpuBackend::in("a2", integration0_[2]), GpuBackend::in("b0", integration1_[0]),
                   GpuBackend::in("b1", integration1_[1]), GpuBackend::in("b2", integration1_[2])},
                  {&out});
}

}  // namespace ss
