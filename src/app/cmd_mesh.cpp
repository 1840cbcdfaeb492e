// `streamsolve mesh-info FILE` and `streamsolve convert IN OUT.vtu`.
#include <cstdio>
#include <iostream>
#include <map>

#include <nlohmann/json.hpp>

#include "app/commands.hpp"
#include "mesh/load_mesh.hpp"
#include "mesh/vtu.hpp"
#include "util/atomic_file.hpp"
#include "util/error.hpp"

namespace ss {
namespace {

// Estimated bytes each solver uploads to the GPU: float32 fields plus int32 connectivity textures,
// texture padding ignored (the tight layout keeps it under 0.1 %).
//  heat (node-based, thesis §6.1): per node 9 floats (T, T_old, rhs, diag, CG x r z p q) + dual volume
//    + boundary dual area (3); per cell 4 node ids + 18 floats of dual-face vectors + volume;
//    node -> (cell, local node) CSR for the gather: N+1 offsets + 2 x 4C entries.
//  flow (staggered fractional step): per face 6 floats (u_n, u_n*, u_n old, flux, rhs, area) +
//    unit normal (3) + face->cells (2) + face->edges (3) + their signs (3); per cell 8 floats
//    (p, rhs, diag, CG r z p q, volume) + cell->faces (4) + signs (4); per edge 3 floats (vorticity,
//    length, rhs) + edge->faces CSR (E+1 + 3F); per node 3 floats (interpolated velocity).
struct GpuEstimate {
  std::int64_t heat = 0, flow = 0;
};

GpuEstimate estimate_gpu_bytes(const Topology& t) {
  const std::int64_t n = t.num_nodes, c = t.num_cells, f = t.mesh_faces, e = t.num_edges;
  GpuEstimate g;
  g.heat = 4 * (n * (9 + 1 + 3) + c * (4 + 18 + 1) + (n + 1) + 8 * c);
  g.flow = 4 * (f * (6 + 3 + 2 + 3 + 3) + c * (8 + 4 + 4) + e * 3 + (e + 1) + 3 * f + n * 3);
  return g;
}

std::string mib(std::int64_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f MiB", bytes / (1024.0 * 1024.0));
  return buf;
}

nlohmann::json vec_json(const glm::dvec3& v) { return {v.x, v.y, v.z}; }

struct MeshInfoOptions {
  std::string file;
  int refine = 0;
  bool renumber = true;
  std::string json;
};

void run_mesh_info(const MeshInfoOptions& o) {
  const LoadedMesh m = load_mesh(o.file, LoadOptions{o.refine, o.renumber, TopologyTables::boundary});
  const Topology& t = m.topology;
  const Geometry& g = m.geometry;
  const MeshQuality& q = g.quality;
  std::map<std::int32_t, std::int64_t> faces_per_group, tets_per_group;
  for (std::int32_t f : t.boundary_faces) ++faces_per_group[t.face_groups[f]];
  for (std::int32_t id : m.mesh.tet_groups) ++tets_per_group[id];
  const std::int64_t euler = std::int64_t(t.num_nodes) - t.num_edges + t.mesh_faces - t.num_cells;
  const GpuEstimate gpu = estimate_gpu_bytes(t);

  std::printf("mesh                 %s%s\n", o.file.c_str(),
              o.refine ? (" (refined " + std::to_string(o.refine) + "x, file: " + std::to_string(m.report.file_nodes) +
                          " nodes, " + std::to_string(m.report.file_tets) + " tets)").c_str()
                       : "");
  std::printf("nodes                %d\ntets                 %d\n", t.num_nodes, t.num_cells);
  std::printf("faces                %lld (%zu boundary)\nedges                %d\n", static_cast<long long>(t.mesh_faces),
              t.boundary_faces.size(), t.num_edges);
  std::printf("euler characteristic %lld (V - E + F - C; 1 for a ball)\n", static_cast<long long>(euler));
  std::printf("volume               %.10g\n", g.total_volume);
  std::printf("bounding box         [%g, %g, %g] - [%g, %g, %g]\n", g.bbox_min.x, g.bbox_min.y, g.bbox_min.z,
              g.bbox_max.x, g.bbox_max.y, g.bbox_max.z);
  std::printf("dihedral angles      %.3f - %.3f deg\n", q.min_dihedral_deg, q.max_dihedral_deg);
  std::printf("aspect ratio         max %.4g (tet %d; 1 = regular tet)\n", q.max_aspect_ratio, q.worst_aspect_tet);
  std::printf("edge length          %.4g - %.4g\ntet volume           %.4g - %.4g\n", q.min_edge_length,
              q.max_edge_length, q.min_volume, q.max_volume);
  std::printf("reoriented tets      %lld\n", static_cast<long long>(m.report.reoriented_tets));
  const RenumberReport& rn = m.report.renumber;
  // Renumbering runs on the file's mesh; refined levels follow its order (RefineNumbering::interleaved).
  const GraphBandwidth final_bandwidth = node_graph_bandwidth(t.node_offsets, t.node_neighbors);
  if (m.report.renumbered && o.refine == 0)
    std::printf("node bandwidth       %lld -> %lld after renumbering (profile %lld -> %lld)\n",
                static_cast<long long>(rn.before.bandwidth), static_cast<long long>(rn.after.bandwidth),
                static_cast<long long>(rn.before.profile), static_cast<long long>(rn.after.profile));
  else if (m.report.renumbered)
    std::printf("node bandwidth       %lld (profile %lld); the file's mesh %lld -> %lld after renumbering, refined in its order\n",
                static_cast<long long>(final_bandwidth.bandwidth), static_cast<long long>(final_bandwidth.profile),
                static_cast<long long>(rn.before.bandwidth), static_cast<long long>(rn.after.bandwidth));
  else
    std::printf("node bandwidth       %lld, not renumbered (--no-renumber)\n", static_cast<long long>(final_bandwidth.bandwidth));
  std::printf("boundary groups      (id, name, faces)\n");
  for (auto [id, count] : faces_per_group)
    std::printf("  %6d  %-20s %lld\n", id, surface_group_label(m.mesh, id).c_str(), static_cast<long long>(count));
  std::printf("volume groups        (id, name, tets)\n");
  for (auto [id, count] : tets_per_group)
    std::printf("  %6d  %-20s %lld\n", id, id ? volume_group_label(m.mesh, id).c_str() : "(none)",
                static_cast<long long>(count));
  std::printf("GPU memory estimate  heat %s, flow %s (float32 fields + int32 connectivity textures)\n",
              mib(gpu.heat).c_str(), mib(gpu.flow).c_str());
  const LoadReport& r = m.report;
  std::printf("time                 read %.3f s, validate %.3f s, refine %.3f s, renumber %.3f s, topology %.3f s, "
              "geometry %.3f s\n",
              r.read_seconds, r.validate_seconds, r.refine_seconds, r.renumber_seconds, r.topology_seconds,
              r.geometry_seconds);

  if (!o.json.empty()) {
    nlohmann::json j;
    j["source"] = o.file;
    j["refine"] = o.refine;
    j["nodes"] = t.num_nodes;
    j["tets"] = t.num_cells;
    j["faces"] = t.mesh_faces;
    j["edges"] = t.num_edges;
    j["boundary_faces"] = t.boundary_faces.size();
    j["euler_characteristic"] = euler;
    j["volume"] = g.total_volume;
    j["bbox"] = {{"min", vec_json(g.bbox_min)}, {"max", vec_json(g.bbox_max)}};
    j["groups"] = nlohmann::json::array();
    for (auto [id, count] : faces_per_group)
      j["groups"].push_back({{"name", surface_group_label(m.mesh, id)}, {"id", id}, {"faces", count}});
    j["volume_groups"] = nlohmann::json::array();
    for (auto [id, count] : tets_per_group)
      j["volume_groups"].push_back({{"name", id ? volume_group_label(m.mesh, id) : ""}, {"id", id}, {"tets", count}});
    j["reoriented_tets"] = r.reoriented_tets;
    j["renumbered"] = r.renumbered;
    // before/after: the file's mesh, renumbered; final: the loaded (refined) mesh.
    j["node_bandwidth"] = {{"final", final_bandwidth.bandwidth}, {"profile_final", final_bandwidth.profile}};
    if (r.renumbered) {
      j["node_bandwidth"]["before"] = rn.before.bandwidth;
      j["node_bandwidth"]["after"] = rn.after.bandwidth;
      j["node_bandwidth"]["profile_before"] = rn.before.profile;
      j["node_bandwidth"]["profile_after"] = rn.after.profile;
    }
    j["quality"] = {{"min_dihedral_deg", q.min_dihedral_deg}, {"max_dihedral_deg", q.max_dihedral_deg},
                    {"max_aspect_ratio", q.max_aspect_ratio}, {"worst_aspect_tet", q.worst_aspect_tet},
                    {"min_edge_length", q.min_edge_length}, {"max_edge_length", q.max_edge_length},
                    {"min_volume", q.min_volume}, {"max_volume", q.max_volume}};
    j["gpu_memory_bytes"] = {{"heat", gpu.heat}, {"flow", gpu.flow}};
    j["seconds"] = {{"read", r.read_seconds}, {"validate", r.validate_seconds}, {"refine", r.refine_seconds}, {"renumber", r.renumber_seconds},
                    {"topology", r.topology_seconds}, {"geometry", r.geometry_seconds}};
    write_file_atomically(o.json, j.dump(2) + "\n");
  }
}

struct ConvertOptions {
  std::string in, out;
  int refine = 0;
  bool renumber = true;
  std::string encoding = "compressed";
};

// Tets plus every grouped face (the boundary, and interior faces the file lists) as triangles; a
// `group` cell array holds the volume group on tets and the surface group on triangles.
void run_convert(const ConvertOptions& o) {
  const VtuEncoding encoding = parse_vtu_encoding(o.encoding);
  LoadedMesh m = load_mesh(o.in, LoadOptions{o.refine, o.renumber, TopologyTables::boundary});
  const Topology& t = m.topology;
  TetMesh& out = m.mesh;
  out.boundary_triangles.clear();
  out.triangle_groups.clear();
  for (std::int32_t f = 0; f < t.num_faces; ++f)
    if (t.face_groups[f] != 0) {
      out.boundary_triangles.push_back(t.face_nodes[f]);  // outward on the boundary
      out.triangle_groups.push_back(t.face_groups[f]);
    }
  std::vector<std::int32_t> groups(out.tet_groups);
  groups.resize(out.tets.size(), 0);
  groups.insert(groups.end(), out.triangle_groups.begin(), out.triangle_groups.end());
  write_vtu(o.out, out, {}, {VtuArray::integers("group", std::move(groups))}, {encoding, true});
  std::printf("wrote %s: %zu nodes, %zu tets, %zu triangles\n", o.out.c_str(), out.nodes.size(), out.tets.size(),
              out.boundary_triangles.size());
}

}  // namespace

void add_mesh_commands(CLI::App& app) {
  auto info = std::make_shared<MeshInfoOptions>();
  CLI::App* cmd = app.add_subcommand("mesh-info", "read a mesh, validate it and print counts, groups and quality");
  cmd->add_option("file", info->file, "mesh file (Gmsh .msh 2.2/4.1, Netgen .vol)")->required()->check(CLI::ExistingFile);
  cmd->add_option("--refine", info->refine, "refine uniformly K times first (tets x 8^K)")->check(CLI::Range(0, 8));
  cmd->add_flag("--renumber,!--no-renumber", info->renumber,
                "renumber nodes (reverse Cuthill-McKee) and tets for locality (default on)");
  cmd->add_option("--json", info->json, "also write the figures as JSON to this file");
  cmd->callback([info] { run_mesh_info(*info); });

  auto conv = std::make_shared<ConvertOptions>();
  CLI::App* c = app.add_subcommand("convert", "convert a mesh to VTU (tets + grouped boundary triangles)");
  c->add_option("input", conv->in, "mesh file")->required()->check(CLI::ExistingFile);
  c->add_option("output", conv->out, "output .vtu file")->required();
  c->add_option("--refine", conv->refine, "refine uniformly K times first")->check(CLI::Range(0, 8));
  c->add_option("--encoding", conv->encoding, "ascii, binary, compressed (default) or raw");
  c->add_flag("--renumber,!--no-renumber", conv->renumber, "renumber for locality (default on)");
  c->callback([conv] { run_convert(*conv); });
}

}  // namespace ss
