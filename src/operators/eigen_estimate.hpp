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
// the inverse diagonal) from their owners, `dot` sums the owned entries over every rank, and
// `start` is the start vector, made from something that does not depend on the numbering (such as
// the entities' positions), so every rank count and the serial run find the same Ritz values up to
// rounding. Empty members: a start hashed from the index, the plain sum, no ghosts.
struct LanczosSpace {
  std::vector<double> start;
  std::function<double(const std::vector<double>&, const std::vector<double>&)> dot;
  std::function<void(std::vector<double>&)> update_ghosts;
};
EigenRange estimate_eigen_range(const std::function<void(const std::vector<double>&, std::vector<double>&)>& apply,
                                const std::vector<double>& inverse_diagonal, int steps, const LanczosSpace& space);
// A start vector entry in [-0.5, 0.5) from a 64-bit key (a mixing hash: every frequency in it).
double lanczos_start_value(std::uint64_t key);
double estimate_lambda_max(const std::function<void(const std::vector<double>&, std::vector<double>&)>& apply,
                           const std::vector<double>& inverse_diagonal, int steps);

}  // namespace ss
