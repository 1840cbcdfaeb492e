#pragma once
// Probes: the node fields (physics/flow_fields.hpp) sampled at points of the mesh.
// The [[probe]] table: physics/flow_probe_case.hpp.
//
// A point is located in the tet that holds it (the one it lies deepest in, for a point on a face,
// edge or node) and sampled by linear (barycentric) interpolation of the node values there, so a
// field linear in x is sampled exactly. The columns of a probe: "<component>@<point index>" for
// each point (from 0) and each field's components (velocity_x, velocity_y, velocity_z, pressure).
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include <glm/vec3.hpp>

#include "mesh/load_mesh.hpp"
#include "physics/flow_fields.hpp"
#include "physics/flow_probe_case.hpp"

namespace ss {

class FlowProbes {
public:
  // Locates every point; a point in no tet is an error "<case>:<line>: probe '<name>': point <k>
  // (x, y, z) is outside the mesh".
  FlowProbes(const LoadedMesh& mesh, std::vector<FlowProbeSpec> specs);

  size_t size() const { return specs_.size(); }
  const FlowProbeSpec& spec(size_t probe) const { return specs_[probe]; }
  std::vector<std::string> columns(size_t probe) const;
  // The values of `columns(probe)` from the node fields.
  std::vector<double> sample(size_t probe, const FlowFields& fields) const;

private:
  struct Location {
    std::int32_t cell = -1;
    std::array<double, 4> weights{};  // barycentric, in the tet's node order
  };
  const LoadedMesh& mesh_;
  std::vector<FlowProbeSpec> specs_;
  std::vector<std::vector<Location>> locations_;  // per probe, per point
};

}  // namespace ss
