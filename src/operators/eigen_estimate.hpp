#pragma once
// Eigenvalue estimates for Chebyshev polynomials (multigrid smoother, flow viscous operator).
#include <cmath>
#include <cstddef>
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

// The pieces the estimates share (and estimate_lambda_max_on, below): the serial start vector of n
// entries, and the extreme eigenvalues of the CG-Lanczos tridiagonal — diagonal 1/α_j + β_{j−1}/α_{j−1},
// off-diagonal √β_j / α_j from CG's α_j, β_j — ({1, 1} when empty).
std::vector<double> lanczos_start(size_t n);
EigenRange lanczos_ritz_range(std::vector<double> diag, std::vector<double> off);

// estimate_lambda_max with every vector on `backend` (its working precision: a GPU's float): the
// same start vector and recurrences, one upload and no other transfer but the dot products. For an
// operator the host does not hold (the finest level made on the GPU).
// `start`: the start vector (one entry per local entity, right on the ghosts over MPI ranks, such as
// lanczos_edge_start's), else lanczos_start's.
template <class Backend>
double estimate_lambda_max_on(Backend& backend,
                              const std::function<void(const typename Backend::Vector&, typename Backend::Vector&)>& apply,
                              const typename Backend::Vector& inverse_diagonal, int steps,
                              const std::vector<double>* start = nullptr) {
  const std::int64_t n = std::int64_t(inverse_diagonal.size());
  if (n == 0) return 1.0;
  typename Backend::Vector r = backend.upload(start ? *start : lanczos_start(size_t(n))), z = backend.make_vector(n),
                           p = backend.make_vector(n), q = backend.make_vector(n);
  backend.multiply(inverse_diagonal, r, z);
  backend.copy(z, p);
  double rz = backend.dot(r, z);
  std::vector<double> diag, off;
  double alpha_prev = 1, beta_prev = 0;
  for (int j = 0; j < steps && rz > 0; ++j) {
    apply(p, q);
    const double pq = backend.dot(p, q);
    if (!(pq > 0)) break;
    const double alpha = rz / pq;
    diag.push_back(1.0 / alpha + (j > 0 ? beta_prev / alpha_prev : 0.0));
    backend.axpy(-alpha, q, r, r);             // r = r − α q
    backend.multiply(inverse_diagonal, r, z);  // z = D⁻¹ r
    const double rz_new = backend.dot(r, z);
    const double beta = rz_new / rz;
    if (j + 1 < steps && rz_new > 0) off.push_back(std::sqrt(beta) / alpha);
    backend.xpay(z, beta, p, p);  // p = z + β p
    rz = rz_new;
    alpha_prev = alpha;
    beta_prev = beta;
  }
  return lanczos_ritz_range(std::move(diag), std::move(off)).hi;
}

}  // namespace ss
