#pragma once
// Multigrid preconditioner for the heat system a·M + s·K̃ (fixed nodes eliminated), or for any SPD
// sparse matrix (algebraic: the flow pressure operator, also with the constants as null space), on
// either backend: one symmetric V-cycle from z = 0 per application, z = M⁻¹ r, so CG stays valid.
// The cycle is v_cycle.hpp's; this class is its hierarchy (the levels below), whose steps are:
//
//     coarsest:    x = A_l⁻¹ b                      (CHOLMOD on the host: download b, solve, upload x;
//                                                    or with_dense_coarsest: A_l⁻¹ dense, one product)
//     smoothing:   x = S_l(b, from 0), x += S_l(b − A_l x)   (Chebyshev, degree m: p(D⁻¹A) D⁻¹ r)
//     restriction: b_{l+1} = R_l (b − A_l x)         (one gather pass)
//     correction:  x = x + P_l x_{l+1}               (one gather pass)
//
// Chebyshev on [λ_lo, λ_hi] = [upper·λ/ratio, upper·λ] (λ ≈ λmax(D⁻¹A), CG-Lanczos at setup):
// θ = (λ_hi + λ_lo)/2, δ = (λ_hi − λ_lo)/2, σ = θ/δ, ρ₀ = 1/σ;
// step 0: d = D⁻¹r / θ;  step k: ρ_k = 1/(2σ − ρ_{k−1}), d = ρ_k ρ_{k−1} d + (2ρ_k/δ) D⁻¹ r;  x += d.
// Each step is one fused pass (shaders/mg_chebyshev.glsl) after A x (none for step 0 from zero); on
// a matrix level the pass forms A x itself (chebyshev_smooth's `matrix`).
// The level operators: the caller's heat operator or operator function (finest), rediscretised heat
// operators (coarser meshes), sparse matrices (aggregation levels); transfers are sparse gathers.
// Constant null space: every aggregation level keeps it (P_tent holds the constants, A_c 1_c =
// Pᵀ A 1 = 0), restriction keeps b ⊥ 1, and the coarsest is solved with one unknown pinned then
// made mean-free (MultigridSetup::solve_coarsest): the cycle stays symmetric, and positive on the
// complement of the constants where CG's residuals live.
#include <array>
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "multigrid/multigrid_ops.hpp"
#include "multigrid/multigrid_setup.hpp"
#include "multigrid/v_cycle.hpp"
#include "util/error.hpp"

namespace ss {

template <class Backend>
class Multigrid {
public:
  using Vector = typename Backend::Vector;
  using HeatOp = typename MultigridTypes<Backend>::HeatOperator;
  using Sparse = typename MultigridTypes<Backend>::Sparse;

  using LevelApply = std::function<void(const Vector&, Vector&)>;

  // `fine` has its fixed nodes set (the system CG solves); `geometric` may be null (no hierarchy).
  Multigrid(Backend& backend, HeatOp& fine, const GeometricLevels* geometric, double a, double s,
            const MultigridOptions& options = {})
      : backend_(backend), a_(a), s_(s), options_(options),
        setup_(setup_multigrid(fine.data(), fine.dirichlet(), geometric, a, s, options)) {
    build_levels(&fine, geometric, {});
  }

  // Algebraic: any SPD matrix `a` (constant_null_space: semi-definite, null space the constants;
  // setup_algebraic_multigrid). The finest level applies `fine_apply` (y = A x, the caller's
  // matrix-free operator, e.g. the flow pressure operator) or, when empty, `a` as a sparse matrix.
  Multigrid(Backend& backend, const SparseMatrix& a, bool constant_null_space, LevelApply fine_apply = {},
            const MultigridOptions& options = {})
      : backend_(backend), a_(0), s_(0), options_(options),
        setup_(setup_algebraic_multigrid(a, constant_null_space, options)) {
    build_levels(nullptr, nullptr, std::move(fine_apply));
  }

  // A finest level the host does not hold (made on the GPU): `fine_apply` is its system y = A x,
  // `fine` its smoother's data, `geometric` the levels below it (setup_multigrid_below_finest).
  Multigrid(Backend& backend, LevelApply fine_apply, const FinestSmoother& fine, const GeometricLevels& geometric, double a,
            double s, const MultigridOptions& options = {})
      : backend_(backend), a_(a), s_(s), options_(options),
        setup_(setup_multigrid_below_finest(fine, geometric, a, s, options)) {
    build_levels(nullptr, &geometric, std::move(fine_apply));
  }

  // Algebraic, every level a matrix: the levels of another member A(ρ) of a family whose levels'
  // parts are `parts` (galerkin_parts of setup()), sent to the backend again; the transfers stay.
  void recombine(const std::vector<std::array<SparseMatrix, 2>>& parts, double rho) {
    for (const Level& v : levels_) SS_REQUIRE(v.matrix, "multigrid: only a hierarchy of matrices recombines");
    recombine_algebraic_multigrid(setup_, parts, rho, options_);
    for (size_t l = 0; l < levels_.size(); ++l) {
      levels_[l].matrix.reset();  // the old one's memory goes first
      levels_[l].matrix = std::make_unique<Sparse>(backend_, setup_.levels[l].matrix);
      set_smoother(levels_[l], setup_.levels[l], l + 1 == levels_.size());
    }
  }

  // z = M⁻¹ r (one V-cycle from zero; one level: the coarsest solve).
  void operator()(const Vector& r, Vector& z) { v_cycle(*this, 0, r, z); }

  const MultigridSetup& setup() const { return setup_; }
  int num_levels() const { return int(levels_.size()); }

private:
  template <class Hierarchy, class V>
  friend void v_cycle(Hierarchy& h, std::size_t l, const V& b, V& x);

  struct Level {
    std::int32_t size = 0;
    HeatOp* heat = nullptr;
    LevelApply op;  // the algebraic finest level's caller operator
    std::unique_ptr<HeatOp> own_heat;
    std::unique_ptr<Sparse> matrix, prolongation, restriction;
    Vector inverse_diagonal, b, x, ax, d;
    double theta = 1, delta = 0;
  };

  void build_levels(HeatOp* fine, const GeometricLevels* geometric, LevelApply fine_apply) {
    for (size_t l = 0; l < setup_.levels.size(); ++l) {
      const HostLevel& h = setup_.levels[l];
      Level v;
      v.size = h.size;
      if (h.kind == HostLevel::Kind::fine && fine) {
        v.heat = fine;
      } else if (h.kind == HostLevel::Kind::fine && fine_apply) {
        v.op = std::move(fine_apply);
      } else if (h.kind == HostLevel::Kind::geometric) {
        v.own_heat = std::make_unique<HeatOp>(make_heat(geometric->operators[size_t(h.geometric_level)], h.fixed_nodes));
        v.heat = v.own_heat.get();
      } else {
        v.matrix = std::make_unique<Sparse>(backend_, h.matrix);
      }
      v.b = backend_.make_vector(h.size);
      v.x = backend_.make_vector(h.size);
      const bool coarsest = l + 1 == setup_.levels.size();
      if (!coarsest) {
        v.ax = backend_.make_vector(h.size);
        v.d = backend_.make_vector(h.size);
        v.prolongation = std::make_unique<Sparse>(backend_, h.prolongation);
        v.restriction = std::make_unique<Sparse>(backend_, h.restriction);
      }
      set_smoother(v, h, coarsest);
      levels_.push_back(std::move(v));
    }
  }

  // A level's smoother (its inverse diagonal and Chebyshev interval), or the coarsest's solve.
  void set_smoother(Level& v, const HostLevel& h, bool coarsest) {
    if (coarsest) {
      if (h.size > options_.coarsest_inverse_on_backend) return;  // solved on the host from setup_
      coarsest_inverse_.reset();
      coarsest_inverse_ = std::make_unique<Sparse>(backend_, coarsest_inverse(h.size));
      return;
    }
    v.inverse_diagonal = backend_.upload(h.inverse_diagonal);
    const double hi = options_.smoother_upper * h.lambda_max, lo = hi / options_.smoother_ratio;
    v.theta = 0.5 * (hi + lo);
    v.delta = 0.5 * (hi - lo);
  }

  HeatOp make_heat(const HeatOperatorData& data, const std::vector<std::int32_t>& fixed_nodes) {
    auto shared = std::make_shared<const HeatOperatorData>(data);
    if constexpr (std::is_same_v<Backend, CpuBackend>) return HeatOp(std::move(shared), fixed_nodes);
    else return HeatOp(backend_, std::move(shared), fixed_nodes);
  }

  // The hierarchy of v_cycle.hpp (with num_levels above).
  Vector& rhs(size_t l) { return levels_[l].b; }
  Vector& solution(size_t l) { return levels_[l].x; }

  void apply(size_t l, const Vector& x, Vector& y) {
    Level& v = levels_[l];
    if (v.op) v.op(x, y);
    else if (v.heat) v.heat->apply_system(a_, s_, x, y);
    else v.matrix->apply(x, y);
  }

  // x = x + p(D⁻¹A) D⁻¹ (b − A x), or from x = 0 (zero_start); a matrix level forms A x in the
  // step's own pass.
  void smooth(size_t l, const Vector& b, Vector& x, bool zero_start) {
    Level& v = levels_[l];
    Sparse* fused = v.matrix && !v.op && !v.heat ? v.matrix.get() : nullptr;
    chebyshev_smooth(backend_, [&](const Vector& in, Vector& out) { apply(l, in, out); }, b, v.inverse_diagonal,
                     v.theta, v.delta, options_.smoother_degree, zero_start, x, v.ax, v.d, fused);
  }

  void restrict_residual(size_t l, const Vector& b, const Vector& x, Vector& b_coarse) {
    Vector& ax = levels_[l].ax;
    apply(l, x, ax);
    levels_[l].restriction->apply(b, b_coarse, &ax);
  }
  void prolongate_add(size_t l, const Vector& x_coarse, Vector& x) {
    levels_[l].prolongation->apply(x_coarse, x, nullptr, &x);
  }
  void after_correction(size_t, Vector&) {}  // nothing: a level's vectors are whole
  void coarsest_solve(size_t, const Vector& b, Vector& x) {
    if (coarsest_inverse_) return coarsest_inverse_->apply(b, x);
    set_values(backend_, x, setup_.solve_coarsest(backend_.download(b)));
  }

  // The coarsest solve as a dense matrix: column j is the solve of the unit vector e_j.
  SparseMatrix coarsest_inverse(std::int32_t n) const {
    std::vector<Triplet> entries;
    entries.reserve(size_t(n) * size_t(n));
    std::vector<double> unit(size_t(n), 0.0);
    for (std::int32_t j = 0; j < n; ++j) {
      unit[size_t(j)] = 1.0;
      const std::vector<double> column = setup_.solve_coarsest(unit);
      unit[size_t(j)] = 0.0;
      for (std::int32_t i = 0; i < n; ++i) entries.push_back({i, j, column[size_t(i)]});
    }
    return from_triplets(n, n, std::move(entries));
  }

  Backend& backend_;
  double a_, s_;
  MultigridOptions options_;
  MultigridSetup setup_;
  std::vector<Level> levels_;
  std::unique_ptr<Sparse> coarsest_inverse_;  // options_.coarsest_inverse_on_backend
};

}  // namespace ss

namespace ss {

// What a multigrid factory reports: setup seconds (all builds) and the last level list.
struct MultigridStats {
  double setup_seconds = 0;
  int builds = 0;
  std::string levels;
};

// A preconditioner factory for the heat solve (physics/heat_solver.hpp: PreconditionerFactory):
// builds the multigrid of the system a·M + s·K̃ (`build(a, s)`) on first use and again only when
// (a, s) changes.
template <class Backend>
std::function<std::function<void(const typename Backend::Vector&, typename Backend::Vector&)>(double, double)>
cached_multigrid_factory(Backend& backend, std::function<std::unique_ptr<Multigrid<Backend>>(double, double)> build,
                         MultigridStats* stats = nullptr) {
  using Vector = typename Backend::Vector;
  struct Cache {
    double a = 0, s = 0;
    std::unique_ptr<Multigrid<Backend>> mg;
  };
  auto cache = std::make_shared<Cache>();
  return [cache, &backend, build = std::move(build), stats](double a, double s) {
    if (!cache->mg || cache->a != a || cache->s != s) {
      const auto t0 = std::chrono::steady_clock::now();
      cache->mg.reset();
      cache->mg = build(a, s);
      backend.finish();
      cache->a = a;
      cache->s = s;
      if (stats) {
        stats->setup_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        ++stats->builds;
        stats->levels = cache->mg->setup().describe();
      }
    }
    Multigrid<Backend>* mg = cache->mg.get();
    return std::function<void(const Vector&, Vector&)>([mg](const Vector& r, Vector& z) { (*mg)(r, z); });
  };
}

// The factory of the heat operator `op` (host tables: its finest level) and its coarser `geometric`
// levels. `op` must have its fixed nodes set when the factory is called (solve_heat does that first).
template <class Backend>
std::function<std::function<void(const typename Backend::Vector&, typename Backend::Vector&)>(double, double)>
multigrid_factory(Backend& backend, typename MultigridTypes<Backend>::HeatOperator& op, const GeometricLevels* geometric,
                  const MultigridOptions& options = {}, MultigridStats* stats = nullptr) {
  return cached_multigrid_factory<Backend>(
      backend,
      [&backend, &op, geometric, options](double a, double s) {
        return std::make_unique<Multigrid<Backend>>(backend, op, geometric, a, s, options);
      },
      stats);
}

}  // namespace ss
