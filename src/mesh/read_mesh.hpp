#pragma once
// Mesh readers. Each returns a TetMesh with 0-based contiguous node ids (file node tags sorted
// ascending, unused nodes dropped with a warning on stderr), the 4-node tetrahedra with their
// physical volume group, the boundary triangles listed in the file with their physical surface
// group (0 = none), the physical names (surface and volume groups apart) and the file's node and
// element tags (TetMesh::node_tags, tet_tags, triangle_tags). Parse-level problems (unknown format, truncation,
// bad counts, unknown or duplicate node ids, non-finite coordinates, unsupported element types,
// no tetrahedra) throw ss::Error naming the file and the line or byte offset. Geometric and
// topological checks (degenerate tets, non-manifold faces) are done later by load_mesh.
#include <string>
#include <string_view>

#include "mesh/tet_mesh.hpp"

namespace ss {

// Picks the reader from the file content (Gmsh: "$MeshFormat", Netgen: "mesh3d"), not the
// extension. gzip-compressed files are decompressed transparently.
TetMesh read_mesh(const std::string& path);

// Gmsh MSH 2.2 and 4.1, ASCII or binary (either byte order).
TetMesh read_gmsh(const std::string& path);
// Netgen .vol (mesh3d): points, volumeelements (material = group), surfaceelements (boundary
// condition number = group), materials and bcnames as group names.
TetMesh read_netgen(const std::string& path);

// The same from file content already in memory; `name` is used in messages and as `source`.
// read_mesh_data, like read_mesh, also takes gzip-compressed content.
TetMesh read_mesh_data(const std::string& name, std::string_view data);
TetMesh read_gmsh_data(const std::string& name, std::string_view data);
TetMesh read_netgen_data(const std::string& name, std::string_view data);

}  // namespace ss
