#include "mesh/mesh_hierarchy.hpp"

#include <chrono>
#include <numeric>

#include "mesh/read_mesh.hpp"
#include "mesh/refine.hpp"
#include "util/error.hpp"

namespace ss {
namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Renumbers (when asked), builds topology and geometry: the tail of load_mesh's pipeline. Returns
// new_id[old node] (identity without renumbering).
std::vector<std::int32_t> finish_level(TetMesh mesh, const LoadOptions& options, int level, LoadReport report,
                                       LoadedMesh& out) {
  using clock = std::chrono::steady_clock;
  const std::int32_t nn = std::int32_t(mesh.nodes.size());
  std::vector<std::int32_t> new_id(static_cast<size_t>(nn));
  std::iota(new_id.begin(), new_id.end(), 0);
  report.refine_levels = level;
  if (options.renumber) {
    auto t0 = clock::now();
    // The permutation rides along in the node tags (renumbering permutes them with the nodes).
    std::vector<std::int64_t> file_tags = std::move(mesh.node_tags);
    mesh.node_tags.resize(size_t(nn));
    std::iota(mesh.node_tags.begin(), mesh.node_tags.end(), std::int64_t(0));
    report.renumber = renumber_for_locality(mesh);
    report.renumbered = true;
    for (std::int32_t i = 0; i < nn; ++i) new_id[size_t(mesh.node_tags[size_t(i)])] = i;
    if (file_tags.size() == size_t(nn)) {  // the file's tags to the nodes' new places
      for (std::int32_t i = 0; i < nn; ++i) mesh.node_tags[size_t(i)] = file_tags[size_t(mesh.node_tags[size_t(i)])];
    } else {
      mesh.node_tags.clear();
    }
    report.renumber_seconds = seconds_since(t0);
  }
  auto t0 = clock::now();
  out.topology = build_topology(mesh, options.tables);
  if (out.topology.unassigned_group != 0) mesh.surface_group_names[out.topology.unassigned_group] = "unassigned";
  report.topology_seconds = seconds_since(t0);
  t0 = clock::now();
  out.geometry = compute_geometry(mesh, out.topology);
  report.geometry_seconds = seconds_since(t0);
  out.mesh = std::move(mesh);
  out.report = report;
  return new_id;
}

}  // namespace

MeshHierarchy prepare_mesh_hierarchy(TetMesh mesh, const LoadOptions& options) {
  SS_REQUIRE(options.refine >= 0, mesh.source << ": refinement level must be >= 0, got " << options.refine);
  require_refinable(mesh, options.refine);
  LoadReport report;
  report.file_nodes = std::int64_t(mesh.nodes.size());
  report.file_tets = std::int64_t(mesh.tets.size());
  auto t0 = std::chrono::steady_clock::now();
  report.reoriented_tets = validate_and_orient_tets(mesh);
  report.validate_seconds = seconds_since(t0);

  MeshHierarchy h;
  h.levels.resize(size_t(options.refine) + 1);
  std::vector<std::int32_t> coarse_new_id;
  TetMesh current = std::move(mesh);
  for (int level = 0; level <= options.refine; ++level) {
    TetMesh next;
    Topology coarse_topology;  // of `current` in its unrenumbered order: edge e -> new node nn + e
    if (level < options.refine) {
      t0 = std::chrono::steady_clock::now();
      // Level 0 checks the faces and reports errors with the file's ids; the others need edges only.
      coarse_topology = build_topology(current, level == 0 ? TopologyTables::boundary : TopologyTables::edges);
      next = refine_once(current, coarse_topology);
      report.refine_seconds += seconds_since(t0);
    }
    const std::vector<std::int32_t> new_id = finish_level(std::move(current), options, level, report, h.levels[size_t(level)]);
    if (level < options.refine) {
      // Map from this level (coarse) to the next one, in unrenumbered fine ids for now.
      LevelMap map;
      map.coarse_nodes = coarse_topology.num_nodes;
      map.fine_nodes = coarse_topology.num_nodes + coarse_topology.num_edges;
      map.parents.resize(size_t(map.fine_nodes));
      for (std::int32_t i = 0; i < coarse_topology.num_nodes; ++i) map.parents[size_t(i)] = {new_id[size_t(i)], new_id[size_t(i)]};
      for (std::int32_t e = 0; e < coarse_topology.num_edges; ++e)
        map.parents[size_t(coarse_topology.num_nodes + e)] = {new_id[size_t(coarse_topology.edge_nodes[size_t(e)][0])],
                                                              new_id[size_t(coarse_topology.edge_nodes[size_t(e)][1])]};
      h.maps.push_back(std::move(map));
    }
    if (level > 0) {
      // The fine ids of the previous map were unrenumbered: move each entry to its final place.
      LevelMap& map = h.maps[size_t(level) - 1];
      std::vector<std::array<std::int32_t, 2>> placed(map.parents.size());
      for (size_t f = 0; f < map.parents.size(); ++f) placed[size_t(new_id[f])] = map.parents[f];
      map.parents = std::move(placed);
    }
    current = std::move(next);
  }
  return h;
}

MeshHierarchy load_mesh_hierarchy(const std::string& path, const LoadOptions& options) {
  auto t0 = std::chrono::steady_clock::now();
  TetMesh mesh = read_mesh(path);
  const double read = seconds_since(t0);
  MeshHierarchy h = prepare_mesh_hierarchy(std::move(mesh), options);
  for (LoadedMesh& l : h.levels) l.report.read_seconds = read;
  return h;
}

}  // namespace ss
