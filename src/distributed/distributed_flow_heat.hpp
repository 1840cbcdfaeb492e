#pragma once
// The temperature of a flow run on one rank's piece (thesis §8.3), what the run needs beyond the
// operators (distributed_flow_temperature.hpp): the piece's heat problem right on its ghost nodes,
// and the wall heat of the thermal groups summed over the ranks.
#include <functional>
#include <vector>

#include "mesh/load_mesh.hpp"
#include "mesh/mesh_groups.hpp"
#include "parallel/entity_partition.hpp"
#include "cases/flow_case.hpp"
#include "postprocess/flow_heat_flux.hpp"
#include "problems/flow_heat_problem.hpp"

namespace ss {

// A per-entity array of one kind (`halo`: the piece's nodes or edges) made on the piece, right on its
// owned entries, gets its ghost entries from their owners, in double on the host (collective).
std::function<void(std::vector<double>&)> ghost_completion(const EntityHalo& halo);

// The piece's heat problem (groups resolved against the whole mesh's, `whole`). Its owned nodes'
// values are exact; a ghost node may miss the boundary face that fixes it or loads it, so the fixed
// nodes, their values, the loads and T⁰ of the ghosts come from their owners: the piece fixes the
// nodes the whole mesh fixes (collective).
FlowHeatProblem piece_flow_heat_problem(const FlowCase& flow_case, const LoadedMesh& local, const PresentGroups& whole,
                                        const EntityPiece& piece);

// The heat meter of the piece: sums over its owned nodes and faces, edge fluxes completed from
// their owners (collective when measuring).
FlowHeatMeterPiece heat_meter_piece(const EntityPiece& piece);

// Each thermal group's heat, area, mean flux and Nusselt number of the whole mesh from every rank's
// piece of `state` (the rank's local state, T right on its ghosts; collective).
std::vector<FlowGroupHeat> measure_over_ranks(const FlowHeatMeter& meter, const FlowState& state);

}  // namespace ss
