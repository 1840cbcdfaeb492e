#pragma once
// Moving per-entity values between rank 0 and the pieces, by global id (both physics' MPI drivers).
#include <cstdint>
#include <string>
#include <vector>

namespace ss {

// Each rank's values of its owned entries (`width` interleaved values per entry), placed by global
// id at rank 0: `ids` (rank 0 only) lists every rank's owned entries' global ids in the order it
// sends them. Rank 0 gets global_size·width values (0 where no rank sent one), the others nothing.
std::vector<double> gather_to_root(const std::vector<double>& owned, const std::vector<std::vector<std::int64_t>>* ids,
                                   size_t global_size, int width = 1);

// The same when rank 0 does not know the ids: each rank sends the global ids of its entries with
// their values.
std::vector<double> gather_by_id(const std::vector<std::int64_t>& ids, const std::vector<double>& values,
                                 size_t global_size, int width = 1);

// gather_by_id, then at rank 0 in the order of its entities `order` (the global id of each; `width`
// values per entry). Empty on the other ranks (pass `order` null there).
std::vector<double> gather_in_order(const std::vector<std::int64_t>& ids, const std::vector<double>& values,
                                    const std::vector<std::int64_t>* order, int width = 1);

// The inverse for whole pieces: rank 0 holds `global` (one value per global entity) and `ids`
// (every rank's local entities' global ids); each rank gets its local entities' values.
std::vector<double> scatter_from_root(const std::vector<double>& global, const std::vector<std::vector<std::int64_t>>* ids);

// The same when rank 0 does not know the ids: each rank sends its local entities' global ids (-1:
// an entity without one, which gets 0) and receives their values.
std::vector<double> scatter_by_id(const std::vector<double>& global, const std::vector<std::int64_t>& ids);

// Rank 0's string on every rank.
std::string broadcast_string(const std::string& text);

}  // namespace ss
