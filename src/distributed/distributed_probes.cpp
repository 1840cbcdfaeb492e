#include "distributed/distributed_probes.hpp"

#include <mpi.h>

#include "parallel/collect.hpp"
#include "parallel/message.hpp"
#include "parallel/mpi_env.hpp"
#include "util/error.hpp"

namespace ss {

DistributedProbes::DistributedProbes(const LoadedMesh& local, const EntityHalo& cells, std::vector<FlowProbeSpec> specs)
    : local_(local), specs_(std::move(specs)) {
  std::vector<std::int32_t> owned;
  for (size_t c = 0; c < cells.owned.size(); ++c)
    if (cells.owned[c]) owned.push_back(std::int32_t(c));
  // Each point's depth in this rank's owned cells with the rank: MPI_MAXLOC picks the deepest, and
  // of equally deep ones the lowest rank.
  struct DepthRank {
    double depth;
    int rank;
  };
  std::vector<ProbeLocation> found;
  std::vector<DepthRank> best;
  for (const FlowProbeSpec& spec : specs_)
    for (const glm::dvec3& p : spec.points) {
      found.push_back(locate_probe_point(local, p, &owned));
      best.push_back({found.back().cell >= 0 ? found.back().depth : -1e300, mpi::rank()});
    }
  points_ = std::int64_t(best.size());
  mpi_check(MPI_Allreduce(MPI_IN_PLACE, best.data(), int(best.size()), MPI_DOUBLE_INT, MPI_MAXLOC, MPI_COMM_WORLD),
            "MPI_Allreduce");
  std::int64_t k = 0;
  for (const FlowProbeSpec& spec : specs_)
    for (size_t i = 0; i < spec.points.size(); ++i, ++k) {
      SS_REQUIRE(best[size_t(k)].depth > -1e299, spec.where << ": probe '" << spec.name << "': point " << i << " "
                                                            << probe_point_text(spec.points[i]) << " is outside the mesh");
      if (best[size_t(k)].rank == mpi::rank()) mine_.push_back(k), locations_.push_back(found[size_t(k)]);
    }
}

std::vector<std::vector<double>> DistributedProbes::sample_all(const FlowFields& fields) const {
  SS_REQUIRE(fields.node_velocity.size() == local_.mesh.nodes.size() &&
                 fields.node_pressure.size() == local_.mesh.nodes.size(),
             "probes: node fields of another mesh");
  // A [heat] run's fields (every rank's alike) carry the node temperature: a fifth value per point.
  const bool heat = fields.node_temperature.size() == local_.mesh.nodes.size();
  const int width = heat ? 5 : 4;
  std::vector<double> values;  // velocity, pressure (and temperature) of each point this rank answers
  for (const ProbeLocation& at : locations_) {
    const glm::dvec4 v = sample_probe_point(local_, at, fields);
    values.insert(values.end(), {v.x, v.y, v.z, v.w});
    if (!heat) continue;
    const Tet& t = local_.mesh.tets[size_t(at.cell)];
    double T = 0;
    for (int i = 0; i < 4; ++i) T += at.weights[size_t(i)] * fields.node_temperature[size_t(t[size_t(i)])];
    values.push_back(T);
  }
  const std::vector<double> all = gather_by_id(mine_, values, mpi::rank() == 0 ? size_t(points_) : 0, width);
  std::vector<std::vector<double>> samples;
  if (mpi::rank() != 0) return samples;
  size_t k = 0;
  for (const FlowProbeSpec& spec : specs_) {
    std::vector<glm::dvec4> at_points;
    std::vector<double> temperatures;
    for (size_t i = 0; i < spec.points.size(); ++i, ++k) {
      const double* v = &all[size_t(width) * k];
      at_points.push_back({v[0], v[1], v[2], v[3]});
      if (heat) temperatures.push_back(v[4]);
    }
    samples.push_back(probe_values(spec, at_points, temperatures));
  }
  return samples;
}

}  // namespace ss
