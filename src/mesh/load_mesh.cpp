#include "mesh/load_mesh.hpp"

#include <chrono>

#include "mesh/read_mesh.hpp"
#include "mesh/refine.hpp"
#include "util/error.hpp"

namespace ss {
namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

LoadedMesh prepare(TetMesh mesh, const LoadOptions& options, LoadReport report) {
  const int refine = options.refine;
  using clock = std::chrono::steady_clock;
  SS_REQUIRE(refine >= 0, mesh.source << ": refinement level must be >= 0, got " << refine);
  require_refinable(mesh, refine);
  make_periodic(mesh, options.periodic);
  if (!options.surfaces.empty()) attach_boundary_surfaces(mesh, options.surfaces);
  LoadedMesh out;
  report.refine_levels = refine;
  report.file_nodes = static_cast<std::int64_t>(mesh.nodes.size());
  report.file_tets = static_cast<std::int64_t>(mesh.tets.size());
  auto t0 = clock::now();
  report.reoriented_tets = validate_and_orient_tets(mesh);
  report.validate_seconds = seconds_since(t0);
  // A mesh without file tags is named by 0-based ids in messages; keep the caller's numbering so a
  // topology error after renumbering can be reported in it (file tags are permuted along).
  TetMesh unrenumbered;
  if (refine > 0) {
    // Face errors are reported with the file's ids, before renumbering and refinement.
    t0 = clock::now();
    build_topology(mesh, TopologyTables::boundary);
    report.refine_seconds = seconds_since(t0);
  }
  // Renumbering: RCM on the file's mesh; refinement then numbers each level in the coarse order
  // (RefineNumbering::interleaved), so the refined mesh needs no renumbering of its own.
  if (options.renumber) {
    t0 = clock::now();
    if (refine == 0 && (mesh.tet_tags.empty() || mesh.node_tags.empty())) unrenumbered = mesh;
    report.renumber = renumber_for_locality(mesh);
    report.renumbered = true;
    report.renumber_seconds = seconds_since(t0);
  }
  if (refine > 0) {
    t0 = clock::now();
    const RefineNumbering numbering = options.renumber ? RefineNumbering::interleaved : RefineNumbering::coarse_first;
    for (int level = 0; level < refine; ++level) mesh = refine_once(mesh, build_topology(mesh, TopologyTables::edges), numbering);
    report.refine_seconds += seconds_since(t0);
  }
  t0 = clock::now();
  try {
    out.topology = build_topology(mesh, options.tables);
  } catch (const Error&) {
    if (!unrenumbered.tets.empty()) build_topology(unrenumbered, options.tables);  // throws in the caller's numbering
    throw;
  }
  unrenumbered = TetMesh{};
  if (out.topology.unassigned_group != 0) mesh.surface_group_names[out.topology.unassigned_group] = "unassigned";
  report.topology_seconds = seconds_since(t0);
  t0 = clock::now();
  if (options.cell_geometry_only) cell_volumes_and_centroids(mesh, out.geometry.cell_volumes, out.geometry.cell_centroids);
  else out.geometry = compute_geometry(mesh, out.topology);
  report.geometry_seconds = seconds_since(t0);
  out.mesh = std::move(mesh);
  out.report = report;
  return out;
}

}  // namespace

LoadedMesh load_mesh(const std::string& path, const LoadOptions& options) {
  auto t0 = std::chrono::steady_clock::now();
  TetMesh mesh = read_mesh(path);
  LoadReport report;
  report.read_seconds = seconds_since(t0);
  return prepare(std::move(mesh), options, report);
}

LoadedMesh load_mesh(const std::string& path, int refine) { return load_mesh(path, LoadOptions{refine}); }

LoadedMesh prepare_mesh(TetMesh mesh, const LoadOptions& options) {
  return prepare(std::move(mesh), options, LoadReport{});
}

namespace {
template <class T>
void free_memory(std::vector<T>& v) {
  std::vector<T>().swap(v);  // (v = {} would keep the capacity)
}
}  // namespace

void release_assembly_tables(LoadedMesh& mesh) {
  Topology& t = mesh.topology;
  for (auto* v : {&t.edge_face_offsets, &t.edge_faces, &t.node_offsets, &t.node_neighbors, &t.node_edges,
                  &t.face_offsets_by_min_node, &t.edge_offsets_by_low_node})
    free_memory(*v);
  free_memory(t.edge_nodes);
  free_memory(t.cell_faces);
  free_memory(t.cell_face_signs);
  free_memory(t.cell_edges);
  free_memory(t.face_edges);
  free_memory(t.face_edge_signs);
  Geometry& g = mesh.geometry;
  for (auto* v : {&g.cell_centroids, &g.edge_vectors, &g.dual_face_areas, &g.boundary_dual_areas}) free_memory(*v);
  free_memory(g.dual_volumes);
  free_memory(g.edge_lengths);
}

LoadedMesh prepare_unfolded(const TetMesh& periodic, std::vector<NodeId>& point_node) {
  UnfoldedMesh u = unfold_periodic(periodic);
  point_node = std::move(u.point_node);
  LoadOptions options;
  options.renumber = false;
  return prepare(std::move(u.mesh), options, LoadReport{});
}

LoadedMesh prepare_mesh(TetMesh mesh, int refine) { return prepare_mesh(std::move(mesh), LoadOptions{refine}); }

}  // namespace ss
