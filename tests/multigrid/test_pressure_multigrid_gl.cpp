// The pressure V-cycle on the GPU (finest level: GpuFlowOperators::pressure_apply, aggregation
// levels as sparse kernels, CHOLMOD at the bottom) against the CPU reference's, R32F and RGBA32F,
// fragment and compute launch, with the constants as null space (cavity) and with an outlet (duct).
#include <gtest/gtest.h>

#include "support/gl_fixture.hpp"
#include "support/test_data.hpp"
#include "multigrid/multigrid.hpp"
#include "multigrid/pressure_matrix.hpp"
#include "pressure_test_util.hpp"

namespace ss::test {
namespace {

struct Config {
  Packing packing;
  LaunchPath launch;
};
const Config kConfigs[] = {{Packing::r32f, LaunchPath::fragment},
                           {Packing::rgba32f, LaunchPath::fragment},
                           {Packing::r32f, LaunchPath::compute},
                           {Packing::rgba32f, LaunchPath::compute}};

class PressureMultigridGl : public GlTest, public ::testing::WithParamInterface<Config> {};

TEST_P(PressureMultigridGl, VcycleIsEquivalentToRef) {
  for (const char* file : {"cavity.msh", "duct.msh"}) {
    const PressureCase c = pressure_case(file, 0);
    const bool singular = !c.data.pressure_fixed;
    LayoutOptions layout;
    layout.packing = GetParam().packing;
    GpuOptions options;
    options.launch = GetParam().launch;
    GpuBackend g = make_gpu(layout, options);
    CpuBackend cpu;
    GpuMeshOperators gpu_mesh(g, *c.mesh);
    GpuFlowOperators gpu_ops(g, gpu_mesh, c.data);
    CpuMeshOperators cpu_mesh(*c.mesh);
    CpuFlowOperators cpu_ops(cpu_mesh, c.data);
    MultigridOptions o;
    o.coarse_size = 60;  // several aggregation levels on the small mesh
    const SparseMatrix p = pressure_matrix(c.tables, c.data);
    Multigrid<GpuBackend> gmg(g, p, singular, [&](const Field& x, Field& y) { gpu_ops.pressure_apply(x, y); }, o);
    Multigrid<CpuBackend> cmg(cpu, p, singular,
                              [&](const std::vector<double>& x, std::vector<double>& y) { cpu_ops.pressure_apply(x, y); }, o);
    ASSERT_GE(gmg.num_levels(), 3) << gmg.setup().describe();
    const std::vector<double> r = random_cells(c.data.num_cells, 9, singular);
    Field gr = g.upload(r), gz = g.make_vector(c.data.num_cells);
    std::vector<double> cz(r.size());
    gmg(gr, gz);
    cmg(r, cz);
    // Float rounding through ~10 passes a level and the levels, on values of size max|z|.
    EXPECT_LE(max_rel_diff(g.download(gz), cz), 1e-4) << file << ": " << gmg.setup().describe();
  }
}

INSTANTIATE_TEST_SUITE_P(Configs, PressureMultigridGl, ::testing::ValuesIn(kConfigs), [](const auto& info) {
  return std::string(to_string(info.param.packing)) + (info.param.launch == LaunchPath::compute ? "_compute" : "_fragment");
});

}  // namespace
}  // namespace ss::test
