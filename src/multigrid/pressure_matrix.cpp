#include "multigrid/pressure_matrix.hpp"

#include <algorithm>
#include <utility>

#include "mesh/bucket_sort.hpp"
#include "util/error.hpp"

namespace ss {

SparseMatrix pressure_matrix(const std::vector<std::int32_t>& face_cell0, const std::vector<std::int32_t>& face_cell1,
                             const FlowOperatorData& data) {
  const size_t nf = size_t(data.num_faces);
  const std::int32_t nc = data.num_cells;
  SS_REQUIRE(face_cell0.size() == nf && face_cell1.size() == nf && data.pressure_weight.size() == nf,
             "pressure matrix: " << face_cell0.size() << " face cells for " << nf << " faces");
  // The faces of each cell, ascending (a stable counting sort of the face sides by cell; boundary
  // sides go to an extra bucket). Row c: (neighbour, −W_f) for its interior faces and the diagonal
  // Σ W_f summed in face order, in parallel.
  std::vector<std::int32_t> faces(2 * nf);
  const std::vector<std::int32_t> start = detail::bucket_scatter<2>(
      std::int32_t(nf), nc + 1,
      [&](std::int32_t f, int side) {
        const std::int32_t c = side == 0 ? face_cell0[size_t(f)] : face_cell1[size_t(f)];
        return c < 0 ? nc : c;
      },
      [&](std::int64_t at, std::int32_t f, int) { faces[size_t(at)] = f; });
  return assemble_rows(nc, nc, [&](std::int32_t c, RowEntries& row) {
    double diagonal = 0.0;
    for (std::int32_t k = start[size_t(c)]; k < start[size_t(c) + 1]; ++k) {
      const std::int32_t f = faces[size_t(k)], c0 = face_cell0[size_t(f)], c1 = face_cell1[size_t(f)];
      const double w = data.pressure_weight[size_t(f)];
      diagonal += w;
      if (c1 >= 0) row.emplace_back(c0 == c ? c1 : c0, -w);
    }
    row.emplace_back(c, diagonal);
  });
}

SparseMatrix pressure_matrix(const MeshOperatorTables& tables, const FlowOperatorData& data) {
  return pressure_matrix(tables.face_cell0, tables.face_cell1, data);
}

}  // namespace ss
