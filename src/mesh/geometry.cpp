#include "mesh/geometry.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <omp.h>

#include <glm/geometric.hpp>

#include "mesh/periodic.hpp"
#include "util/error.hpp"
#include "util/ordered_sum.hpp"

namespace ss {
namespace {

using i32 = std::int32_t;

double longest_edge(const glm::dvec3 p[4]) {
  double l2 = 0;
  for (const auto& e : kTetEdgeNodes) {
    const glm::dvec3 d = p[e[1]] - p[e[0]];
    l2 = std::max(l2, glm::dot(d, d));
  }
  return std::sqrt(l2);
}

double signed_volume(const glm::dvec3 p[4]) { return glm::dot(p[1] - p[0], glm::cross(p[2] - p[0], p[3] - p[0])) / 6.0; }

}  // namespace

double signed_tet_volume(const TetMesh& mesh, const Tet& t) {
  const glm::dvec3& p0 = mesh.nodes[t[0]];
  return glm::dot(mesh.nodes[t[1]] - p0, glm::cross(mesh.nodes[t[2]] - p0, mesh.nodes[t[3]] - p0)) / 6.0;
}

std::int64_t validate_and_orient_tets(TetMesh& mesh) {
  const i32 nc = static_cast<i32>(mesh.tets.size());
  const std::int64_t nn = static_cast<std::int64_t>(mesh.nodes.size());
  // 0 = fine, 1 = bad node id, 2 = repeated node, 3 = zero volume; first bad tet reported below.
  i32 first_bad = nc;
  std::int64_t reoriented = 0;
#pragma omp parallel for schedule(static) reduction(min : first_bad) reduction(+ : reoriented)
  for (i32 c = 0; c < nc; ++c) {
    Tet& t = mesh.tets[c];
    bool ok = true;
    for (int i = 0; i < 4; ++i) {
      ok = ok && t[i] >= 0 && t[i] < nn;
      for (int j = 0; j < i; ++j) ok = ok && t[i] != t[j];
    }
    if (!ok) {
      first_bad = std::min(first_bad, c);
      continue;
    }
    glm::dvec3 p[4];
    corner_positions(mesh, size_t(c), p);
    const double v = signed_volume(p);
    const double l = longest_edge(p);
    if (!(std::abs(v) > kZeroVolumeTolerance * l * l * l)) {  // also catches NaN coordinates
      first_bad = std::min(first_bad, c);
      continue;
    }
    if (v < 0) {
      std::swap(t[2], t[3]);
      if (is_periodic(mesh)) std::swap(mesh.corner_shifts[size_t(c)][2], mesh.corner_shifts[size_t(c)][3]);
      ++reoriented;
    }
  }
  if (first_bad < nc) {
    const Tet& t = mesh.tets[first_bad];
    const std::string what = tet_with_nodes(mesh, first_bad);
    for (int i = 0; i < 4; ++i)
      SS_REQUIRE(t[i] >= 0 && t[i] < nn, mesh.source << ": " << what << " refers to node #" << t[i]
                                                     << " (0-based) but there are " << nn << " nodes");
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < i; ++j) SS_REQUIRE(t[i] != t[j], mesh.source << ": " << what << " has a repeated node");
    glm::dvec3 p[4];
    corner_positions(mesh, size_t(first_bad), p);
    const double l = longest_edge(p);
    SS_THROW(mesh.source << ": " << what << " has zero volume (V = " << signed_volume(p)
                         << ", longest edge " << l << ", limit " << kZeroVolumeTolerance << " * L^3)");
  }
  return reoriented;
}

void cell_volumes_and_centroids(const TetMesh& mesh, std::vector<double>& volumes, std::vector<glm::dvec3>& centroids) {
  const std::int64_t nc = std::int64_t(mesh.tets.size());
  volumes.resize(size_t(nc));
  centroids.resize(size_t(nc));
#pragma omp parallel for schedule(static)
  for (std::int64_t c = 0; c < nc; ++c) {
    glm::dvec3 p[4];
    corner_positions(mesh, size_t(c), p);
    volumes[size_t(c)] = signed_volume(p);
    centroids[size_t(c)] = (p[0] + p[1] + p[2] + p[3]) / 4.0;
  }
}

Geometry compute_geometry(const TetMesh& mesh, const Topology& topo) {
  Geometry g;
  const i32 nn = topo.num_nodes, nc = topo.num_cells, nf = topo.num_faces, ne = topo.num_edges;

  if (nn > 0) {
    g.bbox_min = g.bbox_max = mesh.nodes[0];
    for (const auto& p : mesh.nodes) g.bbox_min = glm::min(g.bbox_min, p), g.bbox_max = glm::max(g.bbox_max, p);
  }

  // Face rows: every face, or the boundary and listed ones (TopologyTables::boundary).
  g.face_areas.resize(nf);
  g.face_normals.resize(nf);
  g.face_centroids.resize(nf);
#pragma omp parallel for schedule(static)
  for (i32 f = 0; f < nf; ++f) {
    // On a periodic mesh a face lies where its first cell sees it.
    const auto& p = topo.face_nodes[f];
    const size_t c0 = size_t(topo.face_cells[f][0]);
    const glm::dvec3 a = node_position_in_tet(mesh, c0, p[0]), b = node_position_in_tet(mesh, c0, p[1]),
                     c = node_position_in_tet(mesh, c0, p[2]);
    glm::dvec3 n = 0.5 * glm::cross(b - a, c - a);  // area vector
    double area = glm::length(n);
    g.face_areas[f] = area;
    g.face_normals[f] = area > 0 ? n / area : glm::dvec3(0.0);
    g.face_centroids[f] = (a + b + c) / 3.0;
  }

  // Per-edge and per-(cell, edge) tables only for the full set (the mesh operators, tests); the
  // heat assembly computes its dual faces cell by cell (tet_dual_face_areas).
  const bool all = topo.tables == TopologyTables::all;
  if (all) {
    g.edge_vectors.resize(ne);
    g.edge_lengths.resize(ne);
#pragma omp parallel for schedule(static)
    for (i32 e = 0; e < ne; ++e) g.edge_vectors[e] = mesh.nodes[topo.edge_nodes[e][1]] - mesh.nodes[topo.edge_nodes[e][0]];
    if (is_periodic(mesh))  // an edge across a seam: as a tet that holds it sees it
      for (i32 c = 0; c < nc; ++c)
        for (int k = 0; k < 6; ++k) {
          const int i = kTetEdgeNodes[k][0], j = kTetEdgeNodes[k][1];
          const glm::dvec3 d = tet_edge_vector(mesh, size_t(c), i, j);
          g.edge_vectors[size_t(topo.cell_edges[size_t(c)][size_t(k)])] = mesh.tets[size_t(c)][size_t(i)] < mesh.tets[size_t(c)][size_t(j)] ? d : -d;
        }
#pragma omp parallel for schedule(static)
    for (i32 e = 0; e < ne; ++e) g.edge_lengths[e] = glm::length(g.edge_vectors[e]);
    g.dual_face_areas.resize(static_cast<size_t>(nc) * 6);
  }

  g.cell_volumes.resize(nc);
  g.cell_centroids.resize(nc);
  // Dihedral extremes tracked as cosines (acos is monotone decreasing), converted once at the end.
  double max_cos = -1, min_cos = 1, min_edge2 = std::numeric_limits<double>::max(), max_edge2 = 0;
  double min_vol = std::numeric_limits<double>::max(), max_vol = 0;
  // Worst aspect ratio and its (first) tet, per thread, merged below.
  struct Worst {
    double aspect = -1;
    i32 tet = -1;
  };
  std::vector<Worst> worst(static_cast<std::size_t>(omp_get_max_threads()));
#pragma omp parallel for schedule(static) reduction(min : min_cos, min_vol, min_edge2) \
    reduction(max : max_cos, max_vol, max_edge2)
  for (i32 c = 0; c < nc; ++c) {
    const Tet& t = mesh.tets[c];
    glm::dvec3 p[4];
    corner_positions(mesh, size_t(c), p);
    const double v = signed_volume(p);
    g.cell_volumes[c] = v;
    g.cell_centroids[c] = (p[0] + p[1] + p[2] + p[3]) / 4.0;
    min_vol = std::min(min_vol, v);
    max_vol = std::max(max_vol, v);
    // Outward area vectors of the four faces.
    glm::dvec3 n[4];
    double area[4], inv_area[4], area_sum = 0;
    for (int k = 0; k < 4; ++k) {
      const auto& fn = kTetFaceNodes[k];
      n[k] = 0.5 * glm::cross(p[fn[1]] - p[fn[0]], p[fn[2]] - p[fn[0]]);
      area[k] = glm::length(n[k]);
      inv_area[k] = 1.0 / area[k];
      area_sum += area[k];
    }
    double lmax2 = 0;
    for (int k = 0; k < 6; ++k) {
      const int i = kTetEdgeNodes[k][0], j = kTetEdgeNodes[k][1];
      const int oc = kTetEdgeOthers[k][0], od = kTetEdgeOthers[k][1];
      const glm::dvec3 d = p[j] - p[i];
      const double l2 = glm::dot(d, d);
      lmax2 = std::max(lmax2, l2);
      min_edge2 = std::min(min_edge2, l2);
      max_edge2 = std::max(max_edge2, l2);
      // Dihedral angle at edge (i, j) between the faces opposite oc and od: pi - angle(n_oc, n_od).
      const double cosang = -glm::dot(n[oc], n[od]) * (inv_area[oc] * inv_area[od]);
      min_cos = std::min(min_cos, cosang);
      max_cos = std::max(max_cos, cosang);
    }
    if (all) tet_dual_face_areas(p, t, &g.dual_face_areas[static_cast<size_t>(c) * 6]);
    const double inradius = 3.0 * v / area_sum;
    const double aspect = std::sqrt(lmax2) / (2.0 * std::sqrt(6.0) * inradius);
    Worst& w = worst[static_cast<std::size_t>(omp_get_thread_num())];
    if (aspect > w.aspect) w = {aspect, c};  // ascending c within a thread: keeps the first
  }
  g.total_volume = ordered_sum(g.cell_volumes);  // the same sum for any number of threads

  g.dual_volumes.assign(nn, 0.0);
  for (i32 c = 0; c < nc; ++c)
    for (NodeId n : mesh.tets[c]) g.dual_volumes[n] += 0.25 * g.cell_volumes[c];

  if (is_periodic(mesh)) {
    // The jump of each interior face: where its second cell sees it minus where its first does.
    g.face_jumps.assign(size_t(nf), glm::dvec3(0.0));
#pragma omp parallel for schedule(static)
    for (i32 f = 0; f < nf; ++f) {
      const i32 c1 = topo.face_cells[f][1];
      if (c1 < 0) continue;
      g.face_jumps[size_t(f)] = node_jump(mesh, size_t(topo.face_cells[f][0]), size_t(c1), topo.face_nodes[f][0]);
    }
  }

  g.boundary_dual_areas.assign(nn, glm::dvec3(0.0));
  for (i32 f : topo.boundary_faces) {
    const glm::dvec3 share = g.face_normals[f] * (g.face_areas[f] / 3.0);
    for (i32 n : topo.face_nodes[f]) g.boundary_dual_areas[n] += share;
  }

  MeshQuality& q = g.quality;
  if (nc > 0) {
    q.min_dihedral_deg = std::acos(std::clamp(max_cos, -1.0, 1.0)) * (180.0 / M_PI);
    q.max_dihedral_deg = std::acos(std::clamp(min_cos, -1.0, 1.0)) * (180.0 / M_PI);
    q.min_volume = min_vol;
    q.max_volume = max_vol;
    Worst best;
    for (const Worst& w : worst)
      if (w.tet >= 0 && (w.aspect > best.aspect || (w.aspect == best.aspect && w.tet < best.tet))) best = w;
    q.max_aspect_ratio = best.aspect;
    q.worst_aspect_tet = best.tet;
  }
  if (nc > 0) {  // every edge is an edge of a tet: the same extremes as over the edge table
    q.min_edge_length = std::sqrt(min_edge2);
    q.max_edge_length = std::sqrt(max_edge2);
  }
  return g;
}

}  // namespace ss
