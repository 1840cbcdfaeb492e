// The heat operator on the GPU: the double tables of assemble_heat_operator() uploaded once as
// float/int textures, each operation one fragment pass (shaders/heat_*.glsl).
#include <algorithm>

#include "operators/heat_operator.hpp"
#include "util/error.hpp"

namespace ss {

namespace {

// A texture needs at least one element: an empty table (e.g. K_FF with every node fixed) is
// uploaded as one unused 0.
IndexField upload_indices_nonempty(GpuBackend& gpu, const std::vector<std::int32_t>& v) {
  return gpu.upload_indices(v.empty() ? std::vector<std::int32_t>{0} : v);
}
Field upload_nonempty(GpuBackend& gpu, const std::vector<double>& v) {
  return gpu.upload(v.empty() ? std::vector<double>{0.0} : v);
}
// The rounding error of each value's float, v − float(v), itself rounded to float.
Field upload_low_parts_nonempty(GpuBackend& gpu, const std::vector<double>& v) {
  return gpu.upload_low_parts(v.empty() ? std::vector<double>{0.0} : v);
}

// Uploads a neighbour CSR. With `quad_rows` (RGBA packing) every row is padded to a multiple of
// four entries with (neighbour = the row's own node, coefficient 0), which add K·(T_i - T_i) = 0
// (and 0 to the Dirichlet coupling), so the kernels read four ids and four coefficients per fetch.
// With `coefficients_lo`, also the lo parts of the (padded) coefficients, for fp64 kernels.
void upload_csr(GpuBackend& gpu, bool quad_rows, const std::vector<std::int32_t>& offsets,
                const std::vector<std::int32_t>& neighbors, const std::vector<double>& coefficients,
                IndexField& gpu_offsets, IndexField& gpu_neighbors, Field& gpu_coefficients,
                Field* coefficients_lo = nullptr) {
  if (!quad_rows) {
    gpu_offsets = gpu.upload_indices(offsets);
    gpu_neighbors = upload_indices_nonempty(gpu, neighbors);
    gpu_coefficients = upload_nonempty(gpu, coefficients);
    if (coefficients_lo) *coefficients_lo = upload_low_parts_nonempty(gpu, coefficients);
    return;
  }
  const size_t n = offsets.size() - 1;
  std::vector<std::int32_t> padded_offsets(n + 1, 0), padded_neighbors;
  std::vector<double> padded_coefficients;
  for (size_t i = 0; i < n; ++i) {
    const std::int32_t length = offsets[i + 1] - offsets[i];
    padded_offsets[i + 1] = padded_offsets[i] + (length + 3) / 4 * 4;
  }
  padded_neighbors.assign(size_t(padded_offsets[n]), 0);
  padded_coefficients.assign(size_t(padded_offsets[n]), 0.0);
  for (size_t i = 0; i < n; ++i) {
    std::int32_t out = padded_offsets[i];
    for (std::int32_t k = offsets[i]; k < offsets[i + 1]; ++k, ++out) {
      padded_neighbors[size_t(out)] = neighbors[size_t(k)];
      padded_coefficients[size_t(out)] = coefficients[size_t(k)];
    }
    for (; out < padded_offsets[i + 1]; ++out) padded_neighbors[size_t(out)] = std::int32_t(i);
  }
  gpu_offsets = gpu.upload_indices(padded_offsets);
  gpu_neighbors = upload_indices_nonempty(gpu, padded_neighbors);
  gpu_coefficients = upload_nonempty(gpu, padded_coefficients);
  if (coefficients_lo) *coefficients_lo = upload_low_parts_nonempty(gpu, padded_coefficients);
}

}  // namespace

GpuHeatOperator::GpuHeatOperator(GpuBackend& gpu, const LoadedMesh& mesh, const std::vector<double>& conductivity)
    : GpuHeatOperator(gpu, std::make_shared<const HeatOperatorData>(assemble_heat_operator(mesh, conductivity, HeatTables::all))) {}

GpuHeatOperator::GpuHeatOperator(GpuBackend& gpu, const HeatOperatorData& data)
    : GpuHeatOperator(gpu, std::make_shared<const HeatOperatorData>(data)) {}

GpuHeatOperator::GpuHeatOperator(GpuBackend& gpu, std::shared_ptr<const HeatOperatorData> data,
                                 const std::vector<std::int32_t>& fixed_nodes)
    : gpu_(gpu), data_(std::move(data)), quad_rows_(gpu.layout_options().packing == Packing::rgba32f) {
  upload_csr(gpu_, quad_rows_, data_->offsets, data_->neighbors, data_->coefficients, offsets_, neighbors_, coefficients_,
             &coefficients_lo_);
  diagonal_ = gpu_.upload(data_->diagonal);
  mass_ = gpu_.upload(data_->mass);
  mass_lo_ = gpu_.upload_low_parts(data_->mass);
  if (!data_->cell_nodes.empty()) {  // absent in the light tables of multigrid levels (no cell gradient)
    cell_nodes_ = gpu_.upload_indices(data_->cell_nodes);
    for (int d = 0; d < 3; ++d) grad_lambda_[d] = gpu_.upload(data_->grad_lambda[d]);
  }
  set_dirichlet(fixed_nodes);
}

void GpuHeatOperator::require_nodes(const Vector& v, const char* what) const {
  SS_REQUIRE(v.size() == data_->num_nodes,
             "heat operator: " << what << " has " << v.size() << " values, expected " << data_->num_nodes << " (one per node)");
}
void GpuHeatOperator::require_cells(const Vector& v, const char* what) const {
  SS_REQUIRE(v.size() == data_->num_cells,
             "heat operator: " << what << " has " << v.size() << " values, expected " << data_->num_cells << " (one per cell)");
}

void GpuHeatOperator::apply(const Vector& T, Vector& KT) {
  require_nodes(T, "T");
  require_nodes(KT, "K·T");
  gpu_.launch("heat_apply.glsl",
              {GpuBackend::in("T", T), GpuBackend::in("offsets", offsets_), GpuBackend::in("neighbors", neighbors_),
               GpuBackend::in("coefficients", coefficients_)},
              {&KT}, {uniform_int("quad_rows", quad_rows_)});
}

void GpuHeatOperator::apply_node_cells(const Vector& T, Vector& KT) {
  require_nodes(T, "T");
  require_nodes(KT, "K·T");
  SS_REQUIRE(!data_->node_cells.empty(), "heat operator: assembled without the node→cells tables (HeatTables::all)");
  if (!node_cells_uploaded_) {
    node_cell_offsets_ = gpu_.upload_indices(data_->node_cell_offsets);
    node_cells_ = gpu_.upload_indices(data_->node_cells);
    node_cell_coefficients_ = gpu_.upload(data_->node_cell_coefficients);
    node_cells_uploaded_ = true;
  }
  gpu_.launch("heat_apply_cells.glsl",
              {GpuBackend::in("T", T), GpuBackend::in("offsets", node_cell_offsets_),
               GpuBackend::in("cells", node_cells_), GpuBackend::in("coefficients", node_cell_coefficients_),
               GpuBackend::in("cell_nodes", cell_nodes_)},
              {&KT});
}

void GpuHeatOperator::cell_gradient(const Vector& T, Vector& gx, Vector& gy, Vector& gz) {
  require_nodes(T, "T");
  require_cells(gx, "gx");
  require_cells(gy, "gy");
  require_cells(gz, "gz");
  SS_REQUIRE(!data_->cell_nodes.empty(), "heat operator: assembled without the cell tables (HeatTables::operator_only): no cell gradient");
  gpu_.launch("heat_cell_gradient.glsl",
              {GpuBackend::in("T", T), GpuBackend::in("cell_nodes", cell_nodes_),
               GpuBackend::in("grad_x", grad_lambda_[0]), GpuBackend::in("grad_y", grad_lambda_[1]),
               GpuBackend::in("grad_z", grad_lambda_[2])},
              {&gx, &gy, &gz});
}

void GpuHeatOperator::set_dirichlet(const std::vector<std::int32_t>& nodes) {
  if (eliminates(dirichlet_, data_->num_nodes, nodes)) return;
  dirichlet_ = eliminate_dirichlet(*data_, nodes);
  upload_csr(gpu_, quad_rows_, dirichlet_.offsets, dirichlet_.neighbors, dirichlet_.coefficients, free_offsets_,
             free_neighbors_, free_coefficients_);
  shift_ = gpu_.upload(dirichlet_.shift);
  fixed_ = gpu_.upload(dirichlet_.fixed);
}

void GpuHeatOperator::write_dirichlet_values(Vector& T, const std::vector<double>& values) {
  require_nodes(T, "T");
  SS_REQUIRE(values.size() == dirichlet_.nodes.size(),
             "heat operator: " << values.size() << " Dirichlet values for " << dirichlet_.nodes.size() << " fixed nodes");
  if (!values.empty()) gpu_.scatter(T, dirichlet_.nodes, values);
}

void GpuHeatOperator::apply_system(double a, double s, const Vector& T, Vector& out) {
  require_nodes(T, "T");
  require_nodes(out, "output");
  gpu_.launch("heat_apply_system.glsl",
              {GpuBackend::in("T", T), GpuBackend::in("offsets", free_offsets_),
               GpuBackend::in("neighbors", free_neighbors_), GpuBackend::in("coefficients", free_coefficients_),
               GpuBackend::in("mass", mass_), GpuBackend::in("shift", shift_), GpuBackend::in("fixed_mask", fixed_)},
              {&out},
              {uniform_float("mass_coefficient", a), uniform_float("stiffness_coefficient", s),
               uniform_int("quad_rows", quad_rows_)});
}

GpuHeatOperator::Vector GpuHeatOperator::system_diagonal(double a, double s) {
  std::vector<double> d(size_t(data_->num_nodes));
  for (size_t i = 0; i < d.size(); ++i)
    d[i] = dirichlet_.fixed[i] != 0 ? 1.0 : a * data_->mass[i] + s * data_->diagonal[i];
  return gpu_.upload(d);
}

void GpuHeatOperator::dirichlet_rhs(const Vector& b, const Vector& T, double s, Vector& out) {
  require_nodes(b, "b");
  require_nodes(T, "T");
  require_nodes(out, "output");
  gpu_.launch("heat_dirichlet_rhs.glsl",
              {GpuBackend::in("b", b), GpuBackend::in("T", T), GpuBackend::in("fixed_mask", fixed_),
               GpuBackend::in("offsets", offsets_), GpuBackend::in("neighbors", neighbors_),
               GpuBackend::in("coefficients", coefficients_)},
              {&out}, {uniform_float("stiffness_coefficient", s), uniform_int("quad_rows", quad_rows_)});
}

void GpuHeatOperator::write_dirichlet_values_precise(PreciseVector& X, const std::vector<double>& values) {
  require_nodes(X.hi, "X");
  SS_REQUIRE(values.size() == dirichlet_.nodes.size(),
             "heat operator: " << values.size() << " Dirichlet values for " << dirichlet_.nodes.size() << " fixed nodes");
  if (!values.empty()) gpu_.scatter_precise(X, dirichlet_.nodes, values);
}

void GpuHeatOperator::residual_precise(double a, double s, const PreciseVector& f, const PreciseVector& X,
                                       PreciseVector& out, bool fixed_rows) {
  require_nodes(f.hi, "f");
  require_nodes(X.hi, "X");
  require_nodes(out.hi, "output");
  // a and s as float pairs too (1/Δt is no float).
  const auto hi = [](double v) { return double(float(v)); };
  gpu_.launch("heat_residual_precise.glsl",
              {GpuBackend::in("f_hi", f.hi), GpuBackend::in("f_lo", f.lo), GpuBackend::in("x_hi", X.hi),
               GpuBackend::in("x_lo", X.lo), GpuBackend::in("mass_hi", mass_), GpuBackend::in("mass_lo", mass_lo_),
               GpuBackend::in("coefficients_hi", coefficients_), GpuBackend::in("coefficients_lo", coefficients_lo_),
               GpuBackend::in("fixed_mask", fixed_), GpuBackend::in("offsets", offsets_),
               GpuBackend::in("neighbors", neighbors_)},
              {&out.hi, &out.lo},
              {uniform_float("a_hi", hi(a)), uniform_float("a_lo", a - hi(a)), uniform_float("s_hi", hi(s)),
               uniform_float("s_lo", s - hi(s)), uniform_int("fixed_rows", fixed_rows ? 1 : 0)});
}

// Bytes that must move, each table and field once (float32 values, int32 indices): the lower
// bound a bandwidth figure is measured against.
double GpuHeatOperator::apply_bytes() const {
  const double n = data_->num_nodes, nnz = double(data_->neighbors.size());
  return 4.0 * (n + 1) + 8.0 * nnz + 4.0 * n + 4.0 * n;  // offsets, neighbours + K_ij, T, K·T
}
double GpuHeatOperator::apply_system_bytes() const {
  const double n = data_->num_nodes, nnz = double(dirichlet_.neighbors.size());
  return 4.0 * (n + 1) + 8.0 * nnz + 4.0 * n * 5;  // K_FF CSR, T, mass, shift, mask, output
}
double GpuHeatOperator::residual_precise_bytes() const {
  const double n = data_->num_nodes, nnz = double(data_->neighbors.size());
  return 4.0 * (n + 1) + 12.0 * nnz + 8.0 * n * 4 + 4.0 * n;  // CSR (K pairs), f, x, m, out pairs, mask
}
double GpuHeatOperator::cell_gradient_bytes() const {
  const double n = data_->num_nodes, c = data_->num_cells;
  return 16.0 * c + 48.0 * c + 4.0 * n + 12.0 * c;  // cell nodes, ∇λ, T, three outputs
}
double GpuHeatOperator::apply_node_cells_bytes() const {
  const double n = data_->num_nodes, c = data_->num_cells, entries = double(data_->node_cells.size());
  return 4.0 * (n + 1) + 4.0 * entries + 16.0 * entries + 16.0 * c + 4.0 * n + 4.0 * n;
}

}  // namespace ss
