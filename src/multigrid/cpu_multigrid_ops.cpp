// The multigrid kernels on the CPU reference (double, OpenMP): twins of shaders/mg_*.glsl.
#include "multigrid/multigrid_ops.hpp"

#include "util/error.hpp"

namespace ss {

void set_values(CpuBackend&, std::vector<double>& x, const std::vector<double>& values) {
  SS_REQUIRE(values.size() == x.size(), "set_values: " << values.size() << " values for " << x.size());
  x = values;
}

}  // namespace ss
