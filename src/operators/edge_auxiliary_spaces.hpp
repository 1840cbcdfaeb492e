#pragma once
// The node spaces around the edge (lowest-order Nédélec) space, as sparse matrices: what the
// auxiliary-space preconditioner of an edge system needs (multigrid/auxiliary_space.hpp;
// Hiptmair & Xu 2007, hypre's AMS).
//   C:   faces × edges, (C s)_f = Σ_{e ∈ f} σ_fe s_e, the discrete curl (the same signs as the
//        mesh operators' curl: +1 when the edge's low → high direction runs along the face's cycle);
//   Π_d: edges × nodes, the Nédélec interpolation of component d of a nodal P1 vector field v:
//        (Π v)_e = ∫_e v · t = ½ (v_a + v_b) · (x_b − x_a) for the edge e = (a, b), a < b.
// Π is exact on linear fields, so Π applied to a constant vector c is the gradient of c · x.
#include <array>
#include <vector>

#include <glm/vec3.hpp>

#include "mesh/topology.hpp"
#include "operators/sparse_matrix.hpp"

namespace ss {

SparseMatrix curl_matrix(const Topology& t);

// Π_0, Π_1, Π_2; rows of edges with free_edge_mask 0 (fixed edges) are left empty, and so are the
// rows of edges across axis d in Π_d (no stored zeros).
std::array<SparseMatrix, 3> nedelec_interpolation(const Topology& t, const std::vector<glm::dvec3>& nodes,
                                                  const std::vector<double>& free_edge_mask);

}  // namespace ss
