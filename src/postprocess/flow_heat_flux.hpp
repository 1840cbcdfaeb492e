#pragma once
// The heat each thermal boundary group gives the fluid, from a flow state with its temperature
// (host side, double), and the Nusselt numbers.
//
// A fixed-temperature group: the balance of its fixed nodes, whose rows the solve replaced,
//     Q_i = (K T)_i − ρc R_i(U; T) − b_i         (heat entering node i's dual cell through the wall)
// summed over the nodes the group fixes (a node on two groups belongs to the one listed first, as it
// takes that group's value). This is the discrete flux the scheme conserves, exact for the steady
// state (a transient state's fixed nodes carry no M dT/dt; the explicit advection's Tⁿ is replaced by
// the state's T; R is the run's scheme, upwind or limited). A heat_flux group: Q = Σ_f q(x_f) A_f as imposed.
// Mean wall heat flux q = Q / A (A the group's area); Nusselt number Nu = q L / (k ΔT) with the
// case's reference_length L and reference_temperature_difference ΔT.
// On an MPI rank's piece (FlowHeatMeterPiece) the sums run over the nodes and boundary faces the
// rank owns, the edge fluxes' and the limited scheme's gradients' ghost entries come from their owners, and the ranks' partial sums
// (partial) add up to the whole mesh's before finish.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "mesh/load_mesh.hpp"
#include "operators/heat_advection.hpp"
#include "operators/heat_operator.hpp"
#include "problems/flow_heat_problem.hpp"
#include "physics/flow_state.hpp"

namespace ss {

struct FlowGroupHeat {
  std::string group;
  bool fixed_temperature = true;
  double heat = 0;        // Q, into the fluid
  double area = 0;        // A
  double heat_flux = 0;   // q = Q / A
  std::optional<double> nusselt;
};

// A rank's piece: which local nodes and faces it owns, and the edge fluxes' ghosts from their owners
// (collective).
struct FlowHeatMeterPiece {
  std::vector<char> owned_nodes, owned_faces;
  std::function<void(std::vector<double>&)> complete_edges, complete_nodes;
};

class FlowHeatMeter {
public:
  FlowHeatMeter(const LoadedMesh& mesh, const FlowHeatProblem& problem,
                std::optional<FlowHeatMeterPiece> piece = std::nullopt);
  // One entry per problem.groups, in order; state.temperature must be set.
  std::vector<FlowGroupHeat> measure(const FlowState& state) const { return finish(partial(state)); }
  // Q and A of each group summed over this mesh's (a piece's owned) nodes and faces; the rest unset.
  std::vector<FlowGroupHeat> partial(const FlowState& state) const;
  // q = Q / A and Nu from the sums.
  std::vector<FlowGroupHeat> finish(std::vector<FlowGroupHeat> sums) const;
  // Per node: Q_i of a node a fixed-temperature group fixes (the balance above), 0 elsewhere; the
  // local wall heat of a part of a group is its nodes' sum.
  std::vector<double> node_heat(const FlowState& state) const;

private:
  const FlowHeatProblem& problem_;
  HeatOperatorData conduction_;
  HeatAdvectionData advection_;
  std::vector<std::int32_t> node_group_;  // per node: index into problem.groups fixing it, or −1
  std::vector<double> area_, imposed_;    // per group
  std::optional<FlowHeatMeterPiece> piece_;
};

}  // namespace ss
