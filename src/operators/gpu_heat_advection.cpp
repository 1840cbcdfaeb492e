// The advection on the GPU: E as a sliced-ELLPACK sparse matrix, the upwind gather one two-output
// pass (shaders/heat_upwind_advection.glsl); the limited one a gradient pass and its own two-output
// pass (heat_node_gradient.glsl, heat_limited_advection.glsl).
#include "operators/heat_advection.hpp"
#include "util/error.hpp"

namespace ss {

namespace {
IndexField upload_indices_nonempty(GpuBackend& gpu, const std::vector<std::int32_t>& v) {
  return gpu.upload_indices(v.empty() ? std::vector<std::int32_t>{0} : v);
}
}  // namespace

GpuHeatAdvection::GpuHeatAdvection(GpuBackend& gpu, const HeatAdvectionData& data)
    : gpu_(gpu), num_nodes_(data.num_nodes), num_edges_(data.num_edges), matrix_(gpu, data.edge_flux) {
  offsets_ = gpu.upload_indices(data.offsets);
  neighbors_ = upload_indices_nonempty(gpu, data.neighbors);
  entry_edges_ = upload_indices_nonempty(gpu, data.entry_edges);
  const auto nonempty = [](const std::vector<double>& v) { return v.empty() ? std::vector<double>{0.0} : v; };
  area_x_ = gpu.upload(nonempty(data.dual_area[0])), area_y_ = gpu.upload(nonempty(data.dual_area[1]));
  area_z_ = gpu.upload(nonempty(data.dual_area[2]));
  inverse_volume_ = gpu.upload(data.inverse_volume);
  x_ = gpu.upload(data.position[0]), y_ = gpu.upload(data.position[1]), z_ = gpu.upload(data.position[2]);
}

void GpuHeatAdvection::edge_fluxes(const Vector& face_flux, Vector& edge_flux) { matrix_.apply(face_flux, edge_flux); }

void GpuHeatAdvection::check_sizes(const Vector& edge_flux, const Vector& temperature, const Vector& rate,
                                   const Vector& inflow) const {
  SS_REQUIRE(edge_flux.size() == num_edges_ && temperature.size() == num_nodes_ && rate.size() == num_nodes_ &&
                 inflow.size() == num_nodes_,
             "heat advection: " << edge_flux.size() << " edge fluxes, " << temperature.size() << " temperatures, "
                                << rate.size() << " and " << inflow.size() << " outputs for " << num_edges_
                                << " edges and " << num_nodes_ << " nodes");
  SS_REQUIRE(&rate != &temperature && &inflow != &temperature && &rate != &inflow && &rate != &edge_flux &&
                 &inflow != &edge_flux,
             "heat advection: outputs must differ from the inputs");
}

void GpuHeatAdvection::apply(const Vector& edge_flux, const Vector& temperature, Vector& rate, Vector& inflow) {
  check_sizes(edge_flux, temperature, rate, inflow);
  gpu_.launch("heat_upwind_advection.glsl",
              {GpuBackend::in("F", edge_flux), GpuBackend::in("T", temperature), GpuBackend::in("offsets", offsets_),
               GpuBackend::in("neighbors", neighbors_), GpuBackend::in("entry_edges", entry_edges_)},
              {&rate, &inflow});
}

void GpuHeatAdvection::gradient(const Vector& temperature, Vector& gx, Vector& gy, Vector& gz) {
  SS_REQUIRE(temperature.size() == num_nodes_ && gx.size() == num_nodes_ && gy.size() == num_nodes_ &&
                 gz.size() == num_nodes_,
             "heat advection: a gradient of " << gx.size() << " nodes for " << temperature.size() << " temperatures ("
                                              << num_nodes_ << " nodes)");
  SS_REQUIRE(&gx != &temperature && &gy != &temperature && &gz != &temperature,
             "heat advection: outputs must differ from the inputs");
  gpu_.launch("heat_node_gradient.glsl",
              {GpuBackend::in("T", temperature), GpuBackend::in("area_x", area_x_), GpuBackend::in("area_y", area_y_),
               GpuBackend::in("area_z", area_z_), GpuBackend::in("inverse_volume", inverse_volume_),
               GpuBackend::in("offsets", offsets_), GpuBackend::in("neighbors", neighbors_),
               GpuBackend::in("entry_edges", entry_edges_)},
              {&gx, &gy, &gz});
}

void GpuHeatAdvection::apply_limited(const Vector& edge_flux, const Vector& temperature, const Vector& gx,
                                     const Vector& gy, const Vector& gz, Vector& rate, Vector& inflow) {
  check_sizes(edge_flux, temperature, rate, inflow);
  SS_REQUIRE(gx.size() == num_nodes_ && gy.size() == num_nodes_ && gz.size() == num_nodes_,
             "heat advection: a gradient of " << gx.size() << " nodes for " << num_nodes_ << " nodes");
  gpu_.launch("heat_limited_advection.glsl",
              {GpuBackend::in("F", edge_flux), GpuBackend::in("T", temperature), GpuBackend::in("gx", gx),
               GpuBackend::in("gy", gy), GpuBackend::in("gz", gz), GpuBackend::in("px", x_), GpuBackend::in("py", y_),
               GpuBackend::in("pz", z_), GpuBackend::in("offsets", offsets_), GpuBackend::in("neighbors", neighbors_),
               GpuBackend::in("entry_edges", entry_edges_)},
              {&rate, &inflow});
}

}  // namespace ss
