#pragma once
// Probes: the node fields (postprocess/flow_fields.hpp) sampled at points of the mesh.
// The [[probe]] table: cases/flow_probe_case.hpp.
//
// A point is located in the tet that holds it (the one it lies deepest in, for a point on a face,
// edge or node) and sampled by linear (barycentric) interpolation of the node values there, so a
// field linear in x is sampled exactly. The columns of a probe: "<component>@<point index>" for
// each point (from 0) and each field's components (velocity_x, velocity_y, velocity_z, pressure,
// temperature).
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include <glm/vec3.hpp>
#include <glm/vec4.hpp>

#include "mesh/load_mesh.hpp"
#include "postprocess/flow_fields.hpp"
#include "cases/flow_probe_case.hpp"

namespace ss {

// Where a point lies in a mesh: the tet it lies deepest in, its barycentric weights there and that
// depth (the least weight; >= -1e-9 counts as inside, for round-off).
struct ProbeLocation {
  std::int32_t cell = -1;
  std::array<double, 4> weights{};  // in the tet's node order
  double depth = -1e300;
};
// Searches `cells` (null: every tet; the first of equally deep tets wins); cell -1 when the point
// is in none of them.
ProbeLocation locate_probe_point(const LoadedMesh& mesh, const glm::dvec3& p, const std::vector<std::int32_t>* cells = nullptr);
// The node velocity (x, y, z) and pressure (w) interpolated at a located point.
glm::dvec4 sample_probe_point(const LoadedMesh& mesh, const ProbeLocation& at, const FlowFields& fields);

// The columns of a probe (see above), and its values from the node velocity and pressure at each point
// and (a probe of "temperature") the node temperature interpolated there: an error when it is missing.
std::vector<std::string> probe_columns(const FlowProbeSpec& spec);
std::vector<double> probe_values(const FlowProbeSpec& spec, const std::vector<glm::dvec4>& at_points,
                                 const std::vector<double>& temperatures = {});

// "(x, y, z)" as probe errors write a point.
std::string probe_point_text(const glm::dvec3& x);

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
  // sample() of every probe.
  std::vector<std::vector<double>> sample_all(const FlowFields& fields) const;

  const std::vector<FlowProbeSpec>& specs() const { return specs_; }

private:
  const LoadedMesh& mesh_;
  std::vector<FlowProbeSpec> specs_;
  std::vector<std::vector<ProbeLocation>> locations_;  // per probe, per point
};

}  // namespace ss
