#pragma once
// The temperature of a flow run over MPI ranks (physics/flow_temperature.hpp on DistributedBackend):
// its node operators on a rank's piece, each wrapping the backend's own (CpuHeatOperator /
// GpuHeatOperator, CpuHeatAdvection / GpuHeatAdvection) and bringing its output's ghost entries up
// to date from their owners through the node halo, as DistributedFlowOperators does for the flow.
// An owned node's rows are exact when the input is right on every local node: every tet around an
// owned node is on the piece (parallel/entity_partition.hpp), and the piece's fixed nodes are the
// whole mesh's (completed from the owners: distributed_flow_heat.hpp), so the eliminated rows are
// the serial run's. The edge fluxes F = E U are right on owned edges (every face of every tet around
// an owned edge is on the piece, none cut) and taken from their owners on the ghost edges
// (DistributedSparseMatrix), so the upwind rate is right on every owned node. Pointwise steps and
// the Dirichlet values need no exchange; the CG's reductions are DistributedBackend's.
#include <memory>
#include <utility>
#include <vector>

#include "distributed/distributed_flow_operators.hpp"
#include "parallel/distributed_backend.hpp"
#include "physics/flow_temperature.hpp"

namespace ss {

template <class Backend>
class DistributedFlowHeatOperator {
public:
  using Vector = typename Backend::Vector;
  using Local = typename HeatOperatorOn<Backend>::type;

  DistributedFlowHeatOperator(DistributedBackend<Backend>& dist, std::unique_ptr<Local> op)
      : dist_(dist), op_(std::move(op)) {}

  void write_dirichlet_values(Vector& T, const std::vector<double>& values) { op_->write_dirichlet_values(T, values); }
  void apply(const Vector& T, Vector& KT) { op_->apply(T, KT), dist_.update_ghosts(KT); }
  void apply_system(double a, double s, const Vector& x, Vector& y) {
    op_->apply_system(a, s, x, y);
    dist_.update_ghosts(y);
  }
  Vector system_diagonal(double a, double s) {
    Vector d = op_->system_diagonal(a, s);
    dist_.update_ghosts(d);
    return d;
  }
  void dirichlet_rhs(const Vector& b, const Vector& T, double s, Vector& out) {
    op_->dirichlet_rhs(b, T, s, out);
    dist_.update_ghosts(out);
  }

private:
  DistributedBackend<Backend>& dist_;
  std::unique_ptr<Local> op_;
};

template <class Backend>
struct HeatOperatorOn<DistributedBackend<Backend>> {
  using type = DistributedFlowHeatOperator<Backend>;
  static std::unique_ptr<type> make(DistributedBackend<Backend>& dist, std::shared_ptr<const HeatOperatorData> data,
                                    const std::vector<std::int32_t>& fixed) {
    return std::make_unique<type>(dist, HeatOperatorOn<Backend>::make(dist.local(), std::move(data), fixed));
  }
};

template <class Backend>
class DistributedHeatAdvection {
public:
  using Vector = typename Backend::Vector;
  DistributedHeatAdvection(DistributedBackend<Backend>& dist, const HeatAdvectionData& data)
      : dist_(dist), local_(dist.local(), data), edge_flux_(dist, data.edge_flux) {}

  void edge_fluxes(const Vector& face_flux, Vector& edge_flux) { edge_flux_.apply(face_flux, edge_flux); }
  void apply(const Vector& edge_flux, const Vector& temperature, Vector& rate, Vector& inflow) {
    local_.apply(edge_flux, temperature, rate, inflow);
    dist_.update_ghosts({&rate, &inflow});
  }
  // The limited rate reads the gradient at every neighbour of an owned node: ghosts included.
  void gradient(const Vector& temperature, Vector& gx, Vector& gy, Vector& gz) {
    local_.gradient(temperature, gx, gy, gz);
    dist_.update_ghosts({&gx, &gy, &gz});
  }
  void apply_limited(const Vector& edge_flux, const Vector& temperature, const Vector& gx, const Vector& gy,
                     const Vector& gz, Vector& rate, Vector& inflow) {
    local_.apply_limited(edge_flux, temperature, gx, gy, gz, rate, inflow);
    dist_.update_ghosts({&rate, &inflow});
  }

private:
  DistributedBackend<Backend>& dist_;
  typename HeatAdvectionOn<Backend>::type local_;
  DistributedSparseMatrix<Backend> edge_flux_;  // E, its ghost rows from their owners
};

template <class Backend>
struct HeatAdvectionOn<DistributedBackend<Backend>> {
  using type = DistributedHeatAdvection<Backend>;
};

}  // namespace ss
