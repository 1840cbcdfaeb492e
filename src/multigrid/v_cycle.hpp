#pragma once
// The V-cycle, once for every multigrid of the project: the serial one (multigrid.hpp, on any
// backend), the heat multigrid over MPI ranks (distributed/distributed_heat_multigrid.hpp: node
// levels of the refinement's pieces) and the flow pressure multigrid over MPI ranks
// (distributed/distributed_pressure_multigrid.hpp: cell levels). Each of them sets up its levels
// its own way and is the `Hierarchy` here, levels l = 0 (finest) .. num_levels() − 1 (coarsest):
//
//   int num_levels()
//   Vector& rhs(l), solution(l)              level l's b and x (the cycle uses those of l ≥ 1)
//   smooth(l, b, x, zero_start)              x = x + S_l(b − A_l x), or x = S_l(b) from x = 0
//   restrict_residual(l, b, x, b_coarse)     b_coarse = R_l (b − A_l x) (A_l x in the level's own
//                                            scratch, and only where R_l reads it: over ranks the
//                                            pressure multigrid's finest level skips its exchange,
//                                            bringing x's ghosts instead)
//   prolongate_add(l, x_coarse, x)           x = x + P_l x_coarse
//   after_correction(l, x)                   what x needs before the post-smoothing (the pressure
//                                            multigrid's finest level: its ghosts, by halo update)
//   coarsest_solve(l, b, x)                  x = A_l⁻¹ b
//
// The members may be private when the hierarchy befriends v_cycle:
//   template <class Hierarchy, class V> friend void v_cycle(Hierarchy&, std::size_t, const V&, V&);
//
// S_l is one Chebyshev polynomial (chebyshev_smooth, operators/sparse_kernels.hpp) applied the same
// way before and after the coarse correction, so the cycle is a symmetric operator and a valid CG
// preconditioner.
#include <cstddef>

namespace ss {

// x = V_l b: one V-cycle from x = 0 on level l and every level below it.
template <class Hierarchy, class Vector>
void v_cycle(Hierarchy& h, std::size_t l, const Vector& b, Vector& x) {
  // Coarsest:  x = A_l⁻¹ b
  if (l + 1 == std::size_t(h.num_levels())) {
    h.coarsest_solve(l, b, x);
    return;
  }
  Vector& b_coarse = h.rhs(l + 1);
  Vector& x_coarse = h.solution(l + 1);
  // x = S_l(b), from x = 0
  h.smooth(l, b, x, true);
  // b_{l+1} = R_l (b − A_l x)
  h.restrict_residual(l, b, x, b_coarse);
  // x_{l+1} = V_{l+1} b_{l+1}
  v_cycle(h, l + 1, b_coarse, x_coarse);
  // x = x + P_l x_{l+1}
  h.prolongate_add(l, x_coarse, x);
  h.after_correction(l, x);  // e.g. x's ghosts by halo update
  // x = x + S_l(b − A_l x)
  h.smooth(l, b, x, false);
}

}  // namespace ss
