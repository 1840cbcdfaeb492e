// The multigrid kernels on the GPU: shaders/mg_sparse_apply.glsl and shaders/mg_chebyshev.glsl.
#include "multigrid/multigrid_ops.hpp"

#include "util/error.hpp"

namespace ss {

void set_values(GpuBackend&, Field& x, const std::vector<double>& values) {
  SS_REQUIRE(std::int64_t(values.size()) == x.size(), "set_values: " << values.size() << " values for " << x.size());
  x.upload(std::vector<float>(values.begin(), values.end()));
}

}  // namespace ss
