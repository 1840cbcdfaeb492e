#pragma once
// Eigenvalue estimates for Chebyshev polynomials (multigrid smoother, flow viscous operator).
#include <cstdint>
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

// The vector space of a Lanczos run spread over MPI ranks: each rank's vectors hold its local
// entities (owned and ghost), `update_ghosts` brings the ghost entries of `apply`'s output (and of
// the inverse diagonal) from their owners, `dot` sums the owned entries over every rank, and the
// start vector's entry for an entity is a hash of its global id, so every rank count (and the
// serial run, ids = indices) starts from the same vector and finds the same Ritz values up to
// rounding. Empty members: the index itself, the plain sum, no ghosts.
struct LanczosSpace {
  std::vector<std::int64_t> global_ids;
  std::function<double(const std::vector<double>&, const std::vector<double>&)> dot;
  std::function<void(std::vector<double>&)> update_ghosts;
};
EigenRange estimate_eigen_range(const std::function<void(const std::vector<double>&, std::vector<double>&)>& apply,
                                const std::vector<double>& inverse_diagonal, int steps, const LanczosSpace& space);
double estimate_lambda_max(const std::function<void(const std::vector<double>&, std::vector<double>&)>& apply,
                           const std::vector<double>& inverse_diagonal, int steps);

}  // namespace ss
