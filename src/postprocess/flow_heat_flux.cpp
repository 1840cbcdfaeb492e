#include "postprocess/flow_heat_flux.hpp"

#include "util/error.hpp"

namespace ss {

FlowHeatMeter::FlowHeatMeter(const LoadedMesh& mesh, const FlowHeatProblem& problem,
                             std::optional<FlowHeatMeterPiece> piece)
    : problem_(problem), conduction_(assemble_heat_system(mesh, problem.conduction, HeatTables::operator_only)),
      advection_(build_heat_advection(mesh)), piece_(std::move(piece)) {
  const Topology& t = mesh.topology;
  node_group_.assign(size_t(t.num_nodes), -1);
  area_.assign(problem.groups.size(), 0.0);
  imposed_.assign(problem.groups.size(), 0.0);
  // Q of a heat_flux group is its imposed Σ q A.
  for (size_t g = 0; g < problem.groups.size(); ++g) {
    const FlowHeatGroup& group = problem.groups[g];
    for (std::int32_t f : t.boundary_faces) {
      if (t.face_groups[size_t(f)] != group.group) continue;
      if (!piece_ || piece_->owned_faces[size_t(f)]) area_[g] += mesh.geometry.face_areas[size_t(f)];
      if (!group.fixed_temperature) continue;
      for (std::int32_t node : t.face_nodes[size_t(f)])
        if (node_group_[size_t(node)] < 0) node_group_[size_t(node)] = std::int32_t(g);
    }
    if (!group.fixed_temperature) {
      std::vector<double> share(size_t(t.num_nodes), 0.0);
      add_boundary_flux(mesh, group.group, group.heat_flux, share);
      for (size_t i = 0; i < share.size(); ++i)
        if (!piece_ || piece_->owned_nodes[i]) imposed_[g] += share[i];
    }
  }
}

std::vector<double> FlowHeatMeter::node_heat(const FlowState& state) const {
  const std::vector<double>& T = state.temperature;
  SS_REQUIRE(std::int64_t(T.size()) == conduction_.num_nodes,
             "heat meter: " << T.size() << " temperatures for " << conduction_.num_nodes << " nodes");
  std::vector<double> F, rate, inflow;
  advection_.edge_flux.multiply(state.flux, F);
  if (piece_) piece_->complete_edges(F);
  if (problem_.limited_advection) {
    std::vector<double> gx, gy, gz;
    node_gradient(advection_, T, gx, gy, gz);
    if (piece_)
      for (std::vector<double>* g : {&gx, &gy, &gz}) piece_->complete_nodes(*g);
    limited_advection(advection_, F, T, gx, gy, gz, rate, inflow);
  } else {
    upwind_advection(advection_, F, T, rate, inflow);
  }
  const std::vector<double>& b = problem_.conduction.load;
  std::vector<double> Q(T.size(), 0.0);
  for (std::int32_t i = 0; i < conduction_.num_nodes; ++i) {
    if (node_group_[size_t(i)] < 0) continue;
    double kt = 0.0;  // (K T)_i = Σ_j K_ij (T_j − T_i) (heat_operator.hpp)
    for (std::int32_t k = conduction_.offsets[size_t(i)]; k < conduction_.offsets[size_t(i) + 1]; ++k)
      kt += conduction_.coefficients[size_t(k)] * (T[size_t(conduction_.neighbors[size_t(k)])] - T[size_t(i)]);
    Q[size_t(i)] = kt - problem_.heat_capacity * rate[size_t(i)] - b[size_t(i)];
  }
  return Q;
}

std::vector<FlowGroupHeat> FlowHeatMeter::partial(const FlowState& state) const {
  const std::vector<double> Q = node_heat(state);
  std::vector<FlowGroupHeat> out(problem_.groups.size());
  for (size_t g = 0; g < out.size(); ++g) {
    out[g].group = problem_.groups[g].label;
    out[g].fixed_temperature = problem_.groups[g].fixed_temperature;
    out[g].area = area_[g];
    out[g].heat = imposed_[g];
  }
  for (size_t i = 0; i < Q.size(); ++i)
    if (node_group_[i] >= 0 && (!piece_ || piece_->owned_nodes[i])) out[size_t(node_group_[i])].heat += Q[i];
  return out;
}

std::vector<FlowGroupHeat> FlowHeatMeter::finish(std::vector<FlowGroupHeat> out) const {
  for (FlowGroupHeat& h : out) {
    h.heat_flux = h.area > 0 ? h.heat / h.area : 0.0;
    if (problem_.reference_length > 0)
      h.nusselt = h.heat_flux * problem_.reference_length /
                  (problem_.conductivity * problem_.reference_temperature_difference);
  }
  return out;
}

}  // namespace ss
