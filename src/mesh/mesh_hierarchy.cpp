#include "mesh/mesh_hierarchy.hpp"

#include <chrono>

#include "mesh/read_mesh.hpp"
#include "mesh/refine.hpp"
#include "util/error.hpp"

namespace ss {
namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Renumbers (when asked), builds topology and geometry: the tail of load_mesh's pipeline. `report`
// carries on to the next level (the renumbering and refinement times add up; topology and
// geometry are each level's own).
void finish_level(TetMesh mesh, const LoadOptions& options, bool renumber, int level, LoadReport& report,
                  LoadedMesh& out) {
  using clock = std::chrono::steady_clock;
  report.refine_levels = level;
  if (renumber) {
    auto t0 = clock::now();
    report.renumber = renumber_for_locality(mesh);
    report.renumbered = true;
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
}

}  // namespace

LevelMap refinement_map(const Topology& topo, RefineNumbering numbering) {
  // Fine node f lies at the midpoint of coarse nodes parents[f] (a coarse node: both the same).
  const std::vector<std::int32_t> fine_id = refined_node_ids(topo, numbering);
  LevelMap map;
  map.coarse_nodes = topo.num_nodes;
  map.fine_nodes = topo.num_nodes + topo.num_edges;
  map.parents.resize(size_t(map.fine_nodes));
  for (std::int32_t i = 0; i < topo.num_nodes; ++i) map.parents[size_t(fine_id[size_t(i)])] = {i, i};
  for (std::int32_t e = 0; e < topo.num_edges; ++e)
    map.parents[size_t(fine_id[size_t(topo.num_nodes + e)])] = topo.edge_nodes[size_t(e)];
  return map;
}

MeshHierarchy prepare_mesh_hierarchy(TetMesh mesh, const LoadOptions& options) {
  SS_REQUIRE(options.refine >= 0, mesh.source << ": refinement level must be >= 0, got " << options.refine);
  require_refinable(mesh, options.refine);
  make_periodic(mesh, options.periodic);
  if (!options.surfaces.empty()) attach_boundary_surfaces(mesh, options.surfaces);
  LoadReport report;
  report.file_nodes = std::int64_t(mesh.nodes.size());
  report.file_tets = std::int64_t(mesh.tets.size());
  auto t0 = std::chrono::steady_clock::now();
  report.reoriented_tets = validate_and_orient_tets(mesh);
  report.validate_seconds = seconds_since(t0);
  if (options.refine > 0) {
    // Face errors are reported with the file's ids, before renumbering and refinement (as load_mesh).
    t0 = std::chrono::steady_clock::now();
    build_topology(mesh, TopologyTables::boundary);
    report.refine_seconds = seconds_since(t0);
  }

  // Level 0 is renumbered (RCM, when asked); each finer level is refined from the one below with
  // its topology, numbered in the coarse order (no renumbering), as load_mesh does.
  MeshHierarchy h;
  h.levels.resize(size_t(options.refine) + 1);
  finish_level(std::move(mesh), options, options.renumber, 0, report, h.levels[0]);
  const RefineNumbering numbering = options.renumber ? RefineNumbering::interleaved : RefineNumbering::coarse_first;
  for (int level = 1; level <= options.refine; ++level) {
    const LoadedMesh& coarse = h.levels[size_t(level) - 1];
    const Topology& topo = coarse.topology;
    t0 = std::chrono::steady_clock::now();
    TetMesh fine = refine_once(coarse.mesh, topo, numbering);
    report.refine_seconds += seconds_since(t0);
    h.maps.push_back(refinement_map(topo, numbering));
    finish_level(std::move(fine), options, false, level, report, h.levels[size_t(level)]);
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
