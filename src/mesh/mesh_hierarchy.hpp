#pragma once
// The nested meshes of a uniform refinement, for geometric multigrid: level l is the mesh
// `load_mesh(path, {refine = l, renumber})` gives (same nodes, same numbering, same topology and
// geometry), for l = 0 .. K, and between consecutive levels the node map of the refinement.
//
// Level 0 is renumbered (RCM, when asked); each finer level is refined from the one below, its
// nodes numbered in the coarse order (RefineNumbering::interleaved: node v, then the midpoints of
// the edges whose low node is v), as load_mesh numbers them. The map is in the numbering of both
// levels: fine node f lies at the midpoint of coarse nodes parents[f] = {a, b} (a == b: f is the
// coarse node a itself), so P1 prolongation is (P x)_f = (x_a + x_b) / 2 and restriction is its
// transpose. With boundary surfaces (LoadOptions::surfaces) a fine node on one sits a little off its
// parents' midpoint; the map stays the midpoint's (the transfers need only be close to P1).
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "mesh/load_mesh.hpp"
#include "mesh/refine.hpp"

namespace ss {

struct LevelMap {
  std::int32_t coarse_nodes = 0, fine_nodes = 0;
  std::vector<std::array<std::int32_t, 2>> parents;  // per fine node
};

struct MeshHierarchy {
  std::vector<LoadedMesh> levels;  // 0 = the file's mesh, back() = the finest (refine K)
  std::vector<LevelMap> maps;      // maps[l]: level l -> level l + 1
  const LoadedMesh& finest() const { return levels.back(); }
};

// The node map of one refinement of a mesh with topology `coarse` (refined_node_ids' numbering).
LevelMap refinement_map(const Topology& coarse, RefineNumbering numbering);

// The pipeline of load_mesh (read, validate + orient, refine, renumber, topology, geometry), keeping
// every level. levels.back() equals load_mesh(path, options).
MeshHierarchy load_mesh_hierarchy(const std::string& path, const LoadOptions& options);
MeshHierarchy prepare_mesh_hierarchy(TetMesh mesh, const LoadOptions& options);

}  // namespace ss
