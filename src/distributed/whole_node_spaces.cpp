#include "distributed/whole_node_spaces.hpp"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <vector>

#include <mpi.h>

#include "parallel/message.hpp"
#include "util/error.hpp"

namespace ss {
namespace {

// Every rank's `mine`, in rank order, on every rank.
template <class T>
std::vector<T> gather_all(const std::vector<T>& mine, MPI_Datatype type) {
  int ranks = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  SS_REQUIRE(mine.size() <= size_t(INT_MAX), "whole node spaces: " << mine.size() << " values on one rank");
  const int count = int(mine.size());
  std::vector<int> counts(size_t(ranks), 0), offsets(size_t(ranks), 0);
  mpi_check(MPI_Allgather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, MPI_COMM_WORLD), "MPI_Allgather");
  std::int64_t total = 0;
  for (int r = 0; r < ranks; ++r) offsets[size_t(r)] = int(total), total += counts[size_t(r)];
  SS_REQUIRE(total <= INT_MAX, "whole node spaces: " << total << " values over the ranks (use the Jacobi preconditioner)");
  std::vector<T> all(static_cast<size_t>(total));
  mpi_check(MPI_Allgatherv(mine.data(), count, type, all.data(), counts.data(), offsets.data(), type, MPI_COMM_WORLD),
            "MPI_Allgatherv");
  return all;
}

// One entity kind of the whole mesh numbered 0.. in global id order, and each local entity's number.
struct WholeNumbering {
  std::int32_t count = 0;
  std::vector<std::int32_t> of_local;  // -1: an entity no rank owns (a cut face)
};
WholeNumbering whole_numbering(const EntityHalo& h) {
  std::vector<std::int64_t> owned;
  for (size_t e = 0; e < h.global.size(); ++e)
    if (h.owned[e]) owned.push_back(h.global[e]);
  std::vector<std::int64_t> all = gather_all(owned, MPI_INT64_T);
  std::sort(all.begin(), all.end());
  SS_REQUIRE(all.size() <= size_t(INT_MAX), "whole node spaces: " << all.size() << " entities of one kind");
  WholeNumbering n;
  n.count = std::int32_t(all.size());
  n.of_local.resize(h.global.size(), -1);
  for (size_t e = 0; e < h.global.size(); ++e) {
    const auto it = std::lower_bound(all.begin(), all.end(), h.global[e]);
    if (it != all.end() && *it == h.global[e]) n.of_local[e] = std::int32_t(it - all.begin());
  }
  return n;
}

// The whole matrix from every rank's rows of its owned entities (a piece matrix, local numbering).
SparseMatrix whole_matrix(const SparseMatrix& a, const EntityHalo& row_kind, const WholeNumbering& rows,
                          const WholeNumbering& cols) {
  std::vector<std::int32_t> r, c;
  std::vector<double> v;
  for (std::int32_t i = 0; i < a.rows; ++i)
    if (row_kind.owned[size_t(i)])
      for (std::int32_t k = a.offsets[size_t(i)]; k < a.offsets[size_t(i) + 1]; ++k) {
        const std::int32_t col = cols.of_local[size_t(a.columns[size_t(k)])];
        SS_REQUIRE(col >= 0, "whole node spaces: an owned row reaches an entity no rank owns");
        r.push_back(rows.of_local[size_t(i)]), c.push_back(col), v.push_back(a.values[size_t(k)]);
      }
  const std::vector<std::int32_t> all_r = gather_all(r, MPI_INT32_T), all_c = gather_all(c, MPI_INT32_T);
  const std::vector<double> all_v = gather_all(v, MPI_DOUBLE);
  std::vector<Triplet> entries(all_v.size());
  for (size_t k = 0; k < entries.size(); ++k) entries[k] = {all_r[k], all_c[k], all_v[k]};
  return from_triplets(rows.count, cols.count, std::move(entries));
}

// The whole vector from every rank's values of its owned entities.
std::vector<double> whole_vector(const std::vector<double>& v, const EntityHalo& kind, const WholeNumbering& n) {
  std::vector<std::int32_t> index;
  std::vector<double> value;
  for (size_t e = 0; e < v.size(); ++e)
    if (kind.owned[e]) index.push_back(n.of_local[e]), value.push_back(v[e]);
  const std::vector<std::int32_t> all_index = gather_all(index, MPI_INT32_T);
  const std::vector<double> all_value = gather_all(value, MPI_DOUBLE);
  std::vector<double> whole(size_t(n.count), 0.0);
  for (size_t k = 0; k < all_index.size(); ++k) whole[size_t(all_index[k])] = all_value[k];
  return whole;
}

// The rows of `whole` (numbered by `rows`) of the piece's owned entities; ghost rows empty.
SparseMatrix piece_rows(const SparseMatrix& whole, const EntityHalo& kind, const WholeNumbering& rows) {
  return assemble_rows(std::int32_t(kind.global.size()), whole.cols, [&](std::int32_t i, RowEntries& row) {
    if (!kind.owned[size_t(i)]) return;
    const std::int32_t w = rows.of_local[size_t(i)];
    for (std::int32_t k = whole.offsets[size_t(w)]; k < whole.offsets[size_t(w) + 1]; ++k)
      row.emplace_back(whole.columns[size_t(k)], whole.values[size_t(k)]);
  });
}

}  // namespace

WholeNodeSpaces piece_node_spaces(const NodeSpaceParts& parts, const EntityHalo& faces, const EntityHalo& edges,
                                  const EntityHalo& nodes) {
  const WholeNumbering f = whole_numbering(faces), e = whole_numbering(edges), n = whole_numbering(nodes);
  const SparseMatrix curl = whole_matrix(parts.curl, faces, f, e);
  const SparseMatrix gradient = whole_matrix(parts.gradient, edges, e, n);
  std::array<SparseMatrix, 3> interpolation;
  for (size_t d = 0; d < 3; ++d) interpolation[d] = whole_matrix(parts.interpolation[d], edges, e, n);
  const std::vector<double> free_edges = whole_vector(parts.free_edges, edges, e);
  const std::vector<double> face_mass = whole_vector(parts.face_mass, faces, f);
  const std::vector<double> face_viscous = whole_vector(parts.face_viscous, faces, f);
  const std::vector<double> node_mass = whole_vector(parts.node_mass, nodes, n);
  const std::vector<double> node_viscous = whole_vector(parts.node_viscous, nodes, n);
  WholeNodeSpaces w = whole_node_spaces(
      {curl, gradient, free_edges, interpolation, face_mass, face_viscous, node_mass, node_viscous});

  AuxiliarySpaceMatrices& m = w.matrices;
  m.gradient = piece_rows(m.gradient, edges, e);
  m.interpolation = piece_rows(m.interpolation, edges, e);
  // Each active node's weight from the rank that owns the node.
  std::vector<std::int32_t> owned_local(size_t(n.count), -1);
  for (size_t k = 0; k < nodes.global.size(); ++k)
    if (nodes.owned[k]) owned_local[size_t(n.of_local[k])] = std::int32_t(k);
  std::vector<Triplet> selection;
  for (std::int32_t a = 0; a < m.gradient_nodes.rows; ++a)
    for (std::int32_t k = m.gradient_nodes.offsets[size_t(a)]; k < m.gradient_nodes.offsets[size_t(a) + 1]; ++k)
      if (const std::int32_t local = owned_local[size_t(m.gradient_nodes.columns[size_t(k)])]; local >= 0)
        selection.push_back({a, local, m.gradient_nodes.values[size_t(k)]});
  m.gradient_nodes = from_triplets(m.gradient_nodes.rows, std::int32_t(nodes.global.size()), std::move(selection));
  return w;
}

}  // namespace ss
