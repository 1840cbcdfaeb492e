// Multigrid on the GPU against the CPU reference: the kernels (*IsEquivalentToRef at awkward
// sizes, R32F and RGBA32F, fragment and compute launch), one V-cycle as a whole, and CG iteration
// bounds with the GPU V-cycle on the refined cube and crankshaft.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <tuple>

#include "support/gl_fixture.hpp"
#include "support/test_data.hpp"
#include "multigrid/multigrid.hpp"
#include "multigrid_test_util.hpp"
#include "solver/cg.hpp"

namespace ss::test {
namespace {

struct Config {
  Packing packing;
  LaunchPath launch;
};
std::string config_name(const Config& c) {
  return std::string(to_string(c.packing)) + (c.launch == LaunchPath::compute ? "_compute" : "_fragment");
}
const Config kConfigs[] = {{Packing::r32f, LaunchPath::fragment},
                           {Packing::rgba32f, LaunchPath::fragment},
                           {Packing::r32f, LaunchPath::compute},
                           {Packing::rgba32f, LaunchPath::compute}};

class MultigridGl : public GlTest, public ::testing::WithParamInterface<Config> {
protected:
  GpuBackend gpu() { return make_gpu(GetParam().packing, GetParam().launch); }
};

// A random CSR with 0..9 entries a row (some rows empty) and, every 37th row, up to 80 (so slices
// of the GPU's sliced ELLPACK get padded rows next to long ones), float-exact weights.
SparseMatrix random_matrix(std::int32_t rows, std::int32_t cols, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  SparseMatrix m;
  m.rows = rows;
  m.cols = cols;
  m.offsets.assign(size_t(rows) + 1, 0);
  for (std::int32_t i = 0; i < rows; ++i) {
    const int count = int(rng() % (i % 37 == 5 ? 81 : 10));
    for (int k = 0; k < count; ++k) {
      m.columns.push_back(std::int32_t(rng() % std::uint64_t(cols)));
      m.values.push_back(double(std::int64_t(rng() % 64) - 32) / 16.0);
    }
    m.offsets[size_t(i) + 1] = std::int32_t(m.values.size());
  }
  return m;
}

TEST_P(MultigridGl, SparseApplyIsEquivalentToRef) {
  GpuBackend g = gpu();
  CpuBackend cpu;
  for (const auto& [rows, cols] : {std::pair{1, 3}, std::pair{7, 5}, std::pair{31, 2}, std::pair{33, 97},
                                  std::pair{1025, 1023}, std::pair{1023, 65537}, std::pair{65537, 8193}}) {
    const SparseMatrix m = random_matrix(rows, cols, std::uint64_t(rows * 31 + cols));
    const std::vector<double> x = mixed_values(cols, 11), sub = mixed_values(cols, 12), add = mixed_values(rows, 13);
    GpuSparseMatrix gm(g, m);
    CpuSparseMatrix cm(cpu, m);
    for (int mode = 0; mode < 3; ++mode) {  // plain, with sub, with sub and add (in place)
      Field gx = g.upload(x), gs = g.upload(sub), gy = g.upload(add);
      std::vector<double> cy = add;
      gm.apply(gx, gy, mode >= 1 ? &gs : nullptr, mode == 2 ? &gy : nullptr);
      cm.apply(x, cy, mode >= 1 ? &sub : nullptr, mode == 2 ? &cy : nullptr);
      const std::vector<double> result = g.download(gy);
      for (std::int32_t i = 0; i < rows; ++i) {
        double scale = mode == 2 ? std::fabs(add[size_t(i)]) : 0.0;
        for (std::int32_t k = m.offsets[size_t(i)]; k < m.offsets[size_t(i) + 1]; ++k) {
          const std::int32_t j = m.columns[size_t(k)];
          scale += std::fabs(m.values[size_t(k)]) * (std::fabs(x[size_t(j)]) + (mode >= 1 ? std::fabs(sub[size_t(j)]) : 0));
        }
        // ≤ count + 2 float roundings of the row's terms (products and sums, the subtraction, the add)
        const double roundings = m.offsets[size_t(i) + 1] - m.offsets[size_t(i)] + 3;
        ASSERT_LE(std::fabs(result[size_t(i)] - cy[size_t(i)]), roundings * float_unit_roundoff * scale + 1e-30)
            << rows << "x" << cols << " mode " << mode << " row " << i;
      }
    }
  }
  // A matrix without entries (its tables one padding element) gives zeros.
  GpuSparseMatrix empty(g, from_triplets(5, 3, {}));
  Field gx = g.upload(mixed_values(3, 14)), gy = g.upload(mixed_values(5, 15));
  empty.apply(gx, gy);
  EXPECT_EQ(g.download(gy), std::vector<double>(5, 0.0));
}

// The sliced ELLPACK storage: each slice of kSliceRows rows takes its longest row's length.
TEST_P(MultigridGl, SparseStorageIsPaddedPerSlice) {
  GpuBackend g = gpu();
  std::vector<Triplet> entries;
  for (std::int32_t i = 0; i < 40; ++i) entries.push_back({i, i, 1.0});   // one entry a row
  for (std::int32_t j = 0; j < 4; ++j) entries.push_back({3, 10 + j, 1.0});  // row 3: five
  const GpuSparseMatrix m(g, from_triplets(40, 40, entries));
  const std::int64_t S = GpuSparseMatrix::kSliceRows;
  ASSERT_EQ(S, 32);
  EXPECT_EQ(m.stored_entries(), 5 * S + 1 * S);  // rows 0..31 padded to 5, rows 32..39 (+ padding) to 1
}

TEST_P(MultigridGl, ChebyshevStepIsEquivalentToRef) {
  GpuBackend g = gpu();
  CpuBackend cpu;
  for (std::int64_t n : {1, 2, 7, 1023, 1025, 65537}) {
    const std::vector<double> b = mixed_values(n, 1), ax = mixed_values(n, 2), x0 = mixed_values(n, 3),
                              d0 = mixed_values(n, 4), inv = positive_values(n, 5);
    for (bool zero : {true, false}) {
      Field gb = g.upload(b), gax = g.upload(ax), gx = g.upload(x0), gd = g.upload(d0), ginv = g.upload(inv);
      std::vector<double> cx = x0, cd = d0;
      chebyshev_step(g, gb, zero ? nullptr : &gax, ginv, 0.75, -1.25, gx, gd);
      chebyshev_step(cpu, b, zero ? nullptr : &ax, inv, 0.75, -1.25, cx, cd);
      const std::vector<double> rx = g.download(gx), rd = g.download(gd);
      for (std::int64_t i = 0; i < n; ++i) {
        const size_t k = size_t(i);
        const double r = std::fabs(b[k]) + (zero ? 0 : std::fabs(ax[k]));
        const double dscale = (zero ? 0 : 0.75 * std::fabs(d0[k])) + 1.25 * inv[k] * r;
        ASSERT_LE(std::fabs(rd[k] - cd[k]), 6 * float_unit_roundoff * dscale) << "n " << n << " d at " << i;
        ASSERT_LE(std::fabs(rx[k] - cx[k]), 8 * float_unit_roundoff * (dscale + (zero ? 0 : std::fabs(x0[k]))))
            << "n " << n << " x at " << i;
      }
    }
  }
}

// The Chebyshev step with the sparse product in its own pass (sliced ELLPACK) against the CPU twin
// (CSR product, then the step).
TEST_P(MultigridGl, SparseChebyshevStepIsEquivalentToRef) {
  GpuBackend g = gpu();
  CpuBackend cpu;
  for (std::int32_t n : {1, 2, 31, 33, 1023, 1025, 65537}) {
    const SparseMatrix m = random_matrix(n, n, std::uint64_t(n) * 7 + 1);
    const std::vector<double> b = mixed_values(n, 1), x0 = mixed_values(n, 3), d0 = mixed_values(n, 4),
                              inv = positive_values(n, 5);
    GpuSparseMatrix gm(g, m);
    CpuSparseMatrix cm(cpu, m);
    Field gb = g.upload(b), gx = g.upload(x0), gd = g.upload(d0), ginv = g.upload(inv);
    std::vector<double> cx = x0, cd = d0;
    gm.chebyshev_step(gb, ginv, 0.75, -1.25, gx, gd);
    cm.chebyshev_step(b, inv, 0.75, -1.25, cx, cd);
    const std::vector<double> rx = g.download(gx), rd = g.download(gd);
    for (std::int32_t i = 0; i < n; ++i) {
      const size_t k = size_t(i);
      double r = std::fabs(b[k]);  // scale of b − A x
      for (std::int32_t e = m.offsets[k]; e < m.offsets[k + 1]; ++e)
        r += std::fabs(m.values[size_t(e)] * x0[size_t(m.columns[size_t(e)])]);
      const double dscale = 0.75 * std::fabs(d0[k]) + 1.25 * inv[k] * r;
      // row length + 6 float roundings (products, sums, the step's own operations)
      const double roundings = m.offsets[k + 1] - m.offsets[k] + 6;
      ASSERT_LE(std::fabs(rd[k] - cd[k]), roundings * float_unit_roundoff * dscale) << "n " << n << " d at " << i;
      ASSERT_LE(std::fabs(rx[k] - cx[k]), (roundings + 2) * float_unit_roundoff * (dscale + std::fabs(x0[k])))
          << "n " << n << " x at " << i;
    }
  }
}

// A matrix of selected rows (a halo's send rows: distributed/distributed_flow_operators.hpp) gives
// exactly the full matrix's rows there, on both backends: apply with sub and add, and the
// Chebyshev step's new x and d (its inputs untouched). Rows in any order, repeated, one or many.
std::vector<std::int32_t> some_rows(std::int32_t n, std::int32_t count, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::int32_t> rows;
  for (std::int32_t k = 0; k < count; ++k) rows.push_back(k == 0 ? n - 1 : std::int32_t(rng() % std::uint64_t(n)));
  return rows;
}

template <class T>
std::vector<T> at_rows(const std::vector<T>& v, const std::vector<std::int32_t>& rows) {
  std::vector<T> out;
  for (std::int32_t r : rows) out.push_back(v[size_t(r)]);
  return out;
}

TEST_P(MultigridGl, SelectedRowsAreTheFullRows) {
  GpuBackend g = gpu();
  CpuBackend cpu;
  for (const auto& [n, count] : {std::pair{1, 1}, std::pair{2, 3}, std::pair{31, 5}, std::pair{33, 33},
                                 std::pair{1025, 7}, std::pair{65537, 1023}}) {
    const SparseMatrix m = random_matrix(n, n, std::uint64_t(n) * 5 + 3);
    const std::vector<std::int32_t> rows = some_rows(n, count, std::uint64_t(n + count));
    const std::vector<double> x = mixed_values(n, 21), sub = mixed_values(n, 22), add = mixed_values(n, 23),
                              d = mixed_values(n, 24), inv = positive_values(n, 25);
    GpuSparseMatrix gfull(g, m), gsel(g, m, rows);
    CpuSparseMatrix cfull(cpu, m), csel(cpu, m, rows);
    ASSERT_EQ(gsel.rows(), count);
    ASSERT_EQ(csel.rows(), count);
    // apply: y = add + M (x − sub)
    Field gx = g.upload(x), gs = g.upload(sub), ga = g.upload(add), gy = g.make_vector(n), gys = g.make_vector(count);
    gfull.apply(gx, gy, &gs, &ga);
    gsel.apply(gx, gys, &gs, &ga);
    EXPECT_EQ(g.download(gys), at_rows(g.download(gy), rows)) << "GPU apply, n " << n;
    std::vector<double> cy, cys;
    cfull.apply(x, cy, &sub, &add);
    csel.apply(x, cys, &sub, &add);
    EXPECT_EQ(cys, at_rows(cy, rows)) << "CPU apply, n " << n;
    // The Chebyshev step at the rows (into separate outputs), against the full step.
    Field gb = g.upload(add), gd = g.upload(d), ginv = g.upload(inv), gxs = g.make_vector(count),
          gds = g.make_vector(count);
    const std::vector<double> x_before = g.download(gx), d_before = g.download(gd);
    gsel.chebyshev_rows(gb, ginv, 0.75, -1.25, gx, gd, gxs, gds);
    EXPECT_EQ(g.download(gx), x_before) << "x untouched, n " << n;
    EXPECT_EQ(g.download(gd), d_before) << "d untouched, n " << n;
    gfull.chebyshev_step(gb, ginv, 0.75, -1.25, gx, gd);
    EXPECT_EQ(g.download(gxs), at_rows(g.download(gx), rows)) << "GPU chebyshev x, n " << n;
    EXPECT_EQ(g.download(gds), at_rows(g.download(gd), rows)) << "GPU chebyshev d, n " << n;
    std::vector<double> cx = x, cd = d, cxs, cds;
    csel.chebyshev_rows(add, inv, 0.75, -1.25, cx, cd, cxs, cds);
    cfull.chebyshev_step(add, inv, 0.75, -1.25, cx, cd);
    EXPECT_EQ(cxs, at_rows(cx, rows)) << "CPU chebyshev x, n " << n;
    EXPECT_EQ(cds, at_rows(cd, rows)) << "CPU chebyshev d, n " << n;
  }
}

MultigridOptions small_coarse() {
  MultigridOptions o;
  o.coarse_size = 60;
  return o;
}

// One V-cycle (geometric levels, aggregation below the base mesh, CHOLMOD at the bottom) on the GPU
// equals the CPU reference's to float accuracy.
TEST_P(MultigridGl, VcycleIsEquivalentToRef) {
  HierarchyProblem h = make_hierarchy_problem("cube.msh", 1);
  GpuBackend g = gpu();
  CpuBackend cpu;
  GpuHeatOperator gop(g, h.data);
  CpuHeatOperator cop(h.data);
  gop.set_dirichlet(h.problem.dirichlet_nodes);
  cop.set_dirichlet(h.problem.dirichlet_nodes);
  Multigrid<GpuBackend> gmg(g, gop, &h.geometric, 0.0, 1.0, small_coarse());
  Multigrid<CpuBackend> cmg(cpu, cop, &h.geometric, 0.0, 1.0, small_coarse());
  ASSERT_GE(gmg.num_levels(), 3) << gmg.setup().describe();
  const std::vector<double> r = mixed_values(gop.num_nodes(), 9, 0, 0);
  Field gr = g.upload(r), gz = g.make_vector(gop.num_nodes());
  std::vector<double> cz;
  gmg(gr, gz);
  cmg(r, cz);
  const std::vector<double> z = g.download(gz);
  // Float rounding through ~10 passes a level and 4 levels, on values of size max|z|.
  EXPECT_LE(max_rel_diff(z, cz), 1e-4 * max_abs(cz)) << gmg.setup().describe();
}

INSTANTIATE_TEST_SUITE_P(Configs, MultigridGl, ::testing::ValuesIn(kConfigs),
                         [](const auto& info) { return config_name(info.param); });

class MultigridGlCg : public GlTest {};

// CG + the GPU V-cycle: iterations to 1e-6 stay <= 40 and do not grow with refinement.
TEST_F(MultigridGlCg, IterationsBoundedOnRefinedCubeAndCrank) {
  GpuBackend g = make_gpu();
  for (const char* file : {"cube.msh", "crank.msh"}) {
    const int max_refine = std::string(file) == "cube.msh" ? 2 : 1;
    int previous = 0;
    for (int refine = 0; refine <= max_refine; ++refine) {
      HierarchyProblem h = make_hierarchy_problem(file, refine);
      GpuHeatOperator op(g, h.data);
      op.set_dirichlet(h.problem.dirichlet_nodes);
      std::vector<double> x0(size_t(op.num_nodes()), 0.0);
      for (size_t k = 0; k < h.problem.dirichlet_nodes.size(); ++k)
        x0[size_t(h.problem.dirichlet_nodes[k])] = h.problem.dirichlet_values[k];
      Field x = g.upload(x0), load = g.upload(h.problem.load), b = g.make_vector(op.num_nodes());
      op.dirichlet_rhs(load, x, 1.0, b);
      Multigrid<GpuBackend> mg(g, op, &h.geometric, 0.0, 1.0, small_coarse());
      CgOptions o;
      o.tolerance = 1e-6;
      o.max_iterations = 200;
      const auto apply = [&](const Field& u, Field& v) { op.apply_system(0.0, 1.0, u, v); };
      const CgResult r = preconditioned_conjugate_gradient(g, apply, b, x, mg, o);
      std::printf("gpu %s refine %d: %d iterations, levels %s\n", file, refine, r.iterations, mg.setup().describe().c_str());
      EXPECT_TRUE(r.converged) << r.stop_reason;
      EXPECT_LE(r.iterations, 40) << file << " refine " << refine;
      if (previous > 1) {
        EXPECT_LE(r.iterations, previous + 4) << file << " refine " << refine;
      }
      previous = r.iterations;
    }
  }
}

}  // namespace
}  // namespace ss::test
