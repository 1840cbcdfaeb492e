#pragma once
// Probes over MPI ranks (postprocess/flow_probes.hpp samples them serially): each point is answered by
// the one rank whose owned cells hold it deepest (ghost cells never answer; equally deep: the lowest
// rank), which interpolates its node fields there; rank 0 gathers the values and gets what the
// serial FlowProbes would sample.
#include <cstdint>
#include <vector>

#include "mesh/load_mesh.hpp"
#include "parallel/entity_partition.hpp"
#include "postprocess/flow_fields.hpp"
#include "postprocess/flow_probes.hpp"

namespace ss {

class DistributedProbes {
public:
  // Locates every point among the piece's owned cells (collective). A point no rank holds is the
  // serial error "<case>:<line>: probe '<name>': point <k> (x, y, z) is outside the mesh", on every rank.
  DistributedProbes(const LoadedMesh& local, const EntityHalo& cells, std::vector<FlowProbeSpec> specs);

  size_t size() const { return specs_.size(); }
  // Every probe's values by column at rank 0, nothing elsewhere (collective; fields of the piece,
  // right on the nodes of its owned cells).
  std::vector<std::vector<double>> sample_all(const FlowFields& fields) const;

private:
  const LoadedMesh& local_;
  std::vector<FlowProbeSpec> specs_;
  std::vector<std::int64_t> mine_;        // the points this rank answers, numbered over all probes in turn
  std::vector<ProbeLocation> locations_;  // where each of them is
  std::int64_t points_ = 0;               // points of all probes
};

}  // namespace ss
