#pragma once
// Eigenvalue estimates for Chebyshev polynomials (multigrid smoother, flow viscous operator).
#include <functional>
#include <vector>

namespace ss {

struct EigenRange {
  double lo = 1, hi = 1;
};

// Smallest and largest eigenvalue of D⁻¹A (A SPD given by `apply`, D⁻¹ = inverse_diagonal; rows with
// D⁻¹ = 0 drop out) from `steps` of CG-Lanczos in double: Ritz values, inside the true range.
EigenRange estimate_eigen_range(const std::function<void(const std::vector<double>&, std::vector<double>&)>& apply,
                                const std::vector<double>& inverse_diagonal, int steps);
double estimate_lambda_max(const std::function<void(const std::vector<double>&, std::vector<double>&)>& apply,
                           const std::vector<double>& inverse_diagonal, int steps);

}  // namespace ss
