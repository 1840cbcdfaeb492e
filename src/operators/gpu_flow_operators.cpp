#include "operators/flow_operators.hpp"
#include "util/error.hpp"

namespace ss {

GpuFlowOperators::GpuFlowOperators(GpuBackend& backend, GpuMeshOperators& mesh_ops, const FlowOperatorData& d)
    : backend_(backend), mesh_(mesh_ops), num_cells_(d.num_cells), num_faces_(d.num_faces) {
  SS_REQUIRE(d.num_faces == mesh_.num_faces() && d.num_cells == mesh_.num_cells(),
             "flow operators: coefficients do not match the mesh");
  free_mask_ = backend.upload(d.free_mask);
  face_mass_ = backend.upload(d.face_mass);
  area_over_distance_ = backend.upload(d.area_over_distance);
  pressure_weight_ = backend.upload(d.pressure_weight);
  // A mesh always has boundary faces; a one-element field keeps the sampler valid regardless.
  dirichlet_velocity_ = backend.upload(d.dirichlet_velocity.empty() ? std::vector<double>{0.0} : d.dirichlet_velocity);
  boundary_zero_ = backend.make_vector(std::max<std::int64_t>(1, d.num_boundary_faces));
  inverse_volume_ = backend.upload(d.inverse_volume);
  laplacian_diagonal_ = backend.upload(d.laplacian_diagonal);
  pressure_diagonal_ = backend.upload(d.pressure_diagonal);
}

void GpuFlowOperators::prepare(Vector& out, std::int64_t n) {
  const Layout layout = backend_.layout_for(n);
  if (!(out.layout() == layout)) out = Field(layout);
}

void GpuFlowOperators::cell_terms(Convection conv, double a, double b, const Vector& U, const Vector& ux,
                                  const Vector& uy, const Vector& uz, const Vector& bx, const Vector& by,
                                  const Vector& bz, Vector& fx, Vector& fy, Vector& fz) {
  SS_REQUIRE(U.size() == num_faces_ && ux.size() == num_cells_ && uy.size() == num_cells_ && uz.size() == num_cells_,
             "flow cell terms: input sizes do not match the mesh");
  prepare(fx, num_cells_), prepare(fy, num_cells_), prepare(fz, num_cells_);
  const int convection = conv == Convection::none ? 0 : conv == Convection::central ? 1 : 2;
  backend_.launch("flow_cell_terms.glsl",
                  {GpuBackend::in("flux", U), GpuBackend::in("ux", ux), GpuBackend::in("uy", uy),
                   GpuBackend::in("uz", uz), GpuBackend::in("bx", bx), GpuBackend::in("by", by),
                   GpuBackend::in("bz", bz), GpuBackend::in("area_over_distance", area_over_distance_),
                   GpuBackend::in("inverse_volume", inverse_volume_),
                   GpuBackend::in("dirichlet_velocity", dirichlet_velocity_),
                   GpuBackend::in("cell_face0", mesh_.cell_faces(0)), GpuBackend::in("cell_face1", mesh_.cell_faces(1)),
                   GpuBackend::in("cell_face2", mesh_.cell_faces(2)), GpuBackend::in("cell_face3", mesh_.cell_faces(3)),
                   GpuBackend::in("face_cell0", mesh_.face_cell0()), GpuBackend::in("face_cell1", mesh_.face_cell1())},
                  {&fx, &fy, &fz},
                  {uniform_int("convection", convection), uniform_float("a", a), uniform_float("b", b)});
}

void GpuFlowOperators::momentum_apply(double inv_dt, double s, const Vector& x, Vector& y) {
  SS_REQUIRE(x.size() == num_faces_, "momentum operator: input has " << x.size() << " values, expected " << num_faces_);
  prepare(masked_, num_faces_);
  backend_.multiply(free_mask_, x, masked_);
  viscous_apply(masked_, lap_);
  momentum_combine(inv_dt, s, x, lap_, y);
}

void GpuFlowOperators::momentum_combine(double inv_dt, double s, const Vector& x, const Vector& lap, Vector& y) {
  SS_REQUIRE(x.size() == num_faces_ && lap.size() == num_faces_ && &y != &x && &y != &lap,
             "momentum operator: bad vectors");
  prepare(y, num_faces_);
  backend_.launch("flow_momentum_apply.glsl",
                  {GpuBackend::in("x", x), GpuBackend::in("lap", lap), GpuBackend::in("free_mask", free_mask_),
                   GpuBackend::in("face_mass", face_mass_)},
                  {&y}, {uniform_float("inv_dt", inv_dt), uniform_float("s", s)});
}

void GpuFlowOperators::viscous_apply(const Vector& x, Vector& y) {
  // K x = T Λ₀ I x
  SS_REQUIRE(&x != &y, "viscous operator: the output must not be the input");
  mesh_.interpolate(x, ux_, uy_, uz_);
  cell_terms(Convection::none, 1.0, 0.0, x, ux_, uy_, uz_, boundary_zero_, boundary_zero_, boundary_zero_, lx_, ly_,
             lz_);
  mesh_.integrate(lx_, ly_, lz_, y);
}

GpuFlowOperators::Vector GpuFlowOperators::momentum_diagonal(double inv_dt, double s) {
  // m (H/Δt − s K_ff) + (1 − m), from the same kernel with lap = K_ff and x = 1.
  Vector ones = backend_.make_vector(num_faces_), d = backend_.make_vector(num_faces_);
  backend_.fill(ones, 1.0);
  momentum_combine(inv_dt, s, ones, laplacian_diagonal_, d);
  return d;
}

void GpuFlowOperators::momentum_rhs(double inv_dt, double s, const Vector& U, const Vector& TF, const Vector& Gp,
                                    const Vector& Y, const Vector& Ub, Vector& out) {
  prepare(out, num_faces_);
  backend_.launch("flow_momentum_rhs.glsl",
                  {GpuBackend::in("flux", U), GpuBackend::in("integrated", TF), GpuBackend::in("pressure_gradient", Gp),
                   GpuBackend::in("fixed_columns", Y), GpuBackend::in("boundary_flux", Ub),
                   GpuBackend::in("free_mask", free_mask_), GpuBackend::in("face_mass", face_mass_)},
                  {&out}, {uniform_float("inv_dt", inv_dt), uniform_float("s", s)});
}

void GpuFlowOperators::pressure_apply(const Vector& x, Vector& y) {
  SS_REQUIRE(&x != &y, "pressure operator: the output must not be the input");
  prepare(y, num_cells_);
  backend_.launch("flow_pressure_apply.glsl",
                  {GpuBackend::in("phi", x), GpuBackend::in("pressure_weight", pressure_weight_),
                   GpuBackend::in("cell_face0", mesh_.cell_faces(0)), GpuBackend::in("cell_face1", mesh_.cell_faces(1)),
                   GpuBackend::in("cell_face2", mesh_.cell_faces(2)), GpuBackend::in("cell_face3", mesh_.cell_faces(3)),
                   GpuBackend::in("face_cell0", mesh_.face_cell0()), GpuBackend::in("face_cell1", mesh_.face_cell1())},
                  {&y});
}

void GpuFlowOperators::pressure_rows(const GpuBackend::IndexVector& rows, const Vector& x, Vector& y) {
  SS_REQUIRE(&x != &y && x.size() == num_cells_ && y.size() == rows.size(),
             "pressure operator at listed cells: " << rows.size() << " rows, output of " << y.size());
  backend_.launch("flow_pressure_rows.glsl",
                  {GpuBackend::in("phi", x), GpuBackend::in("pressure_weight", pressure_weight_),
                   GpuBackend::in("cell_face0", mesh_.cell_faces(0)), GpuBackend::in("cell_face1", mesh_.cell_faces(1)),
                   GpuBackend::in("cell_face2", mesh_.cell_faces(2)), GpuBackend::in("cell_face3", mesh_.cell_faces(3)),
                   GpuBackend::in("face_cell0", mesh_.face_cell0()), GpuBackend::in("face_cell1", mesh_.face_cell1()),
                   GpuBackend::in("rows", rows)},
                  {&y});
}

void GpuFlowOperators::project(const Vector& Ustar, const Vector& phi, double dt, Vector& U) {
  prepare(U, num_faces_);
  backend_.launch("flow_project.glsl",
                  {GpuBackend::in("flux_star", Ustar), GpuBackend::in("phi", phi),
                   GpuBackend::in("pressure_weight", pressure_weight_), GpuBackend::in("face_cell0", mesh_.face_cell0()),
                   GpuBackend::in("face_cell1", mesh_.face_cell1())},
                  {&U}, {uniform_float("dt", dt)});
}

void GpuFlowOperators::courant(const Vector& U, Vector& out) {
  prepare(out, num_cells_);
  backend_.launch("flow_courant.glsl",
                  {GpuBackend::in("flux", U), GpuBackend::in("inverse_volume", inverse_volume_),
                   GpuBackend::in("cell_face0", mesh_.cell_faces(0)), GpuBackend::in("cell_face1", mesh_.cell_faces(1)),
                   GpuBackend::in("cell_face2", mesh_.cell_faces(2)), GpuBackend::in("cell_face3", mesh_.cell_faces(3))},
                  {&out});
}

}  // namespace ss
