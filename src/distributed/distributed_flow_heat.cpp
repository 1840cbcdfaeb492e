#include "distributed/distributed_flow_heat.hpp"

#include <memory>

#include <mpi.h>

#include "cpu/cpu_backend.hpp"
#include "parallel/halo.hpp"
#include "parallel/message.hpp"

namespace ss {

std::function<void(std::vector<double>&)> ghost_completion(const EntityHalo& entities) {
  struct Halo {
    CpuBackend host;
    HaloExchange<CpuBackend> exchange;
    explicit Halo(const std::vector<HaloLink>& links) : exchange(host, links, MPI_COMM_WORLD) {}
  };
  auto halo = std::make_shared<Halo>(entities.links);
  return [halo](std::vector<double>& v) { halo->exchange.update(v); };
}

FlowHeatProblem piece_flow_heat_problem(const FlowCase& flow_case, const LoadedMesh& local, const PresentGroups& whole,
                                        const EntityPiece& piece) {
  FlowHeatProblem p = build_flow_heat_problem(flow_case, local, &whole);
  HeatProblem& h = p.conduction;
  const size_t n = local.mesh.nodes.size();
  std::vector<double> fixed(n, 0.0), value(n, 0.0);
  for (size_t k = 0; k < h.dirichlet_nodes.size(); ++k)
    fixed[size_t(h.dirichlet_nodes[k])] = 1.0, value[size_t(h.dirichlet_nodes[k])] = h.dirichlet_values[k];
  const auto complete = ghost_completion(piece.nodes);
  for (std::vector<double>* v : {&fixed, &value, &h.load, &h.initial}) complete(*v);
  h.dirichlet_nodes.clear(), h.dirichlet_values.clear();
  for (size_t i = 0; i < n; ++i)
    if (fixed[i] != 0.0) h.dirichlet_nodes.push_back(std::int32_t(i)), h.dirichlet_values.push_back(value[i]);
  return p;
}

FlowHeatMeterPiece heat_meter_piece(const EntityPiece& piece) {
  FlowHeatMeterPiece m;
  m.owned_nodes = piece.nodes.owned;
  m.owned_faces = piece.faces.owned;
  m.complete_edges = ghost_completion(piece.edges);
  m.complete_nodes = ghost_completion(piece.nodes);
  return m;
}

std::vector<FlowGroupHeat> measure_over_ranks(const FlowHeatMeter& meter, const FlowState& state) {
  std::vector<FlowGroupHeat> sums = meter.partial(state);
  std::vector<double> v;
  for (const FlowGroupHeat& g : sums) v.push_back(g.heat), v.push_back(g.area);
  if (!v.empty())
    mpi_check(MPI_Allreduce(MPI_IN_PLACE, v.data(), int(v.size()), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD),
              "MPI_Allreduce");
  for (size_t g = 0; g < sums.size(); ++g) sums[g].heat = v[2 * g], sums[g].area = v[2 * g + 1];
  return meter.finish(std::move(sums));
}

}  // namespace ss
