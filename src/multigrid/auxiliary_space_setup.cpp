#include "multigrid/auxiliary_space_setup.hpp"

#include <algorithm>
#include <array>

#include "multigrid/galerkin.hpp"
#include "util/error.hpp"

namespace ss {

namespace {

SparseMatrix diagonal_matrix(const std::vector<double>& d) {
  SparseMatrix m;
  m.rows = m.cols = std::int32_t(d.size());
  m.offsets.resize(d.size() + 1);
  m.columns.resize(d.size());
  for (size_t i = 0; i <= d.size(); ++i) m.offsets[i] = std::int32_t(i);
  for (size_t i = 0; i < d.size(); ++i) m.columns[i] = std::int32_t(i);
  m.values = d;
  return m;
}

// The columns of `a` with entries, renumbered in order (a × them), and their selection (them × a.cols).
struct ActiveColumns {
  SparseMatrix matrix, selection;
};
ActiveColumns active_columns(const SparseMatrix& a) {
  std::vector<std::int32_t> index(size_t(a.cols), -1);
  for (std::int32_t c : a.columns) index[size_t(c)] = 0;
  std::int32_t count = 0;
  std::vector<Triplet> selection;
  for (std::int32_t c = 0; c < a.cols; ++c)
    if (index[size_t(c)] == 0) {
      selection.push_back({count, c, 1.0});
      index[size_t(c)] = count++;
    }
  ActiveColumns r;
  r.matrix = a;
  r.matrix.cols = count;
  for (std::int32_t& c : r.matrix.columns) c = index[size_t(c)];
  r.selection = from_triplets(count, a.cols, std::move(selection));
  return r;
}

// Each connected piece of the gradient space whose nodes no one-ended row of G touches (L = Gᵀ G is
// singular on it: its constants). One such piece alone is the usual singular case (the V-cycle
// pins one unknown and keeps the result mean-free). Several — a rank's owned edges may fall apart
// in two, or a floating piece may sit beside a grounded one — each get one node grounded instead,
// its diagonal doubled: L stays SPD and close to Gᵀ G, and the preconditioner SPD.
std::vector<std::int32_t> floating_component_nodes(const SparseMatrix& g, bool& one_component) {
  std::vector<std::int32_t> root(size_t(g.cols));
  for (std::int32_t n = 0; n < g.cols; ++n) root[size_t(n)] = n;
  const auto find = [&](std::int32_t n) {
    while (root[size_t(n)] != n) n = root[size_t(n)] = root[size_t(root[size_t(n)])];
    return n;
  };
  for (std::int32_t e = 0; e < g.rows; ++e)
    if (g.offsets[size_t(e) + 1] - g.offsets[size_t(e)] == 2) {
      const std::int32_t a = find(g.columns[size_t(g.offsets[size_t(e)])]), b = find(g.columns[size_t(g.offsets[size_t(e)] + 1)]);
      if (a != b) root[size_t(std::max(a, b))] = std::min(a, b);
    }
  std::vector<char> grounded(size_t(g.cols), 0);
  for (std::int32_t e = 0; e < g.rows; ++e)
    if (g.offsets[size_t(e) + 1] - g.offsets[size_t(e)] == 1) grounded[size_t(find(g.columns[size_t(g.offsets[size_t(e)])]))] = 1;
  std::vector<std::int32_t> floating;
  std::int32_t components = 0;
  for (std::int32_t n = 0; n < g.cols; ++n)
    if (find(n) == n) {
      ++components;
      if (!grounded[size_t(n)]) floating.push_back(n);
    }
  one_component = components == 1;
  return floating;
}

}  // namespace

// A_d's diagonal shift (auxiliary_space_setup.hpp).
constexpr double kVectorSpaceShift = 1e-3;

namespace {

// Π_d on component d's active nodes, and Π = [Π_0 Π_1 Π_2] (offset[d]: component d's first column).
struct VectorSpaceInterpolation {
  std::array<SparseMatrix, 3> pi;
  SparseMatrix interpolation;
  std::array<std::int32_t, 4> offset{0, 0, 0, 0};
};

VectorSpaceInterpolation vector_space_interpolation(std::int32_t edges, const std::array<SparseMatrix, 3>& interpolation) {
  VectorSpaceInterpolation v;
  for (size_t d = 0; d < 3; ++d) {
    v.pi[d] = active_columns(interpolation[d]).matrix;
    v.offset[d + 1] = v.offset[d] + v.pi[d].cols;
  }
  v.interpolation = assemble_rows(edges, v.offset[3], [&](std::int32_t i, RowEntries& row) {
    for (size_t d = 0; d < 3; ++d)
      for (std::int32_t k = v.pi[d].offsets[size_t(i)]; k < v.pi[d].offsets[size_t(i) + 1]; ++k)
        row.emplace_back(v.offset[d] + v.pi[d].columns[size_t(k)], v.pi[d].values[size_t(k)]);
  });
  return v;
}

// A_Π = blockdiag(A_0, A_1, A_2), A_d = (C Π_d)ᵀ diag(w) (C Π_d) + (Gᵀ Π_d)ᵀ diag(W) (Gᵀ Π_d), each
// block's diagonal shifted (added after the block's own entries).
SparseMatrix vector_space_matrix(const SparseMatrix& curl, const SparseMatrix& gradient, const VectorSpaceInterpolation& v,
                                 const std::vector<double>& face_weight, const std::vector<double>& node_weight) {
  const SparseMatrix divergence = transpose(gradient);
  const SparseMatrix w = diagonal_matrix(face_weight), big_w = diagonal_matrix(node_weight);
  std::array<SparseMatrix, 3> a;
  std::array<std::vector<double>, 3> diagonal;
  for (size_t d = 0; d < 3; ++d) {
    a[d] = add(1.0, galerkin_product(multiply(curl, v.pi[d]), w), 1.0, galerkin_product(multiply(divergence, v.pi[d]), big_w));
    diagonal[d] = a[d].diagonal();
  }
  const std::array<std::int32_t, 4>& offset = v.offset;
  return assemble_rows(offset[3], offset[3], [&](std::int32_t i, RowEntries& row) {
    const size_t d = i < offset[1] ? 0 : i < offset[2] ? 1 : 2;
    const std::int32_t r = i - offset[d];
    for (std::int32_t k = a[d].offsets[size_t(r)]; k < a[d].offsets[size_t(r) + 1]; ++k)
      row.emplace_back(offset[d] + a[d].columns[size_t(k)], a[d].values[size_t(k)]);
    row.emplace_back(i, kVectorSpaceShift * diagonal[d][size_t(r)]);
  });
}

void check_weights(const SparseMatrix& curl, const SparseMatrix& gradient, const std::vector<double>& face_weight,
                   const std::vector<double>& node_weight) {
  SS_REQUIRE(std::int64_t(face_weight.size()) == curl.rows && std::int64_t(node_weight.size()) == gradient.cols &&
                 curl.cols == gradient.rows,
             "auxiliary space: " << face_weight.size() << " face and " << node_weight.size() << " node weights for a "
                                 << curl.rows << "x" << curl.cols << " curl and a " << gradient.rows << "x"
                                 << gradient.cols << " gradient");
}

}  // namespace

AuxiliarySpaceMatrices auxiliary_space_matrices(const SparseMatrix& curl, const SparseMatrix& gradient,
                                                const std::array<SparseMatrix, 3>& interpolation,
                                                const std::vector<double>& face_weight,
                                                const std::vector<double>& node_weight) {
  check_weights(curl, gradient, face_weight, node_weight);
  AuxiliarySpaceMatrices m;
  ActiveColumns g = active_columns(gradient);
  m.gradient = std::move(g.matrix), m.gradient_nodes = std::move(g.selection);
  m.laplacian = galerkin_product(m.gradient, diagonal_matrix(std::vector<double>(size_t(gradient.rows), 1.0)));
  bool one_component = false;
  const std::vector<std::int32_t> floating = floating_component_nodes(m.gradient, one_component);
  m.laplacian_singular = one_component && floating.size() == 1;
  if (!m.laplacian_singular)
    for (std::int32_t n : floating)
      for (std::int32_t k = m.laplacian.offsets[size_t(n)]; k < m.laplacian.offsets[size_t(n) + 1]; ++k)
        if (m.laplacian.columns[size_t(k)] == n) m.laplacian.values[size_t(k)] *= 2.0;
  VectorSpaceInterpolation v = vector_space_interpolation(gradient.rows, interpolation);
  m.vector_space = vector_space_matrix(curl, gradient, v, face_weight, node_weight);
  m.interpolation = std::move(v.interpolation);
  return m;
}

SparseMatrix vector_space_matrix(const SparseMatrix& curl, const SparseMatrix& gradient,
                                 const std::array<SparseMatrix, 3>& interpolation, const std::vector<double>& face_weight,
                                 const std::vector<double>& node_weight) {
  check_weights(curl, gradient, face_weight, node_weight);
  return vector_space_matrix(curl, gradient, vector_space_interpolation(gradient.rows, interpolation), face_weight,
                             node_weight);
}

SparseMatrix auxiliary_gradient(const SparseMatrix& g, const std::vector<double>& edges) {
  std::vector<char> outside(size_t(g.cols), 0);
  for (std::int32_t e = 0; e < g.rows; ++e)
    if (edges[size_t(e)] == 0.0)
      for (std::int32_t k = g.offsets[size_t(e)]; k < g.offsets[size_t(e) + 1]; ++k) outside[size_t(g.columns[size_t(k)])] = 1;
  std::vector<Triplet> entries;
  for (std::int32_t e = 0; e < g.rows; ++e)
    if (edges[size_t(e)] != 0.0)
      for (std::int32_t k = g.offsets[size_t(e)]; k < g.offsets[size_t(e) + 1]; ++k)
        if (!outside[size_t(g.columns[size_t(k)])]) entries.push_back({e, g.columns[size_t(k)], g.values[size_t(k)]});
  return from_triplets(g.rows, g.cols, std::move(entries));
}

WholeNodeSpaces whole_node_spaces(const NodeSpaceParts& p) {
  const SparseMatrix g = auxiliary_gradient(p.gradient, p.free_edges);
  WholeNodeSpaces w;
  w.matrices = auxiliary_space_matrices(p.curl, g, p.interpolation, p.face_mass, p.node_mass);
  w.viscous_vector_space = vector_space_matrix(p.curl, g, p.interpolation, p.face_viscous, p.node_viscous);
  return w;
}

}  // namespace ss
