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

LoadedMesh prepare(TetMesh mesh, int refine, LoadReport report) {
  using clock = std::chrono::steady_clock;
  SS_REQUIRE(refine >= 0, mesh.source << ": refinement level must be >= 0, got " << refine);
  LoadedMesh out;
  report.refine_levels = refine;
  report.file_nodes = static_cast<std::int64_t>(mesh.nodes.size());
  report.file_tets = static_cast<std::int64_t>(mesh.tets.size());
  auto t0 = clock::now();
  report.reoriented_tets = validate_and_orient_tets(mesh);
  report.validate_seconds = seconds_since(t0);
  if (refine > 0) {
    t0 = clock::now();
    build_topology(mesh);  // reports face errors with the file's ids, before refinement
    mesh = refine_uniform(mesh, refine);
    report.refine_seconds = seconds_since(t0);
  }
  t0 = clock::now();
  out.topology = build_topology(mesh);
  if (out.topology.unassigned_group != 0) mesh.group_names[out.topology.unassigned_group] = "unassigned";
  report.topology_seconds = seconds_since(t0);
  t0 = clock::now();
  out.geometry = compute_geometry(mesh, out.topology);
  report.geometry_seconds = seconds_since(t0);
  out.mesh = std::move(mesh);
  out.report = report;
  return out;
}

}  // namespace

LoadedMesh load_mesh(const std::string& path, int refine) {
  auto t0 = std::chrono::steady_clock::now();
  TetMesh mesh = read_mesh(path);
  LoadReport report;
  report.read_seconds = seconds_since(t0);
  return prepare(std::move(mesh), refine, report);
}

LoadedMesh prepare_mesh(TetMesh mesh, int refine) { return prepare(std::move(mesh), refine, LoadReport{}); }

}  // namespace ss
