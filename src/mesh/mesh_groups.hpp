#pragma once
// Physical groups named in case files, resolved against a loaded mesh (shared by heat and flow).
// A group is written as its name or its number; an unknown one is one error naming where it was
// written and listing the groups the mesh has.
#include <cstdint>
#include <string>
#include <vector>

#include "mesh/load_mesh.hpp"

namespace ss {

// The surface groups that own at least one boundary face, ascending.
std::vector<std::int32_t> present_surface_groups(const LoadedMesh& mesh);
// The volume groups that own at least one tet, ascending.
std::vector<std::int32_t> present_volume_groups(const TetMesh& mesh);

// The groups present in a whole mesh. A rank resolves a case's groups on its piece against these,
// as its piece may lack some of them.
struct PresentGroups {
  std::vector<std::int32_t> surface, volume;
};
PresentGroups present_groups(const LoadedMesh& mesh);

// The surface group `spec` (a name, or a number) means; throws "<where>: unknown boundary group
// '<spec>'; the mesh has lid (1), walls (2)" otherwise.
// With `present`, the groups of the whole mesh count instead of those of `mesh`.
std::int32_t resolve_surface_group(const LoadedMesh& mesh, const std::string& spec, const std::string& where,
                                   const PresentGroups* present = nullptr);
// The same for volume groups ("unknown volume group").
std::int32_t resolve_volume_group(const TetMesh& mesh, const std::string& spec, const std::string& where,
                                  const PresentGroups* present = nullptr);

}  // namespace ss
