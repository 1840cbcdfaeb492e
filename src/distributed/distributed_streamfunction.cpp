#include "distributed/distributed_streamfunction.hpp"

#include <algorithm>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <utility>

#include <mpi.h>

#include "cpu/cpu_backend.hpp"
#include "distributed/whole_node_spaces.hpp"
#include "parallel/collect.hpp"
#include "parallel/halo.hpp"
#include "parallel/mpi_env.hpp"
#include "util/error.hpp"

namespace ss {
namespace {

// Rank 0's vector on every rank.
template <class T>
void broadcast_vector(std::vector<T>& v, MPI_Datatype type) {
  std::int64_t n = std::int64_t(v.size());
  mpi_check(MPI_Bcast(&n, 1, MPI_INT64_T, 0, MPI_COMM_WORLD), "MPI_Bcast");
  v.resize(size_t(n));
  if (n > 0) mpi_check(MPI_Bcast(v.data(), int(n), type, 0, MPI_COMM_WORLD), "MPI_Bcast");
}

// What the lift and the completions keep between calls.
struct PieceBoundary {
  const WholeStreamfunction* whole = nullptr;   // rank 0 only
  std::vector<std::int32_t> fixed_whole;        // rank 0: each fixed edge's index in the whole mesh
  std::vector<std::int32_t> fixed_local;        // each fixed edge's local index here, or -1
  std::vector<std::int32_t> boundary_faces;     // this rank's owned boundary faces (local ids)
  std::vector<std::int64_t> boundary_face_ids;  // and their global ids
  size_t local_edges = 0;
  CpuBackend host;
  std::optional<HaloExchange<CpuBackend>> edges, nodes;
  EntityHalo face_ids, edge_ids, node_ids;  // the piece's entities (the whole node spaces)
};

}  // namespace

StreamfunctionSetup piece_streamfunction_setup(const WholeStreamfunction* whole, const EntityPiece& piece,
                                               const LoadedMesh& local) {
  auto p = std::make_shared<PieceBoundary>();
  p->whole = whole;
  p->local_edges = piece.edges.global.size();

  // 1. Rank 0's fixed edges (by global id) and the harmonic basis fields' values on them (the
  //    fields vanish on free edges), to every rank.
  std::vector<std::int64_t> fixed;
  std::vector<double> harmonic;  // field k's value on fixed edge i at k · fixed + i
  std::string labels;
  if (whole) {
    const StreamfunctionBoundary& b = whole->boundary;
    for (size_t e = 0; e < b.free_edge_mask.size(); ++e)
      if (b.free_edge_mask[e] == 0.0) fixed.push_back(whole->edge_global[e]), p->fixed_whole.push_back(std::int32_t(e));
    for (const std::vector<double>& h : b.harmonic)
      for (std::int32_t e : p->fixed_whole) harmonic.push_back(h[size_t(e)]);
    for (const std::string& label : b.harmonic_labels) labels += label + '\n';
  }
  broadcast_vector(fixed, MPI_INT64_T);
  broadcast_vector(harmonic, MPI_DOUBLE);
  labels = broadcast_string(labels);

  // 2. Those that are this piece's edges.
  StreamfunctionSetup s;
  StreamfunctionBoundary& b = s.boundary;
  b.num_edges = std::int32_t(p->local_edges);
  b.free_edge_mask.assign(p->local_edges, 1.0);
  std::vector<std::pair<std::int64_t, std::int32_t>> by_id(p->local_edges);
  for (size_t e = 0; e < p->local_edges; ++e) by_id[e] = {piece.edges.global[e], std::int32_t(e)};
  std::sort(by_id.begin(), by_id.end());
  p->fixed_local.assign(fixed.size(), -1);
  for (size_t i = 0; i < fixed.size(); ++i) {
    const auto it = std::lower_bound(by_id.begin(), by_id.end(), std::make_pair(fixed[i], std::int32_t(-1)));
    if (it == by_id.end() || it->first != fixed[i]) continue;
    p->fixed_local[i] = it->second;
    b.free_edge_mask[size_t(it->second)] = 0.0;
  }
  std::istringstream label_lines(labels);
  for (std::string label; std::getline(label_lines, label);) b.harmonic_labels.push_back(label);
  SS_REQUIRE(harmonic.size() == b.harmonic_labels.size() * fixed.size(),
             "exact method over MPI ranks: " << harmonic.size() << " harmonic values for " << b.harmonic_labels.size()
                                             << " fields on " << fixed.size() << " fixed edges");
  for (size_t k = 0; k < b.harmonic_labels.size(); ++k) {
    std::vector<double> h(p->local_edges, 0.0);
    for (size_t i = 0; i < fixed.size(); ++i)
      if (p->fixed_local[i] >= 0) h[size_t(p->fixed_local[i])] = harmonic[k * fixed.size() + i];
    b.harmonic.push_back(std::move(h));
  }

  // 3. The lift: the owned boundary faces' fluxes to rank 0 (in the whole mesh's face order), the
  //    tree solved there, the fixed edges' values back to every rank.
  const Topology& t = local.topology;
  for (size_t f = 0; f < piece.faces.owned.size(); ++f)
    if (piece.faces.owned[f] && t.face_cells[f][1] < 0) {
      p->boundary_faces.push_back(std::int32_t(f));
      p->boundary_face_ids.push_back(piece.faces.global[f]);
    }
  s.lift = [p](const std::vector<double>& face_flux) {
    std::vector<double> mine;
    mine.reserve(p->boundary_faces.size());
    for (std::int32_t f : p->boundary_faces) mine.push_back(face_flux[size_t(f)]);
    const std::vector<double> whole_flux =
        gather_in_order(p->boundary_face_ids, mine, p->whole ? &p->whole->face_global : nullptr);
    std::vector<double> values(p->fixed_local.size(), 0.0);
    if (p->whole) {
      const std::vector<double> lift = streamfunction_lift(p->whole->boundary, whole_flux);
      for (size_t i = 0; i < values.size(); ++i) values[i] = lift[size_t(p->fixed_whole[i])];
    }
    if (!values.empty())
      mpi_check(MPI_Bcast(values.data(), int(values.size()), MPI_DOUBLE, 0, MPI_COMM_WORLD), "MPI_Bcast");
    std::vector<double> out(p->local_edges, 0.0);
    for (size_t i = 0; i < values.size(); ++i)
      if (p->fixed_local[i] >= 0) out[size_t(p->fixed_local[i])] = values[i];
    return out;
  };

  // 4. Ghost entries from their owners.
  p->edges.emplace(p->host, piece.edges.links, MPI_COMM_WORLD);
  p->nodes.emplace(p->host, piece.nodes.links, MPI_COMM_WORLD);
  s.complete_edges = [p](std::vector<double>& v) { p->edges->update(v); };
  s.complete_nodes = [p](std::vector<double>& v) { p->nodes->update(v); };
  s.owned_edge_mask.assign(piece.edges.owned.begin(), piece.edges.owned.end());

  // 5. The auxiliary-space preconditioner's node spaces of the whole mesh.
  p->face_ids = piece.faces, p->edge_ids = piece.edges, p->node_ids = piece.nodes;
  s.whole_node_spaces = [p](const NodeSpaceParts& parts) {
    return piece_node_spaces(parts, p->face_ids, p->edge_ids, p->node_ids);
  };
  return s;
}

}  // namespace ss
