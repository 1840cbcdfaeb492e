#include "multigrid/pressure_matrix.hpp"

#include <algorithm>
#include <utility>

#include "util/error.hpp"

namespace ss {

SparseMatrix pressure_matrix(const std::vector<std::int32_t>& face_cell0, const std::vector<std::int32_t>& face_cell1,
                             const FlowOperatorData& data) {
  const size_t nf = size_t(data.num_faces);
  const std::int32_t nc = data.num_cells;
  SS_REQUIRE(face_cell0.size() == nf && face_cell1.size() == nf && data.pressure_weight.size() == nf,
             "pressure matrix: " << face_cell0.size() << " face cells for " << nf << " faces");
  // Per cell: (neighbour, −W_f) for interior faces; the diagonal Σ W_f.
  std::vector<std::vector<std::pair<std::int32_t, double>>> rows(static_cast<size_t>(nc));
  std::vector<double> diagonal(size_t(nc), 0.0);
  for (size_t f = 0; f < nf; ++f) {
    const std::int32_t c0 = face_cell0[f], c1 = face_cell1[f];
    const double w = data.pressure_weight[f];
    diagonal[size_t(c0)] += w;
    if (c1 < 0) continue;
    diagonal[size_t(c1)] += w;
    rows[size_t(c0)].emplace_back(c1, -w);
    rows[size_t(c1)].emplace_back(c0, -w);
  }
  SparseMatrix p;
  p.rows = p.cols = nc;
  p.offsets.assign(size_t(nc) + 1, 0);
  for (std::int32_t c = 0; c < nc; ++c) {
    auto& row = rows[size_t(c)];
    row.emplace_back(c, diagonal[size_t(c)]);
    std::sort(row.begin(), row.end());
    for (size_t k = 0; k < row.size(); ++k) {
      if (k > 0 && row[k].first == row[k - 1].first) {  // two faces shared by the same pair: sum
        p.values.back() += row[k].second;
        continue;
      }
      p.columns.push_back(row[k].first);
      p.values.push_back(row[k].second);
    }
    p.offsets[size_t(c) + 1] = std::int32_t(p.values.size());
  }
  return p;
}

SparseMatrix pressure_matrix(const MeshOperatorTables& tables, const FlowOperatorData& data) {
  return pressure_matrix(tables.face_cell0, tables.face_cell1, data);
}

}  // namespace ss
