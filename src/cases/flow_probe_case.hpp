#pragma once
// A [[probe]] table of the flow case file (postprocess/flow_probes.hpp samples it):
//
//   [[probe]]  name = "dp", points = [[x, y, z], ...] | line = {from = [x, y, z], to = [x, y, z], samples = N},
//              fields = ["velocity", "pressure"] (the default; "temperature" too in a [heat] case)
#include <string>
#include <vector>

#include <glm/vec3.hpp>

namespace ss {

class TableReader;

struct FlowProbeSpec {
  std::string name;                   // letters, digits, '_' and '-' (the CSV's file name)
  std::vector<glm::dvec3> points;
  std::vector<std::string> fields;    // "velocity" | "pressure" | "temperature" (a [heat] case), each once
  std::string where;                  // "<case file>:<line>", for errors found against the mesh
};

// One [[probe]] table (its unknown keys are rejected by the caller); one-line errors naming its line.
FlowProbeSpec read_flow_probe(TableReader& t);

}  // namespace ss
