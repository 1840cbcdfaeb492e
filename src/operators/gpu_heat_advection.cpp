// The upwind advection on the GPU: E as a sliced-ELLPACK sparse matrix, the upwind gather one
// two-output pass (shaders/heat_upwind_advection.glsl).
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
}

void GpuHeatAdvection::edge_fluxes(const Vector& face_flux, Vector& edge_flux) { matrix_.apply(face_flux, edge_flux); }

void GpuHeatAdvection::apply(const Vector& edge_flux, const Vector& temperature, Vector& rate, Vector& inflow) {
  SS_REQUIRE(edge_flux.size() == num_edges_ && temperature.size() == num_nodes_ && rate.size() == num_nodes_ &&
                 inflow.size() == num_nodes_,
             "heat advection: " << edge_flux.size() << " edge fluxes, " << temperature.size() << " temperatures, "
                                << rate.size() << " and " << inflow.size() << " outputs for " << num_edges_
                                << " edges and " << num_nodes_ << " nodes");
  SS_REQUIRE(&rate != &temperature && &inflow != &temperature && &rate != &inflow && &rate != &edge_flux &&
                 &inflow != &edge_flux,
             "heat advection: outputs must differ from the inputs");
  gpu_.launch("heat_upwind_advection.glsl",
              {GpuBackend::in("F", edge_flux), GpuBackend::in("T", temperature), GpuBackend::in("offsets", offsets_),
               GpuBackend::in("neighbors", neighbors_), GpuBackend::in("entry_edges", entry_edges_)},
              {&rate, &inflow});
}

}  // namespace ss
