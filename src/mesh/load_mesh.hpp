#pragma once
// The loading pipeline every command uses: read, validate, orient, refine, connect, measure.
#include <cstdint>
#include <string>
#include <vector>

#include "mesh/geometry.hpp"
#include "mesh/periodic.hpp"
#include "mesh/renumber.hpp"
#include "mesh/tet_mesh.hpp"
#include "mesh/topology.hpp"

namespace ss {

struct LoadReport {
  std::int64_t reoriented_tets = 0;  // negatively oriented tets in the file (nodes 2 and 3 swapped)
  int refine_levels = 0;
  std::int64_t file_nodes = 0, file_tets = 0;  // before refinement
  bool renumbered = false;
  RenumberReport renumber;  // node-graph bandwidth before/after (zeros when not renumbered)
  double read_seconds = 0, validate_seconds = 0, refine_seconds = 0, renumber_seconds = 0, topology_seconds = 0,
         geometry_seconds = 0;
};

struct LoadOptions {
  int refine = 0;        // uniform refinement levels (tets x 8^refine)
  bool renumber = true;  // renumber_for_locality() after refinement (RCM nodes, tets by min node)
  // The finest level's tables (TopologyTables::boundary for node-based heat and mesh-info: ~1/3 of
  // the memory); coarser levels of a hierarchy get the same.
  TopologyTables tables = TopologyTables::all;
  // Only the cells' volumes and centroids (cell_volumes_and_centroids), no face, edge or node
  // geometry: a level the GPU refines (heat --finest-level gpu) needs no more; ~250 bytes per tet
  // fewer with TopologyTables::all.
  bool cell_geometry_only = false;
  // The boundary surfaces refinement projects onto (a case file's [[mesh.surface]]), attached to the
  // mesh before it is refined (attach_boundary_surfaces: an unknown group is an error). Empty: the
  // mesh keeps the surfaces it has.
  std::vector<BoundarySurface> surfaces{};
  // Periodic pairs of boundary groups (a case file's [[mesh.periodic]]), joined before anything else
  // (make_periodic). Empty: none.
  std::vector<PeriodicPair> periodic{};
};

struct LoadedMesh {
  TetMesh mesh;  // oriented and refined; an `unassigned` group name added when topology needs it
  Topology topology;
  Geometry geometry;
  LoadReport report;
};

// read_mesh(path), then prepare_mesh(). Throws ss::Error naming the file and entity for repeated
// nodes, zero-volume tets, faces shared by more than two tets, overlapping tets, and file
// triangles that are no tet face (checks run on the file's mesh, before refinement).
// Order: read, validate + orient, renumber (RCM, the file's mesh), refine (each level numbered in
// the coarse order, RefineNumbering::interleaved), topology, geometry. Renumbering permutes node,
// tet and triangle ids (and their file tags with them); set renumber = false to keep the file's
// order (refined nodes then follow RefineNumbering::coarse_first).
LoadedMesh load_mesh(const std::string& path, const LoadOptions& options = {});
LoadedMesh load_mesh(const std::string& path, int refine);  // default options otherwise

// The same pipeline for a mesh already in memory.
LoadedMesh prepare_mesh(TetMesh mesh, const LoadOptions& options = {});
LoadedMesh prepare_mesh(TetMesh mesh, int refine);

// A periodic mesh unfolded (unfold_periodic) and prepared as a mesh of its own, with every table and
// without renumbering: what pictures draw (a seam's faces are boundary faces there). `point_node`:
// the node of each of its nodes.
LoadedMesh prepare_unfolded(const TetMesh& periodic, std::vector<NodeId>& point_node);

// Frees the tables a solver's assembly reads and its outputs do not: the edge, node-graph and
// per-cell connectivity tables and the cell centroids and dual volumes. Kept: the mesh, the face
// rows (boundary faces with their nodes and groups: pictures), the counts and the cell volumes.
// For a big run once its operators are assembled (crankshaft refine 5: ~3.5 GB).
void release_assembly_tables(LoadedMesh& mesh);

}  // namespace ss
