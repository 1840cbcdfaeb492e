#pragma once
// What the flow solver's parts need to know of a backend over MPI ranks (parallel/distributed_backend.hpp
// says `distributed = true`): whether it is one, and the one thing they do differently there — a host
// array made per entity on the rank's piece is wrong on the ghosts (a piece's rim misses cells), so
// its owners' values are brought there (the distributed flow operators' complete_ghosts).
#include <type_traits>
#include <vector>

namespace ss {

template <class B, class = void>
struct IsDistributedBackend : std::false_type {};
template <class B>
struct IsDistributedBackend<B, std::void_t<decltype(B::distributed)>> : std::bool_constant<B::distributed> {};

// Over MPI ranks: `values` (one per entity of the piece) right on the ghosts too. Serially: nothing.
template <class Backend, class FlowOps>
void complete_ghosts(FlowOps& ops, std::vector<double>& values) {
  if constexpr (IsDistributedBackend<Backend>::value) ops.complete_ghosts(values);
}

}  // namespace ss
