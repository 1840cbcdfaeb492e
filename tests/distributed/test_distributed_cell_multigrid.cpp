// The flow pressure multigrid over the ranks (distributed/distributed_pressure_multigrid.hpp) under
// `mpiexec -n N` (N = 1..3; every rank runs every test), on the cube's base pieces refined twice
// by the ranks with the pressure operator of tests/distributed/cube_lid_flow.toml (walls all round:
// singular, the constants its null space):
//   - each coarser level is the Galerkin product R A Rᵀ of the finer one (children summed), its
//     halo gives every ghost its owner's value, and it has an eighth of the finer level's cells;
//   - one V-cycle on the GPU (llvmpipe in CI) equals the CPU reference's (double) to float accuracy;
//   - the V-cycle is symmetric over the ranks and positive on mean-free vectors: what CG asks of a
//     preconditioner;
//   - it is a good one: CG needs few iterations with it (to 1e-8), several times fewer than with its
//     smoother alone (α = 0: no coarse correction);
//   - a coarser level over the ranks makes two halo round trips a V-cycle and the finest three (the
//     smoothing on each rank's block makes none), one fewer each just above the gathered coarsest
//     level (the post-smoothing's residual from the whole coarse answer); with a coarser level
//     gathered whole onto every rank (MultigridOptions::gather_size), the coarser levels make none
//     and CG's iterations stay within 1.
// And which flow operators need no halo exchange after them (GhostsExactWithoutExchange).
// The whole flow run against the serial one (fields, iterations over rank counts) is check_flow_mpi.py's.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include <mpi.h>

#include "support/gl_fixture.hpp"
#include "support/mpi_test_helpers.hpp"
#include "distributed/distributed_flow.hpp"
#include "distributed/distributed_flow_operators.hpp"
#include "distributed/distributed_pressure_multigrid.hpp"
#include "mesh/load_mesh.hpp"
#include "multigrid/pressure_matrix.hpp"
#include "operators/cpu_mesh_operators.hpp"
#include "operators/curl_curl_viscous.hpp"
#include "operators/eigen_estimate.hpp"
#include "operators/mesh_operator_tables.hpp"
#include "parallel/distributed_backend.hpp"
#include "parallel/mpi_env.hpp"
#include "parallel/piece_assignment.hpp"
#include "cases/flow_case.hpp"
#include "problems/flow_case_problem.hpp"
#include "solver/cg.hpp"

namespace ss {
namespace {

constexpr int kLevels = 2;

// Every rank's piece of the case and its pressure operator, built once per process as the flow
// command builds them.
struct Pieces {
  EntityPiece piece;
  LoadedMesh local;
  FlowProblem problem;
  CellLevel finest;
};
const Pieces& pieces() {
  static std::unique_ptr<Pieces> p = [] {
    PieceAssignment a = test::assign_pieces("meshes/cube.msh", kLevels, "tests/distributed/cube_lid_flow.toml");
    auto out = std::make_unique<Pieces>();
    const FineCounts fine = refined_entity_counts(a.base, a.levels);
    out->piece = refine_entity_piece(a.base, a.levels, MPI_COMM_WORLD);
    LoadOptions in_order;
    in_order.renumber = false;
    out->local = prepare_mesh(std::move(out->piece.mesh), in_order);
    out->problem = build_flow_problem(parse_flow_case(a.case_text, a.case_path), out->local,
                                      {&a.groups, &out->piece.cut});
    const FlowProblem& problem = out->problem;
    const MeshOperatorTables tables = build_mesh_operator_tables(out->local.topology, out->local.geometry);
    const FlowOperatorData data = piece_operator_data(tables, problem, out->piece, fine.cells);
    EXPECT_FALSE(data.pressure_fixed);  // walls all round
    out->finest = finest_cell_level(out->piece.cells.global, out->piece.cells.owned, out->piece.cells.links,
                                    pressure_matrix(tables, data), MPI_COMM_WORLD);
    return out;
  }();
  return *p;
}

using test::max_over_ranks;
using test::sum_over_ranks;

// Σ over every rank's owned cells of x·y.
double dot(const CellLevel& level, const std::vector<double>& x, const std::vector<double>& y) {
  double s = 0;
  for (std::int32_t i : level.owned_cells(mpi::rank())) s += x[size_t(i)] * y[size_t(i)];
  return sum_over_ranks(s);
}

// y = A x on the owned rows (x on every local cell; ghost rows 0).
std::vector<double> owned_rows(const CellLevel& level, const std::vector<double>& x) {
  const SparseMatrix& m = level.matrix;
  std::vector<double> y(x.size(), 0.0);
  for (size_t i = 0; i < x.size(); ++i)
    for (std::int32_t k = m.offsets[i]; k < m.offsets[i + 1]; ++k) y[i] += m.values[size_t(k)] * x[size_t(m.columns[size_t(k)])];
  return y;
}

// A vector on every local cell from the global ids (the same on every rank count), made mean-free
// over the whole mesh (the operator's range).
std::vector<double> mean_free_values(const CellLevel& level, std::uint64_t seed) {
  std::vector<double> r(level.global.size());
  for (size_t i = 0; i < r.size(); ++i) r[i] = lanczos_start_value(std::uint64_t(level.global[i]) * 7919u + seed);
  const double mean = sum_over_ranks([&] {
                        double s = 0;
                        for (std::int32_t i : level.owned_cells(mpi::rank())) s += r[size_t(i)];
                        return s;
                      }()) / double(level.whole);
  for (double& v : r) v -= mean;
  return r;
}

// One backend's V-cycle on the pieces; its finest residuals take the piece's matrix without an
// exchange (its ghost rows wrong where their stencil leaves the piece), CG's operator (apply) the
// same with the output's ghosts from their owners (as the flow's distributed pressure operator).
template <class Backend>
struct VCycle {
  using Sparse = typename SparseMatrixOn<Backend>::type;
  Backend& backend;
  Sparse a;
  HaloExchange<Backend> halo;
  DistributedPressureMultigrid<Backend> mg;

  VCycle(Backend& b, const Pieces& p, double over_correction = MultigridOptions{}.family_over_correction,
         std::int32_t gather_size = 0)
      : backend(b), a(b, p.finest.matrix), halo(b, p.finest.links, MPI_COMM_WORLD),
        mg(b, p.finest, halo, [this](const auto& x, auto& y) { a.apply(x, y); }, kLevels, true,
           options(over_correction, gather_size), MPI_COMM_WORLD) {}
  // gather_size 0: every level over the ranks down to the base mesh (1,125 cells ≤ coarse_size).
  static MultigridOptions options(double over_correction, std::int32_t gather_size) {
    MultigridOptions o;
    o.family_over_correction = over_correction;
    o.gather_size = gather_size;
    return o;
  }
  void apply(const typename Backend::Vector& x, typename Backend::Vector& y) {
    a.apply(x, y);
    halo.update(y);
  }
  std::vector<double> operator()(const std::vector<double>& r) {
    const auto in = backend.upload(r);
    auto out = backend.make_vector(std::int64_t(r.size()));
    mg(in, out);
    return backend.download(out);
  }
};

class DistributedCellMultigridTest : public test::GlTest {};

TEST_F(DistributedCellMultigridTest, CoarserLevelsAreGalerkinProducts) {
  const Pieces& p = pieces();
  const int me = mpi::rank();
  CpuBackend cpu;
  CellLevel fine = p.finest;
  for (int level = 0; level < kLevels; ++level) {
    std::vector<std::int32_t> parent;
    CellLevel coarse = coarsen_cells(fine, parent, MPI_COMM_WORLD);
    EXPECT_EQ(coarse.whole * 8, fine.whole) << "level " << level;
    // x_C from the coarse global ids; Rᵀ x_C on the fine cells is x at each one's parent id.
    const auto value = [](std::int64_t g) { return lanczos_start_value(std::uint64_t(g) * 31u + 5u); };
    std::vector<double> xc(coarse.global.size()), xf(fine.global.size());
    for (size_t c = 0; c < xc.size(); ++c) xc[c] = value(coarse.global[c]);
    for (size_t i = 0; i < xf.size(); ++i) xf[i] = value(fine.global[i] / 8);
    const std::vector<double> coarse_rows = owned_rows(coarse, xc), fine_rows = owned_rows(fine, xf);
    std::vector<double> summed(coarse.global.size(), 0.0);  // R (A Rᵀ x_C): the children's rows summed
    for (size_t i = 0; i < fine.global.size(); ++i)
      if (fine.owner[i] == me) {
        ASSERT_GE(parent[i], 0);
        ASSERT_EQ(coarse.global[size_t(parent[i])], fine.global[i] / 8);
        ASSERT_EQ(coarse.owner[size_t(parent[i])], me);
        summed[size_t(parent[i])] += fine_rows[i];
      }
    double diff = 0, size = 0;
    for (std::int32_t c : coarse.owned_cells(me)) {
      diff = std::max(diff, std::fabs(coarse_rows[size_t(c)] - summed[size_t(c)]));
      size = std::max(size, std::fabs(summed[size_t(c)]));
    }
    diff = max_over_ranks(diff), size = max_over_ranks(size);
    EXPECT_GT(size, 0.0);
    EXPECT_LE(diff, 1e-12 * size) << "level " << level;
    // The coarse halo: every ghost gets its owner's value.
    std::vector<double> ids(coarse.global.size(), -1.0);
    for (std::int32_t c : coarse.owned_cells(me)) ids[size_t(c)] = double(coarse.global[size_t(c)]);
    HaloExchange<CpuBackend> halo(cpu, coarse.links, MPI_COMM_WORLD);
    halo.update(ids);
    for (size_t c = 0; c < ids.size(); ++c) EXPECT_EQ(ids[c], double(coarse.global[c])) << "coarse cell " << c;
    fine = std::move(coarse);
  }
}

TEST_F(DistributedCellMultigridTest, HasEveryLevelDownToTheBaseMesh) {
  const Pieces& p = pieces();
  CpuBackend cpu;
  VCycle<CpuBackend> v(cpu, p);
  EXPECT_EQ(v.mg.num_levels(), kLevels + 1);  // cube.msh's 1,125 cells (≤ coarse_size): the base is the coarsest
  EXPECT_EQ(v.mg.coarsest_size(), p.finest.whole / 64);
}

TEST_F(DistributedCellMultigridTest, GpuVCycleIsEquivalentToRef) {
  const Pieces& p = pieces();
  CpuBackend cpu;
  VCycle<CpuBackend> ref(cpu, p);
  GpuBackend gpu = make_gpu();
  VCycle<GpuBackend> dev(gpu, p);
  const std::vector<double> r = mean_free_values(p.finest, 1);
  const std::vector<double> z_ref = ref(r), z = dev(r);
  double diff = 0, size = 0;
  for (size_t i = 0; i < z.size(); ++i) {  // ghosts too: the finest level's are right
    diff = std::max(diff, std::fabs(z[i] - z_ref[i]));
    size = std::max(size, std::fabs(z_ref[i]));
  }
  diff = max_over_ranks(diff), size = max_over_ranks(size);
  ASSERT_GT(size, 0.0);
  // float storage through 3 levels of smoothing and transfers: a few float epsilons of |z|
  EXPECT_LE(diff, 2e-5 * size);
}

TEST_F(DistributedCellMultigridTest, VCycleIsSymmetricAndPositiveOverTheRanks) {
  const Pieces& p = pieces();
  CpuBackend cpu;
  VCycle<CpuBackend> v(cpu, p);
  const std::vector<double> r1 = mean_free_values(p.finest, 1), r2 = mean_free_values(p.finest, 2);
  const std::vector<double> z1 = v(r1), z2 = v(r2);
  const double a = dot(p.finest, z1, r2), b = dot(p.finest, r1, z2);
  EXPECT_NEAR(a, b, 1e-11 * std::sqrt(dot(p.finest, z1, z1) * dot(p.finest, r2, r2)));
  EXPECT_GT(dot(p.finest, z1, r1), 0.0);
  EXPECT_GT(dot(p.finest, z2, r2), 0.0);
}

// Iterations of CG preconditioned by `v` over the ranks to solve A x = b for a mean-free b to 1e-8.
int cg_iterations(const Pieces& p, VCycle<CpuBackend>& v) {
  const CellLevel& f = p.finest;
  CpuBackend cpu;
  std::vector<double> marker(f.global.size(), 0.0);
  for (std::int32_t i : f.owned_cells(mpi::rank())) marker[size_t(i)] = 1.0;
  DistributedBackend<CpuBackend> dist(cpu, marker, MPI_COMM_WORLD);
  const std::vector<double> b = mean_free_values(f, 3);
  std::vector<double> x(b.size(), 0.0);
  CgOptions options;
  options.tolerance = 1e-8;
  options.max_iterations = 2000;
  const CgResult r = preconditioned_conjugate_gradient(
      dist, [&](const std::vector<double>& in, std::vector<double>& out) { v.apply(in, out); }, b, x,
      [&](const std::vector<double>& in, std::vector<double>& out) { v.mg(in, out); }, options);
  EXPECT_TRUE(r.converged);
  return r.iterations;
}

TEST_F(DistributedCellMultigridTest, IsAGoodPreconditioner) {
  // CG's iterations with the V-cycle against those with its smoother alone (α = 0: no coarse
  // correction), which grow like 1/h; the rank count changes neither.
  const Pieces& p = pieces();
  CpuBackend cpu;
  VCycle<CpuBackend> with(cpu, p), without(cpu, p, 0.0);
  const int multigrid = cg_iterations(p, with), smoother_only = cg_iterations(p, without);
  if (mpi::rank() == 0) std::printf("CG to 1e-8: %d iterations with the V-cycle, %d with its smoother alone\n", multigrid, smoother_only);
  EXPECT_LE(multigrid, 25);
  EXPECT_GE(smoother_only, 3 * multigrid);
}

// Level 1 (9,000 cells) gathered whole onto every rank: the V-cycle keeps two levels over the
// ranks' halos no more (the gathered level's smoothing runs in the serial multigrid, whose levels
// below it are the same refinement families), and it is as good a preconditioner as the cycle
// over the ranks to the base mesh (CG iterations within 1), symmetric and positive, on the GPU too.
TEST_F(DistributedCellMultigridTest, GatheredLevelMakesNoRoundTripsAndPreconditionsAsWell) {
  const Pieces& p = pieces();
  CpuBackend cpu;
  const std::int32_t gather = std::int32_t(p.finest.whole / 8);
  VCycle<CpuBackend> over_ranks(cpu, p), gathered(cpu, p, MultigridOptions{}.family_over_correction, gather);
  EXPECT_EQ(gathered.mg.num_levels(), 2);
  EXPECT_EQ(gathered.mg.coarsest_size(), p.finest.whole / 8);
  const std::vector<double> r1 = mean_free_values(p.finest, 1), r2 = mean_free_values(p.finest, 2);
  const std::vector<double> z1 = gathered(r1), z2 = gathered(r2);
  const std::int64_t before = over_ranks.mg.coarser_halo_exchanges(), finest_before = over_ranks.halo.exchanges();
  over_ranks(r1);
  EXPECT_EQ(gathered.mg.coarser_halo_exchanges(), 0);  // level 0's round trips are the caller's halo's
  // Level 1 over the ranks, above the gathered base mesh: A x for the restriction; its smoothing on
  // each rank's block and its post-smoothing's residual (from the restriction's and the whole coarse
  // answer) make none.
  EXPECT_EQ(over_ranks.mg.coarser_halo_exchanges() - before, 1);
  // Level 0: x's ghosts before the restriction, after the correction and after the post-smoothing
  // (its smoothing on each rank's block, its residuals on the owned cells, make none) ...
  EXPECT_EQ(over_ranks.halo.exchanges() - finest_before, 3);
  // ... and above the gathered level its post-smoothing's residual needs no ghosts: 2.
  const std::int64_t gathered_before = gathered.halo.exchanges();
  gathered(r1);
  EXPECT_EQ(gathered.halo.exchanges() - gathered_before, 2);
  const double a = dot(p.finest, z1, r2), b = dot(p.finest, r1, z2);
  EXPECT_NEAR(a, b, 1e-11 * std::sqrt(dot(p.finest, z1, z1) * dot(p.finest, r2, r2)));
  EXPECT_GT(dot(p.finest, z1, r1), 0.0);
  const int with_gather = cg_iterations(p, gathered), without = cg_iterations(p, over_ranks);
  if (mpi::rank() == 0) std::printf("CG to 1e-8: %d iterations with level 1 gathered, %d over the ranks\n", with_gather, without);
  EXPECT_LE(std::abs(with_gather - without), 1);
  GpuBackend gpu = make_gpu();
  VCycle<GpuBackend> dev(gpu, p, MultigridOptions{}.family_over_correction, gather);
  const std::vector<double> z = dev(r1);
  double diff = 0, size = 0;
  for (size_t i = 0; i < z.size(); ++i) {
    diff = std::max(diff, std::fabs(z[i] - z1[i]));
    size = std::max(size, std::fabs(z1[i]));
  }
  diff = max_over_ranks(diff), size = max_over_ranks(size);
  ASSERT_GT(size, 0.0);
  EXPECT_LE(diff, 2e-5 * size);
}

// CG over the ranks with an operator marked halo_last (its last step on y is the halo update of y's
// ghosts, solver/cg.hpp): the textbook variant's p·Ap, and single_sync's one reduction after its
// product, are queued inside that update, so that one wait serves both — every iteration's ran
// there (DistributedBackend::queued_in_halo_updates) — and the iterates are the unmarked solve's
// bit for bit. With Jacobi the textbook ||r||² and r·z share one reduction: 1 + 2k MPI_Allreduce
// calls for k iterations.
TEST_F(DistributedCellMultigridTest, HaloLastProductQueuesItsDotInsideTheHaloUpdate) {
  const Pieces& p = pieces();
  const CellLevel& f = p.finest;
  CpuBackend cpu;
  std::vector<double> marker(f.global.size(), 0.0);
  for (std::int32_t i : f.owned_cells(mpi::rank())) marker[size_t(i)] = 1.0;
  HaloExchange<CpuBackend> halo(cpu, f.links, MPI_COMM_WORLD);
  DistributedBackend<CpuBackend> dist(cpu, marker, MPI_COMM_WORLD);
  dist.attach_halo(std::int64_t(marker.size()), halo);
  SparseMatrixOn<CpuBackend>::type a(cpu, f.matrix);
  std::vector<double> inverse_diagonal = cell_inverse_diagonal(f, mpi::rank());
  halo.update(inverse_diagonal);  // right on the ghosts, as the flow's vectors
  const auto product = [&](const std::vector<double>& x, std::vector<double>& y) {
    a.apply(x, y);
    dist.update_ghosts(y);
  };
  const std::vector<double> b = mean_free_values(f, 5);
  for (CgVariant variant : {CgVariant::textbook, CgVariant::single_sync}) {
    SCOPED_TRACE(to_string(variant));
    CgOptions options;
    options.tolerance = 1e-6;
    options.max_iterations = 5000;
    options.variant = variant;
    std::vector<double> plain_x(b.size(), 0.0), marked_x(b.size(), 0.0);
    const std::int64_t allreduces_before = dist.allreduces(), queued_before = dist.queued_in_halo_updates();
    const CgResult plain = conjugate_gradient(dist, product, b, plain_x, &inverse_diagonal, options);
    const std::int64_t plain_allreduces = dist.allreduces() - allreduces_before;
    EXPECT_EQ(dist.queued_in_halo_updates(), queued_before);
    const CgResult marked = conjugate_gradient(dist, halo_last(product), b, marked_x, &inverse_diagonal, options);
    ASSERT_TRUE(plain.converged && marked.converged) << plain.stop_reason << " / " << marked.stop_reason;
    ASSERT_GT(plain.iterations, 10);
    EXPECT_EQ(marked.iterations, plain.iterations);
    EXPECT_EQ(marked_x, plain_x);
    EXPECT_EQ(dist.allreduces() - allreduces_before - plain_allreduces, plain_allreduces);
    if (variant == CgVariant::textbook) {
      EXPECT_EQ(dist.queued_in_halo_updates() - queued_before, marked.iterations);
      EXPECT_EQ(plain_allreduces, 1 + 2 * plain.iterations);
    } else {  // one reduction at the start and one an iteration
      EXPECT_EQ(dist.queued_in_halo_updates() - queued_before, marked.iterations + 1);
    }
  }
}

// The V-cycle as a preconditioner marked halo_last: its last step on z is the halo update of z's
// ghosts, made by the DistributedBackend (set_output_update), so the textbook CG's r·z is queued
// inside it — once at the start and once in every iteration but the last (which stops before its
// V-cycle) — and the iterates are the unmarked solve's bit for bit. CG's products on the owned cells alone, as the flow's pressure CG over the ranks.
TEST_F(DistributedCellMultigridTest, VCycleQueuesCgsDotInsideItsLastHaloUpdate) {
  const Pieces& p = pieces();
  const CellLevel& f = p.finest;
  CpuBackend cpu;
  VCycle<CpuBackend> v(cpu, p);
  std::vector<double> marker(f.global.size(), 0.0);
  for (std::int32_t i : f.owned_cells(mpi::rank())) marker[size_t(i)] = 1.0;
  DistributedBackend<CpuBackend> dist(cpu, marker, MPI_COMM_WORLD);
  dist.attach_halo(std::int64_t(marker.size()), v.halo);
  v.mg.set_output_update([&dist](std::vector<double>& z) { dist.update_ghosts(z); });
  const auto owned_product = [&](const std::vector<double>& x, std::vector<double>& y) { v.a.apply(x, y); };
  const auto precondition = [&](const std::vector<double>& r, std::vector<double>& z) { v.mg(r, z); };
  const std::vector<double> b = mean_free_values(f, 7);
  CgOptions options;
  options.tolerance = 1e-8;
  std::vector<double> plain_x(b.size(), 0.0), marked_x(b.size(), 0.0);
  const std::int64_t queued_before = dist.queued_in_halo_updates();
  const CgResult plain = preconditioned_conjugate_gradient(dist, owned_product, b, plain_x, precondition, options);
  EXPECT_EQ(dist.queued_in_halo_updates(), queued_before);
  const CgResult marked =
      preconditioned_conjugate_gradient(dist, owned_product, b, marked_x, halo_last(precondition), options);
  ASSERT_TRUE(plain.converged && marked.converged) << plain.stop_reason << " / " << marked.stop_reason;
  ASSERT_GT(plain.iterations, 5);
  EXPECT_EQ(marked.iterations, plain.iterations);
  EXPECT_EQ(marked_x, plain_x);
  EXPECT_EQ(dist.queued_in_halo_updates() - queued_before, marked.iterations);
}

// DistributedBackend::ghosts_exact_without_exchange tells the operators whose local pass is already
// every ghost's owner value (a face's curl: its three edges; the viscous force F = −M_f C, a face's
// row its edges; a face's gradient and integral: its two cells, local on every face but the cut
// ones, which no halo fills) from those that need the exchange (the divergence and the cell
// velocities: a ghost cell next to a cut face; the vorticity source B = Cᵀ M_f and the edge mass: a
// ghost edge at the rim misses faces and cells). One rank has no ghosts: nothing needs an exchange.
TEST(GhostsExactWithoutExchange, TellsDownwardOperatorsFromTheOthers) {
  const Pieces& p = pieces();
  const EntityPiece& piece = p.piece;
  CpuBackend cpu;
  HaloExchange<CpuBackend> cells(cpu, piece.cells.links, MPI_COMM_WORLD), faces(cpu, piece.faces.links, MPI_COMM_WORLD),
      edges(cpu, piece.edges.links, MPI_COMM_WORLD);
  const auto marker = [](const EntityHalo& h) { return std::vector<double>(h.owned.begin(), h.owned.end()); };
  DistributedBackend<CpuBackend> dist(cpu, {marker(piece.cells), marker(piece.faces), marker(piece.edges)},
                                      MPI_COMM_WORLD);
  dist.attach_halo(std::int64_t(piece.cells.global.size()), cells);
  dist.attach_halo(std::int64_t(piece.faces.global.size()), faces);
  dist.attach_halo(std::int64_t(piece.edges.global.size()), edges);
  CpuMeshOperators ops(p.local);
  const CurlCurlViscousData cc = build_curl_curl_viscous(p.local, p.problem.boundary_kinds());
  const std::int64_t nc = ops.num_cells(), nf = ops.num_faces(), ne = ops.num_edges();
  const auto matrix = [](const SparseMatrix& m) {
    return [&m](const std::vector<double>& x, std::vector<double>& y) { m.multiply(x, y); };
  };
  const bool ghosts = mpi::size() > 1;
  EXPECT_TRUE(dist.ghosts_exact_without_exchange(ne, nf, [&](const auto& x, auto& y) { ops.curl(x, y); }));
  EXPECT_TRUE(dist.ghosts_exact_without_exchange(ne, nf, matrix(cc.viscous_force)));
  EXPECT_TRUE(dist.ghosts_exact_without_exchange(nc, nf, [&](const auto& x, auto& y) { ops.gradient(x, y); }));
  EXPECT_TRUE(dist.ghosts_exact_without_exchange(nc, nf, [&](const auto& x, auto& y) { ops.integrate(x, x, x, y); }));
  EXPECT_EQ(dist.ghosts_exact_without_exchange(nf, nc, [&](const auto& x, auto& y) { ops.divergence(x, y); }), !ghosts);
  EXPECT_EQ(dist.ghosts_exact_without_exchange(nf, nc,
                                               [&](const auto& x, auto& y) {
                                                 std::vector<double> vy(y.size()), vz(y.size());
                                                 ops.interpolate(x, y, vy, vz);
                                               }),
            !ghosts);
  EXPECT_EQ(dist.ghosts_exact_without_exchange(nf, ne, matrix(cc.vorticity_source)), !ghosts);
  EXPECT_EQ(dist.ghosts_exact_without_exchange(ne, ne, matrix(cc.edge_mass)), !ghosts);
}

}  // namespace
}  // namespace ss
