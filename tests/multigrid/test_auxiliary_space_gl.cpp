// One application of the auxiliary-space preconditioner (multigrid/auxiliary_space.hpp) on the GPU
// against the CPU reference's: R32F and RGBA32F, fragment and compute launch, on the cavity mesh
// (refine 0) and on the duct mesh, whose node spaces have other sizes; as set up, and with its
// vector space recombined for another mix of weights.
#include <gtest/gtest.h>

#include <cmath>

#include "auxiliary_space_test_util.hpp"
#include "cpu/cpu_backend.hpp"
#include "multigrid/auxiliary_space.hpp"
#include "operators/gpu_paths.hpp"
#include "support/gl_fixture.hpp"

namespace ss::test {
namespace {

class AuxiliarySpaceGl : public GlTest, public ::testing::WithParamInterface<GpuPath> {};

TEST_P(AuxiliarySpaceGl, ApplicationIsEquivalentToRef) {
  for (const char* file : {"cavity.msh", "duct.msh"}) {
    const EdgeSystem s = edge_system(file, 0);
    GpuBackend g = make_gpu(GetParam().packing, GetParam().launch);
    CpuBackend cpu;
    GpuSparseMatrix ga(g, s.matrix);
    CpuSparseMatrix ca(cpu, s.matrix);
    const Field g_smoother = g.upload(s.l1_inverse), g_weight = g.upload(s.node_weight);
    AuxiliarySpacePreconditioner<GpuBackend> gb(
        g, s.spaces, [&](const Field& x, Field& y) { ga.apply(x, y); }, g_smoother, g_weight);
    AuxiliarySpacePreconditioner<CpuBackend> cb(
        cpu, s.spaces, [&](const std::vector<double>& x, std::vector<double>& y) { ca.apply(x, y); }, s.l1_inverse,
        s.node_weight);
    const std::vector<double> r = random_free_edges(s, 3);
    const auto expect_equal_applications = [&](const char* what) {
      Field gr = g.upload(r), gz = g.make_vector(std::int64_t(r.size()));
      std::vector<double> cz(r.size());
      gb(gr, gz);
      cb(r, cz);
      const std::vector<double> z = g.download(gz);
      double largest = 0, difference = 0;
      for (size_t e = 0; e < z.size(); ++e)
        largest = std::max(largest, std::fabs(cz[e])), difference = std::max(difference, std::fabs(z[e] - cz[e]));
      // Float rounding through three V-cycles, two sparse edge products and the transfers, on
      // values of size max|z| (measured up to 8e-7).
      std::printf("%s, %s: max |GPU - CPU| %.2e of max |z|\n", file, what, difference / largest);
      EXPECT_GT(largest, 0.0);
      EXPECT_LE(difference, 1e-5 * largest) << file << ", " << what;
      return cz;
    };
    const std::vector<double> set_up = expect_equal_applications("as set up");
    // Its vector space recombined for another mix of weights (its levels sent to the GPU again).
    const WeightMix mix = weight_mix(s.mesh->topology);
    const auto [gradient, curl, pi] = edge_operators(s);
    const SparseMatrix a1 = vector_space_matrix(curl, gradient, pi, mix.w1, mix.big_w1);
    gb.set_vector_space_second_part(a1);
    cb.set_vector_space_second_part(a1);
    gb.recombine_vector_space(2.0);
    cb.recombine_vector_space(2.0);
    const std::vector<double> recombined = expect_equal_applications("recombined");
    double moved = 0;
    for (size_t e = 0; e < r.size(); ++e) moved = std::max(moved, std::fabs(recombined[e] - set_up[e]));
    EXPECT_GT(moved, 0.0) << file << ": the recombination changed nothing";
  }
}

INSTANTIATE_TEST_SUITE_P(Paths, AuxiliarySpaceGl, kGpuPaths, gpu_path_name);

}  // namespace
}  // namespace ss::test
