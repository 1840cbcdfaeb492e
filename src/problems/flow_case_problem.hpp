#pragma once
// The flow case file (cases/flow_case.hpp) turned into numbers on a mesh (problems/flow_problem.hpp).
#include <vector>

#include "mesh/load_mesh.hpp"
#include "mesh/mesh_groups.hpp"
#include "cases/flow_case.hpp"
#include "problems/flow_problem.hpp"

namespace ss {

// Resolves every [[boundary]] group against the mesh by name or number and assigns its condition to
// the group's boundary faces. Errors (one line each, before any work):
//   "<case>:<line>: unknown boundary group 'inlet'; the mesh has lid (1), walls (2)"
//   "<case>: boundary group 'walls' (2) of <mesh> has no [[boundary]] condition (its 120 faces, e.g. the
//    one at (x, y, z), would be left open; every boundary face needs one)"
//   "<case>:<line>: [[boundary]] velocity = ... is nan at (x, y, z), t = 0"
// wall → velocity kind (moving wall velocity, default at rest), velocity → velocity kind,
// pressure → pressure kind, slip → slip kind. Expressions in t make the problem time dependent.
FlowProblem build_flow_problem(const FlowCase& flow_case, const LoadedMesh& mesh);

// An MPI rank's piece of the mesh (parallel/refined_entity_piece.hpp): its groups resolve against
// the whole mesh's (`groups`; the piece may lack some), and its cut faces (`cut`, per boundary face
// of the piece) take one more condition after the case's, "partition cut", a wall at rest: no owned
// entity's operator row reads it.
struct FlowPieceFaces {
  const PresentGroups* groups = nullptr;
  const std::vector<char>* cut = nullptr;
};
FlowProblem build_flow_problem(const FlowCase& flow_case, const LoadedMesh& piece, const FlowPieceFaces& faces);

// What needs no mesh: the fluid, scheme, time and solver settings, and the conditions in case-file
// order labelled by the case's group text; no boundary faces, forces or checks (an MPI rank builds
// its piece's problem from it with the face assignment rank 0 resolved on the whole mesh).
FlowProblem build_flow_problem_settings(const FlowCase& flow_case);

}  // namespace ss
