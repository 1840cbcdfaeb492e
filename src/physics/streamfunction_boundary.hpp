#pragma once
// Boundary values of the edge streamfunction for the exact fractional-step method (thesis §7.4;
// Chang, Giraldo & Perot 2002). The face fluxes are U = C s (operators/mesh_operators.hpp), so a
// boundary face's flux is the circulation of s around its three edges — all boundary edges. The
// edges of prescribed faces (walls, velocity inlets, slip) are therefore fixed: their values must
// make the surface curl equal the prescribed fluxes U_b; every other edge is a free unknown.
//
// The fixed values come from a spanning tree of the boundary surface's dual graph (tree–cotree):
// the nodes are the prescribed faces and the pressure patches (each connected set of pressure
// faces collapsed into one node whose flux is free), the links are the fixed edges. With every
// non-tree link at 0, the tree is solved from its leaves: each node's remaining flux goes onto the
// link to its parent. A tree whose root is a pressure patch absorbs whatever flux is left; a
// closed surface of prescribed faces only must balance (Σ U_b = 0): small imbalances (quadrature
// of the boundary velocity) are spread over the surface's faces in proportion to |U_b|, larger
// ones are an error naming the surface's groups.
//
// What the tree cannot fix — the harmonic part — is a few global degrees of freedom that the
// solve determines (exact_fractional_step.hpp), one basis edge field h_k each, zero flux on every
// prescribed face:
//  - every pressure patch beyond the first on one boundary surface: how the flow splits between
//    outlets (h_k carries a unit flux from the surface's first patch to patch k);
//  - every handle of the surface (a duct with a hole, a cylinder through a channel): the
//    non-tree links left after a primal spanning tree of the surface's vertices through the
//    non-tree links (2 per handle; h_k is 1 on that link, the tree closes it).
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "mesh/load_mesh.hpp"
#include "multigrid/auxiliary_space_setup.hpp"
#include "operators/sparse_matrix.hpp"
#include "problems/flow_problem.hpp"

namespace ss {

struct StreamfunctionBoundary {
  std::int32_t num_edges = 0;
  std::vector<double> free_edge_mask;  // per edge: 1 free unknown, 0 fixed (an edge of a prescribed face)

  // The dual tree: nodes 0 .. prescribed-1 are the prescribed boundary faces (face id in
  // node_face), the rest the pressure patches. Per node, in breadth-first order from its root:
  // the link to its parent (-1 at a root), the parent, and the link's sign in the node and in
  // the parent (the edge's orientation along that face's cycle).
  std::vector<std::int32_t> node_face;  // prescribed nodes only
  std::vector<std::int32_t> order;      // nodes, roots first, breadth-first
  std::vector<std::int32_t> parent_edge, parent, component;
  std::vector<std::int8_t> sign_in_node, sign_in_parent;
  std::vector<bool> component_closed;                       // no pressure patch: Σ U_b must vanish
  std::vector<std::vector<std::int32_t>> component_groups;  // condition indices on it (messages)
  std::vector<std::string> condition_labels;

  struct Generator {  // a non-tree link that carries harmonic flux
    std::int32_t edge = 0, node0 = 0, node1 = 0;
    std::int8_t sign0 = 0, sign1 = 0;
  };
  std::vector<Generator> generators;
  std::vector<std::int32_t> extra_patches;  // patch nodes beyond the first of their surface

  // The harmonic basis (fixed-edge values, 0 on free edges) and what each one is.
  std::vector<std::vector<double>> harmonic;
  std::vector<std::string> harmonic_labels;
};

// Throws ss::Error when the boundary is not a 2-manifold (an edge with other than two boundary faces).
StreamfunctionBoundary build_streamfunction_boundary(const LoadedMesh& mesh, const FlowProblem& problem);

// Fixed-edge values whose surface curl is the prescribed flux of every prescribed face (`face_flux`:
// one value per mesh face, read on prescribed boundary faces); 0 on free edges. Closed surfaces
// whose fluxes do not balance to within `balance_tolerance` of Σ|U_b| are an ss::Error.
std::vector<double> streamfunction_lift(const StreamfunctionBoundary& b, const std::vector<double>& face_flux,
                                        double balance_tolerance = 1e-3);

// The gradients that the streamfunction operator cannot see (C G = 0, so E Cᵀ m A m C E G φ = 0):
// node potentials φ that vanish on every node of a fixed edge, so that G φ vanishes on every fixed
// edge. `gradient` (edges × nodes) is (G φ)_e = φ[n1] − φ[n0] for edge_nodes[e] = {n0, n1}, with no
// entries in the columns of nodes on a fixed edge (their potential is 0); `degree` the edges per
// node (0 on a fixed edge's nodes). One column per node, so that over MPI ranks the potentials have
// the node halo. When the fixed edges form one connected set (a duct's walls, a channel whose
// obstacle meets its walls), the range is the operator's whole kernel among node gradients (φ may
// be any constant on the set: subtract it); with k sets, k − 1 directions of it are left out (a
// potential per set would be one row per set's nodes, too long for the GPU's sparse rows). Used by
// the grad–div gauge.
struct StreamfunctionKernel {
  SparseMatrix gradient;
  std::vector<double> degree;
};
StreamfunctionKernel streamfunction_kernel(const Topology& t, const std::vector<double>& free_edge_mask);

// What the exact method needs of the boundary on the mesh it runs on: the whole mesh serially, a
// rank's piece over MPI ranks (distributed/distributed_streamfunction.hpp).
struct StreamfunctionSetup {
  // free_edge_mask, harmonic and harmonic_labels on the mesh's edges (serially the tree too).
  StreamfunctionBoundary boundary;
  // The fixed-edge values whose surface curl is the prescribed flux of every prescribed face
  // (`face_flux`: one value per face of the mesh): streamfunction_lift (over ranks: collective).
  std::function<std::vector<double>(const std::vector<double>& face_flux)> lift;
  // Per-edge and per-node values made on a piece are right on its owned entries; these bring the
  // ghosts' from their owners (serially: nothing to do).
  std::function<void(std::vector<double>&)> complete_edges, complete_nodes;
  // 1 on the edges this rank owns, 0 on its ghost edges (serially every edge is owned).
  std::vector<double> owned_edge_mask;
  // Over MPI ranks: the auxiliary-space preconditioner's node spaces of the whole mesh, from every
  // rank's parts on its piece, with this piece's rows of G and Π (distributed/whole_node_spaces.hpp;
  // collective). Serially null: whole_node_spaces of the parts themselves.
  std::function<WholeNodeSpaces(const NodeSpaceParts&)> whole_node_spaces;
};
StreamfunctionSetup serial_streamfunction_setup(const LoadedMesh& mesh, const FlowProblem& problem);

}  // namespace ss
