#include "multigrid/multigrid_setup.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <functional>
#include <sstream>

#include <suitesparse/cholmod.h>

#include "util/error.hpp"

namespace ss {

HeatOperatorData light_heat_operator(HeatOperatorData data) {
  data.edge_coefficients = {};
  data.cell_nodes = {};
  for (auto& g : data.grad_lambda) g = {};
  data.node_cell_offsets = {};
  data.node_cells = {};
  data.node_cell_coefficients = {};
  return data;
}

SparseMatrix prolongation_from_map(const LevelMap& map, const std::vector<double>& coarse_fixed,
                                   const std::vector<double>& fine_fixed) {
  SS_REQUIRE(std::int64_t(coarse_fixed.size()) == map.coarse_nodes && std::int64_t(fine_fixed.size()) == map.fine_nodes,
             "multigrid: fixed-node masks do not match the level map");
  SparseMatrix p;
  p.rows = map.fine_nodes;
  p.cols = map.coarse_nodes;
  // Row f: its free parents (one for a coarse node, weight 1; two for a midpoint, ½ each); counted,
  // then filled, in parallel (56.6M rows onto a refine-6 level).
  const auto parents = [&](std::int32_t f) {
    auto [a, b] = map.parents[size_t(f)];
    if (a > b) std::swap(a, b);
    return std::array<std::int32_t, 2>{a, b};
  };
  p.offsets.assign(size_t(p.rows) + 1, 0);
#pragma omp parallel for schedule(static)
  for (std::int32_t f = 0; f < p.rows; ++f) {
    const auto [a, b] = parents(f);
    const bool free_row = fine_fixed[size_t(f)] == 0;
    p.offsets[size_t(f) + 1] = free_row ? int(coarse_fixed[size_t(a)] == 0) + int(a != b && coarse_fixed[size_t(b)] == 0) : 0;
  }
  for (std::int32_t f = 0; f < p.rows; ++f) p.offsets[size_t(f) + 1] += p.offsets[size_t(f)];
  p.columns.resize(size_t(p.offsets.back()));
  p.values.resize(p.columns.size());
#pragma omp parallel for schedule(static)
  for (std::int32_t f = 0; f < p.rows; ++f) {
    if (fine_fixed[size_t(f)] != 0) continue;
    const auto [a, b] = parents(f);
    size_t at = size_t(p.offsets[size_t(f)]);
    const double weight = a == b ? 1.0 : 0.5;
    if (coarse_fixed[size_t(a)] == 0) p.columns[at] = a, p.values[at] = weight, ++at;
    if (a != b && coarse_fixed[size_t(b)] == 0) p.columns[at] = b, p.values[at] = weight;
  }
  return p;
}

namespace {

// The explicit matrix of a geometric level's system.
SparseMatrix level_matrix(const HeatOperatorData& data, const std::vector<std::int32_t>& fixed, double a, double s) {
  return heat_system_matrix(data, eliminate_dirichlet(data, fixed), a, s);
}

std::vector<double> inverse_of(const std::vector<double>& d) {
  std::vector<double> inv(d.size());
  for (size_t i = 0; i < d.size(); ++i) {
    SS_REQUIRE(d[i] > 0, "multigrid: diagonal entry " << i << " is " << d[i] << " (the system must be SPD)");
    inv[i] = 1.0 / d[i];
  }
  return inv;
}


// A with row and column 0 replaced by the identity's: SPD when A is symmetric positive
// semi-definite with only the constants as null space (a connected graph).
SparseMatrix pin_first_unknown(const SparseMatrix& a) {
  SparseMatrix p;
  p.rows = p.cols = a.rows;
  p.offsets.assign(size_t(a.rows) + 1, 0);
  for (std::int32_t i = 0; i < a.rows; ++i) {
    if (i == 0) {
      p.columns.push_back(0);
      p.values.push_back(1.0);
    } else {
      for (std::int32_t k = a.offsets[size_t(i)]; k < a.offsets[size_t(i) + 1]; ++k)
        if (a.columns[size_t(k)] != 0) p.columns.push_back(a.columns[size_t(k)]), p.values.push_back(a.values[size_t(k)]);
    }
    p.offsets[size_t(i) + 1] = std::int32_t(p.values.size());
  }
  return p;
}

}  // namespace

SparseMatrix smoothed_aggregation(const SparseMatrix& a, double lambda_max, double theta, std::int32_t* aggregates_out) {
  const std::int32_t n = a.rows;
  const std::vector<double> d = a.diagonal();
  const auto strong = [&](std::int32_t i, std::int32_t k) {
    const std::int32_t j = a.columns[size_t(k)];
    return j != i && std::fabs(a.values[size_t(k)]) >= theta * std::sqrt(d[size_t(i)] * d[size_t(j)]);
  };
  std::vector<std::int32_t> agg(size_t(n), -1);
  std::vector<char> isolated(size_t(n), 1);
  for (std::int32_t i = 0; i < n; ++i)
    for (std::int32_t k = a.offsets[size_t(i)]; k < a.offsets[size_t(i) + 1]; ++k)
      if (a.columns[size_t(k)] != i && a.values[size_t(k)] != 0) isolated[size_t(i)] = 0;
  std::int32_t count = 0;
  // 1. Roots whose strong neighbourhood is still free take it whole.
  for (std::int32_t i = 0; i < n; ++i) {
    if (isolated[size_t(i)] || agg[size_t(i)] >= 0) continue;
    bool free = true;
    for (std::int32_t k = a.offsets[size_t(i)]; k < a.offsets[size_t(i) + 1] && free; ++k)
      if (strong(i, k) && agg[size_t(a.columns[size_t(k)])] >= 0) free = false;
    if (!free) continue;
    agg[size_t(i)] = count;
    for (std::int32_t k = a.offsets[size_t(i)]; k < a.offsets[size_t(i) + 1]; ++k)
      if (strong(i, k)) agg[size_t(a.columns[size_t(k)])] = count;
    ++count;
  }
  // 2. The rest join the aggregate they are most strongly connected to (as after phase 1).
  const std::vector<std::int32_t> first = agg;
  for (std::int32_t i = 0; i < n; ++i) {
    if (isolated[size_t(i)] || agg[size_t(i)] >= 0) continue;
    double best = 0;
    for (std::int32_t k = a.offsets[size_t(i)]; k < a.offsets[size_t(i) + 1]; ++k) {
      const std::int32_t j = a.columns[size_t(k)];
      if (strong(i, k) && first[size_t(j)] >= 0 && std::fabs(a.values[size_t(k)]) > best) {
        best = std::fabs(a.values[size_t(k)]);
        agg[size_t(i)] = first[size_t(j)];
      }
    }
  }
  // 3. Leftovers (no strong aggregated neighbour) form aggregates with their free strong neighbours.
  for (std::int32_t i = 0; i < n; ++i) {
    if (isolated[size_t(i)] || agg[size_t(i)] >= 0) continue;
    agg[size_t(i)] = count;
    for (std::int32_t k = a.offsets[size_t(i)]; k < a.offsets[size_t(i) + 1]; ++k)
      if (strong(i, k) && agg[size_t(a.columns[size_t(k)])] < 0) agg[size_t(a.columns[size_t(k)])] = count;
    ++count;
  }
  if (aggregates_out) *aggregates_out = count;
  SparseMatrix tentative;
  tentative.rows = n;
  tentative.cols = count;
  tentative.offsets.assign(size_t(n) + 1, 0);
  for (std::int32_t i = 0; i < n; ++i) {
    if (agg[size_t(i)] >= 0) tentative.columns.push_back(agg[size_t(i)]), tentative.values.push_back(1.0);
    tentative.offsets[size_t(i) + 1] = std::int32_t(tentative.values.size());
  }
  // P = (I − ω D⁻¹A) P_tent on the aggregated rows (isolated rows stay empty).
  const double omega = 4.0 / (3.0 * lambda_max);
  SparseMatrix smoother = a;
  for (std::int32_t i = 0; i < n; ++i)
    for (std::int32_t k = a.offsets[size_t(i)]; k < a.offsets[size_t(i) + 1]; ++k) {
      const double v = isolated[size_t(i)] ? 0.0 : -omega * a.values[size_t(k)] / d[size_t(i)];
      smoother.values[size_t(k)] = v + (a.columns[size_t(k)] == i && !isolated[size_t(i)] ? 1.0 : 0.0);
    }
  return multiply(smoother, tentative);
}

struct DirectSolver::Impl {
  cholmod_common common;
  cholmod_factor* factor = nullptr;
};

DirectSolver::DirectSolver(const SparseMatrix& a) : impl_(std::make_unique<Impl>()), n_(a.rows) {
  SS_REQUIRE(a.rows == a.cols, "direct solver: matrix is " << a.rows << "x" << a.cols);
  cholmod_common* c = &impl_->common;
  cholmod_start(c);
  c->print = 0;
  // Simplicial: the coarsest level is small, and the supernodal factorization runs OpenMP teams of
  // its own size (4 threads), which libgomp creates anew where the program's teams are smaller; a
  // thread it cannot create (under a memory limit) ends the program without an exception.
  c->supernodal = CHOLMOD_SIMPLICIAL;
  // Lower triangle in compressed columns = upper triangle of the (symmetric) CSR rows.
  size_t nnz = 0;
  for (std::int32_t i = 0; i < a.rows; ++i)
    for (std::int32_t k = a.offsets[size_t(i)]; k < a.offsets[size_t(i) + 1]; ++k)
      if (a.columns[size_t(k)] >= i) ++nnz;
  cholmod_sparse* m = cholmod_allocate_sparse(size_t(a.rows), size_t(a.rows), nnz, 1, 1, -1, CHOLMOD_REAL, c);
  SS_REQUIRE(m, "direct solver: CHOLMOD could not allocate a " << a.rows << "-row matrix");
  int* p = static_cast<int*>(m->p);
  int* row = static_cast<int*>(m->i);
  double* x = static_cast<double*>(m->x);
  size_t at = 0;
  for (std::int32_t j = 0; j < a.rows; ++j) {
    p[j] = int(at);
    for (std::int32_t k = a.offsets[size_t(j)]; k < a.offsets[size_t(j) + 1]; ++k)
      if (a.columns[size_t(k)] >= j) {
        row[at] = a.columns[size_t(k)];
        x[at] = a.values[size_t(k)];
        ++at;
      }
  }
  p[a.rows] = int(at);
  impl_->factor = cholmod_analyze(m, c);
  const bool ok = impl_->factor && cholmod_factorize(m, impl_->factor, c) && c->status == CHOLMOD_OK;
  cholmod_free_sparse(&m, c);
  SS_REQUIRE(ok, "direct solver: CHOLMOD factorisation failed (status " << c->status
                                                                          << "; the coarsest operator must be SPD)");
  factor_nonzeros_ = c->lnz;
}

DirectSolver::~DirectSolver() {
  if (impl_->factor) cholmod_free_factor(&impl_->factor, &impl_->common);
  cholmod_finish(&impl_->common);
}

std::vector<double> DirectSolver::solve(const std::vector<double>& b) const {
  SS_REQUIRE(std::int64_t(b.size()) == n_, "direct solver: right-hand side has " << b.size() << " values, expected " << n_);
  cholmod_common* c = &impl_->common;
  cholmod_dense* rhs = cholmod_allocate_dense(size_t(n_), 1, size_t(n_), CHOLMOD_REAL, c);
  std::copy(b.begin(), b.end(), static_cast<double*>(rhs->x));
  cholmod_dense* x = cholmod_solve(CHOLMOD_A, impl_->factor, rhs, c);
  std::vector<double> out(static_cast<double*>(x->x), static_cast<double*>(x->x) + n_);
  cholmod_free_dense(&rhs, c);
  cholmod_free_dense(&x, c);
  return out;
}

std::string MultigridSetup::describe() const {
  std::ostringstream s;
  for (size_t l = 0; l < levels.size(); ++l) {
    const HostLevel& v = levels[l];
    if (l > 0) s << " > ";
    s << v.size << " ("
      << (l + 1 == levels.size() ? "direct" : v.kind == HostLevel::Kind::fine ? "fine"
                                         : v.kind == HostLevel::Kind::geometric ? "geometric"
                                         : v.kind == HostLevel::Kind::families  ? "families"
                                                                                : "aggregation")
      << ")";
  }
  return s.str();
}

namespace {

// A matrix level's smoother data from its matrix: the inverse diagonal and λmax(D⁻¹A) (above coarse_size).
void set_matrix_smoother(HostLevel& level, const MultigridOptions& o) {
  const SparseMatrix& a = level.matrix;
  level.inverse_diagonal = inverse_of(a.diagonal());
  level.lambda_max = 0;
  if (level.size > o.coarse_size)
    level.lambda_max = estimate_lambda_max([&](const std::vector<double>& x, std::vector<double>& y) { a.multiply(x, y); },
                                           level.inverse_diagonal, o.lanczos_steps);
}

// A matrix level below setup.levels.back().
void add_matrix_level(MultigridSetup& setup, const SparseMatrix& coarse, const MultigridOptions& o,
                      HostLevel::Kind kind = HostLevel::Kind::algebraic) {
  HostLevel level;
  level.kind = kind;
  level.size = coarse.rows;
  level.matrix = coarse;
  set_matrix_smoother(level, o);
  setup.levels.push_back(std::move(level));
}

// Smoothed-aggregation levels below setup.levels.back() (whose explicit matrix is `current`) while
// above coarse_size, then the factorised coarsest. With a constant null space the coarsest is
// factorised with its first unknown pinned (see solve_coarsest).
void add_aggregation_levels(MultigridSetup& setup, SparseMatrix current, const MultigridOptions& o) {
  while (setup.levels.back().size > o.coarse_size && int(setup.levels.size()) < o.max_levels) {
    HostLevel& finer = setup.levels.back();
    std::int32_t aggregates = 0;
    SparseMatrix p = smoothed_aggregation(current, finer.lambda_max, o.strength_threshold, &aggregates);
    if (aggregates == 0 || aggregates > finer.size * 9 / 10) break;  // no useful coarsening left
    SparseMatrix coarse = galerkin_product(p, current);
    finer.prolongation = std::move(p);
    finer.restriction = transpose(finer.prolongation);
    add_matrix_level(setup, coarse, o);
    current = std::move(coarse);
  }
  // The coarsest: λmax for the case it still smooths (max_levels reached) is not needed: solved exactly.
  setup.coarse = std::make_shared<DirectSolver>(setup.constant_null_space ? pin_first_unknown(current) : current);
}

// Geometric levels below setup.levels.back() (the finest, whose fixed nodes `fixed_mask` marks),
// from the finest's parent down to the base, while above coarse_size (`at_least_one`: the first
// whatever its size).
void add_geometric_levels(MultigridSetup& setup, std::vector<double> fixed_mask, const GeometricLevels& geometric,
                          const MultigridOptions& o, bool at_least_one) {
  SS_REQUIRE(geometric.maps.size() == geometric.operators.size() && geometric.fixed_nodes.size() == geometric.operators.size(),
             "multigrid: geometric levels and maps do not match");
  for (int g = int(geometric.operators.size()) - 1; g >= 0; --g) {
    const bool first = setup.levels.size() == 1 && at_least_one;
    if (!first && (setup.levels.back().size <= o.coarse_size || int(setup.levels.size()) >= o.max_levels)) break;
    const HeatOperatorData& data = geometric.operators[size_t(g)];
    const LevelMap& map = geometric.maps[size_t(g)];
    SS_REQUIRE(map.fine_nodes == setup.levels.back().size && map.coarse_nodes == data.num_nodes,
               "multigrid: level map " << g << " does not match the operators (" << map.coarse_nodes << " -> "
                                       << map.fine_nodes << ")");
    const HeatDirichletData e = eliminate_dirichlet(data, geometric.fixed_nodes[size_t(g)]);
    HostLevel& finer = setup.levels.back();
    finer.prolongation = prolongation_from_map(map, e.fixed, fixed_mask);
    finer.restriction = transpose(finer.prolongation);
    HostLevel level;
    level.kind = HostLevel::Kind::geometric;
    level.size = data.num_nodes;
    level.geometric_level = g;
    level.fixed_nodes = geometric.fixed_nodes[size_t(g)];
    fixed_mask = e.fixed;
    setup.levels.push_back(std::move(level));
  }
}

// The smoother's data of a heat level (the system of `data` with elimination `elim`): inverse
// diagonal and λmax(D⁻¹A).
void add_heat_smoother(HostLevel& l, const HeatOperatorData& data, const HeatDirichletData& elim, double a, double s,
                       const MultigridOptions& o) {
  std::vector<double> d(size_t(l.size));
  for (size_t i = 0; i < d.size(); ++i) d[i] = elim.fixed[i] != 0 ? 1.0 : a * data.mass[i] + s * data.diagonal[i];
  l.inverse_diagonal = inverse_of(d);
  if (l.size > o.coarse_size)
    l.lambda_max = estimate_lambda_max(
        [&](const std::vector<double>& x, std::vector<double>& y) { apply_heat_system(data, elim, a, s, x, y); },
        l.inverse_diagonal, o.lanczos_steps);
}

// Smoother data of the geometric levels of `setup`, then the aggregation levels and the coarsest
// below the last heat level (whose explicit matrix is `finest_matrix()` when that is the finest).
void finish_heat_multigrid(MultigridSetup& setup, const GeometricLevels* geometric, double a, double s,
                           const MultigridOptions& o, const std::function<SparseMatrix()>& finest_matrix) {
  for (HostLevel& l : setup.levels)
    if (l.kind == HostLevel::Kind::geometric) {
      const HeatOperatorData& data = geometric->operators[size_t(l.geometric_level)];
      add_heat_smoother(l, data, eliminate_dirichlet(data, l.fixed_nodes), a, s, o);
    }
  const HostLevel& last = setup.levels.back();
  add_aggregation_levels(setup,
                         last.kind == HostLevel::Kind::fine
                             ? finest_matrix()
                             : level_matrix(geometric->operators[size_t(last.geometric_level)], last.fixed_nodes, a, s),
                         o);
}

}  // namespace

MultigridSetup setup_multigrid(const HeatOperatorData& fine, const HeatDirichletData& fine_dirichlet,
                               const GeometricLevels* geometric, double a, double s, const MultigridOptions& o) {
  const auto t0 = std::chrono::steady_clock::now();
  MultigridSetup setup;
  HostLevel top;
  top.kind = HostLevel::Kind::fine;
  top.size = fine.num_nodes;
  setup.levels.push_back(std::move(top));
  if (geometric) add_geometric_levels(setup, fine_dirichlet.fixed, *geometric, o, false);
  add_heat_smoother(setup.levels.front(), fine, fine_dirichlet, a, s, o);
  finish_heat_multigrid(setup, geometric, a, s, o, [&] { return heat_system_matrix(fine, fine_dirichlet, a, s); });
  setup.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return setup;
}

MultigridSetup setup_multigrid_below_finest(const FinestSmoother& fine, const GeometricLevels& geometric, double a,
                                            double s, const MultigridOptions& o) {
  SS_REQUIRE(!geometric.operators.empty(), "multigrid: a finest level made on the GPU needs its coarser levels");
  SS_REQUIRE(fine.inverse_diagonal.size() == fine.fixed.size(),
             "multigrid: the finest level's inverse diagonal and fixed mask differ in size");
  const auto t0 = std::chrono::steady_clock::now();
  MultigridSetup setup;
  HostLevel top;
  top.kind = HostLevel::Kind::fine;
  top.size = std::int32_t(fine.fixed.size());
  top.inverse_diagonal = fine.inverse_diagonal;
  top.lambda_max = fine.lambda_max;
  setup.levels.push_back(std::move(top));
  add_geometric_levels(setup, fine.fixed, geometric, o, true);
  finish_heat_multigrid(setup, &geometric, a, s, o, {});
  setup.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return setup;
}

MultigridSetup setup_algebraic_multigrid(const SparseMatrix& a, bool constant_null_space, const MultigridOptions& o) {
  SS_REQUIRE(a.rows == a.cols, "multigrid: matrix is " << a.rows << "x" << a.cols);
  const auto t0 = std::chrono::steady_clock::now();
  MultigridSetup setup;
  setup.constant_null_space = constant_null_space;
  HostLevel top;
  top.kind = HostLevel::Kind::fine;
  top.size = a.rows;
  top.matrix = a;
  set_matrix_smoother(top, o);
  setup.levels.push_back(std::move(top));
  // The refinement's families first (A_c = R A Rᵀ, P = α Rᵀ), then smoothed aggregation.
  SparseMatrix current = a;
  for (int k = 0; k < o.refinement_families && setup.levels.back().size > o.coarse_size &&
                  int(setup.levels.size()) < o.max_levels;
       ++k) {
    HostLevel& finer = setup.levels.back();
    finer.restriction = family_restriction(finer.size);
    const SparseMatrix tentative = transpose(finer.restriction);
    SparseMatrix coarse = galerkin_product(tentative, current);
    finer.prolongation = tentative;
    for (double& v : finer.prolongation.values) v = o.family_over_correction;
    add_matrix_level(setup, coarse, o, HostLevel::Kind::families);
    current = std::move(coarse);
  }
  add_aggregation_levels(setup, std::move(current), o);
  setup.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return setup;
}

std::vector<std::array<SparseMatrix, 2>> galerkin_parts(const MultigridSetup& setup, SparseMatrix a1) {
  std::vector<std::array<SparseMatrix, 2>> parts(setup.levels.size());
  for (size_t l = 0; l < setup.levels.size(); ++l) {
    const HostLevel& level = setup.levels[l];
    SS_REQUIRE(level.kind != HostLevel::Kind::geometric, "multigrid: a geometric level has no matrix to recombine");
    // R A Rᵀ, as the setup made the level's matrix (the families' P is Rᵀ over-corrected)
    SparseMatrix own = l == 0 ? std::move(a1) : galerkin_product(transpose(setup.levels[l - 1].restriction), parts[l - 1][1]);
    SS_REQUIRE(level.matrix.rows == level.size && own.rows == level.size,
               "multigrid: level " << l << " of " << level.size << " rows has a second part of " << own.rows);
    // Both on the same entries (their union), so that a combination is a loop over the values.
    if (own.offsets == level.matrix.offsets && own.columns == level.matrix.columns) {
      parts[l] = {level.matrix, std::move(own)};
    } else {
      parts[l] = {add(1.0, level.matrix, 0.0, own), add(0.0, level.matrix, 1.0, own)};
    }
  }
  return parts;
}

void recombine_algebraic_multigrid(MultigridSetup& setup, const std::vector<std::array<SparseMatrix, 2>>& parts,
                                   double rho, const MultigridOptions& o) {
  SS_REQUIRE(parts.size() == setup.levels.size(),
             "multigrid: " << parts.size() << " levels of parts for " << setup.levels.size() << " levels");
  for (size_t l = 0; l < setup.levels.size(); ++l) {
    HostLevel& level = setup.levels[l];
    const SparseMatrix &a0 = parts[l][0], &a1 = parts[l][1];
    SS_REQUIRE(a0.rows == level.size && a1.rows == level.size && a0.nonzeros() == a1.nonzeros(),
               "multigrid: level " << l << " of " << level.size << " rows has parts of " << a0.rows << " and "
                                   << a1.rows << " rows, " << a0.nonzeros() << " and " << a1.nonzeros() << " entries");
    level.matrix = a0;  // the pattern both parts share (galerkin_parts)
    const std::int64_t n = a0.nonzeros();
#pragma omp parallel for schedule(static) if (n > 100000)
    for (std::int64_t k = 0; k < n; ++k) level.matrix.values[size_t(k)] = a0.values[size_t(k)] + rho * a1.values[size_t(k)];
    set_matrix_smoother(level, o);
  }
  const SparseMatrix& coarsest = setup.levels.back().matrix;
  setup.coarse = std::make_shared<DirectSolver>(setup.constant_null_space ? pin_first_unknown(coarsest) : coarsest);
}

SparseMatrix family_restriction(std::int32_t fine) {
  SS_REQUIRE(fine % 8 == 0, "multigrid: " << fine << " cells are no uniform refinement's (8 children a cell)");
  SparseMatrix r;
  r.rows = fine / 8, r.cols = fine;
  r.offsets.resize(size_t(r.rows) + 1);
  for (std::int32_t c = 0; c <= r.rows; ++c) r.offsets[size_t(c)] = 8 * c;
  r.columns.resize(size_t(fine));
  for (std::int32_t c = 0; c < fine; ++c) r.columns[size_t(c)] = c;
  r.values.assign(size_t(fine), 1.0);
  return r;
}

std::vector<double> MultigridSetup::solve_coarsest(std::vector<double> b) const {
  if (!constant_null_space) return coarse->solve(b);
  // Pinned unknown 0: for b ⊥ 1 (what the V-cycle restricts from a residual ⊥ 1) the pinned
  // system's solution solves the singular one exactly; the result is made mean-free.
  if (!b.empty()) b[0] = 0.0;
  std::vector<double> x = coarse->solve(b);
  double mean = 0;
  for (double v : x) mean += v;
  mean /= double(std::max<size_t>(x.size(), 1));
  for (double& v : x) v -= mean;
  return x;
}

}  // namespace ss
