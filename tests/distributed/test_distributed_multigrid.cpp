// The multigrid over the ranks (distributed/distributed_heat_multigrid.hpp) under `mpiexec -n N`
// (N = 1..3; every rank runs every test), on the crankshaft's base pieces refined twice by the
// ranks with the case tests/distributed/crank_multigrid.toml:
//   - one V-cycle on the GPU (llvmpipe in CI) equals the CPU reference's (double) to float accuracy;
//   - the V-cycle is symmetric over the ranks, (z(r₁), r₂) = (r₁, z(r₂)), and positive,
//     (z(r), r) > 0: what CG asks of a preconditioner;
//   - it is a good one: the error of z against A⁻¹ r shrinks by a V-cycle's factor.
// The whole solve against the serial one (iterations, temperatures) is check_heat_mpi.py's.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <mpi.h>

#include "support/gl_fixture.hpp"
#include "support/mpi_test_helpers.hpp"
#include "distributed/distributed_heat.hpp"
#include "distributed/distributed_heat_multigrid.hpp"
#include "mesh/load_mesh.hpp"
#include "operators/eigen_estimate.hpp"
#include "parallel/mpi_env.hpp"
#include "parallel/piece_assignment.hpp"

namespace ss {
namespace {

constexpr int kLevels = 2;

// Every rank's piece of the case, built once per process as the heat command builds it.
struct Pieces {
  LocalHeat h;
  std::shared_ptr<const HeatOperatorData> data;
};
const Pieces& pieces() {
  static std::unique_ptr<Pieces> p = [] {
    PieceAssignment a = test::assign_pieces("meshes/crank.msh", kLevels, "tests/distributed/crank_multigrid.toml");
    auto out = std::make_unique<Pieces>();
    HeatOperatorData data;
    out->h = build_heat_piece(std::move(a), 0, data);
    out->data = std::make_shared<const HeatOperatorData>(std::move(data));
    return out;
  }();
  return *p;
}

using test::max_over_ranks;
using test::sum_over_ranks;

// Σ over every rank's owned entries of x·y.
double dot(const LocalHeat& h, const std::vector<double>& x, const std::vector<double>& y) {
  double s = 0;
  for (std::int32_t i = 0; i < h.piece.part.owned_nodes; ++i) s += x[size_t(i)] * y[size_t(i)];
  return sum_over_ranks(s);
}

// A right-hand side on the owned entries from the global ids (the same vector on every rank count).
std::vector<double> owned_values(const LocalHeat& h, std::uint64_t seed) {
  std::vector<double> r(h.piece.part.node_global.size(), 0.0);
  for (std::int32_t i = 0; i < h.piece.part.owned_nodes; ++i)
    r[size_t(i)] = lanczos_start_value(std::uint64_t(h.piece.part.node_global[size_t(i)]) * 7919u + seed);
  return r;
}

// One backend's distributed operator and V-cycle on the pieces, for a·M + s·K̃.
template <class Backend, class Operator>
struct VCycle {
  Backend& backend;
  Operator local;
  HaloExchange<Backend> halo;
  DistributedHeatOperator<Backend, Operator> op;
  DistributedHeatMultigrid<Backend, Operator> mg;
  double a, s;

  VCycle(Backend& b, Operator&& l, const Pieces& p, double a_, double s_)
      : backend(b), local(std::move(l)), halo(b, p.h.piece.links, MPI_COMM_WORLD),
        op(b, local, halo, *p.data, p.h.piece.part.owned_nodes, p.h.fixed, p.h.fixed_values),
        mg(b, {op, halo, *p.data, p.h.piece, p.h.fixed}, *p.h.coarser, MultigridOptions{}, MPI_COMM_WORLD), a(a_), s(s_) {
    mg.prepare(a, s);
  }
  std::vector<double> operator()(const std::vector<double>& r) {
    const auto in = backend.upload(r);
    auto out = backend.make_vector(std::int64_t(r.size()));
    mg(in, out);
    return backend.download(out);
  }
  std::vector<double> apply(const std::vector<double>& x) {
    const auto in = backend.upload(x);
    auto out = backend.make_vector(std::int64_t(x.size()));
    op.apply_system(a, s, in, out);
    return backend.download(out);
  }
};

std::vector<std::int32_t> eliminated(const Pieces& p) {
  return piece_fixed_nodes(p.data->num_nodes, p.h.piece.part.owned_nodes, p.h.fixed);
}

using CpuVCycle = VCycle<CpuBackend, CpuHeatOperator>;
using GpuVCycle = VCycle<GpuBackend, GpuHeatOperator>;

class DistributedMultigridTest : public test::GlTest {};

TEST_F(DistributedMultigridTest, HasEveryLevelDownToTheBaseMesh) {
  const Pieces& p = pieces();
  ASSERT_TRUE(p.h.coarser.has_value());
  ASSERT_EQ(p.h.coarser->levels.size(), size_t(kLevels));
  CpuBackend cpu;
  CpuVCycle v(cpu, CpuHeatOperator(p.data, eliminated(p)), p, 0.0, 1.0);
  EXPECT_EQ(v.mg.num_levels(), kLevels + 1);  // crank.msh's 300-odd nodes: the base is the coarsest
}

TEST_F(DistributedMultigridTest, GpuVCycleIsEquivalentToRef) {
  const Pieces& p = pieces();
  for (double a : {0.0, 40.0}) {
    CpuBackend cpu;
    CpuVCycle ref(cpu, CpuHeatOperator(p.data, eliminated(p)), p, a, 1.0);
    GpuBackend gpu = make_gpu();
    GpuVCycle dev(gpu, GpuHeatOperator(gpu, p.data, eliminated(p)), p, a, 1.0);
    const std::vector<double> r = owned_values(p.h, 1);
    const std::vector<double> z_ref = ref(r), z = dev(r);
    double diff = 0, size = 0;
    for (std::int32_t i = 0; i < p.h.piece.part.owned_nodes; ++i) {
      diff = std::max(diff, std::fabs(z[size_t(i)] - z_ref[size_t(i)]));
      size = std::max(size, std::fabs(z_ref[size_t(i)]));
    }
    for (size_t i = size_t(p.h.piece.part.owned_nodes); i < z.size(); ++i) EXPECT_EQ(z[i], 0.0) << "ghost entry " << i;
    diff = max_over_ranks(diff), size = max_over_ranks(size);
    ASSERT_GT(size, 0.0);
    // float storage through 3 levels of smoothing and transfers: a few float epsilons of |z|
    EXPECT_LE(diff, 2e-5 * size) << "a = " << a;
  }
}

TEST_F(DistributedMultigridTest, VCycleIsSymmetricAndPositiveOverTheRanks) {
  const Pieces& p = pieces();
  CpuBackend cpu;
  CpuVCycle v(cpu, CpuHeatOperator(p.data, eliminated(p)), p, 0.0, 1.0);
  const std::vector<double> r1 = owned_values(p.h, 1), r2 = owned_values(p.h, 2);
  const std::vector<double> z1 = v(r1), z2 = v(r2);
  const double a = dot(p.h, z1, r2), b = dot(p.h, r1, z2);
  EXPECT_NEAR(a, b, 1e-11 * std::sqrt(dot(p.h, z1, z1) * dot(p.h, r2, r2)));
  EXPECT_GT(dot(p.h, z1, r1), 0.0);
  EXPECT_GT(dot(p.h, z2, r2), 0.0);
}

TEST_F(DistributedMultigridTest, VCycleReducesASmoothError) {
  // x = A⁻¹ b for a known smooth x (which the smoother alone hardly reduces: the coarse levels
  // must); one V-cycle from r = b = A x gives z with |x − z|_A well below |x|_A.
  const Pieces& p = pieces();
  CpuBackend cpu;
  CpuVCycle v(cpu, CpuHeatOperator(p.data, eliminated(p)), p, 0.0, 1.0);
  std::vector<double> x(p.h.piece.part.node_global.size(), 0.0);
  const std::vector<glm::dvec3>& at = p.h.mesh.mesh.nodes;
  double span = 0;
  for (const glm::dvec3& q : at) span = std::max({span, std::fabs(q.x), std::fabs(q.y), std::fabs(q.z)});
  for (std::int32_t i = 0; i < p.h.piece.part.owned_nodes; ++i)  // fixed rows: their answer is their right-hand side
    if (!p.h.fixed[size_t(i)]) x[size_t(i)] = std::sin(2 * at[size_t(i)].x / span) * std::cos(at[size_t(i)].y / span) + at[size_t(i)].z / span;
  const std::vector<double> b = v.apply(x), z = v(b);
  std::vector<double> e(x.size());
  for (size_t i = 0; i < x.size(); ++i) e[i] = x[i] - z[i];
  const double before = dot(p.h, x, v.apply(x)), after = dot(p.h, e, v.apply(e));
  EXPECT_LT(after, 0.2 * 0.2 * before) << "|e|_A² went " << before << " -> " << after;
}

}  // namespace
}  // namespace ss
