#pragma once
// Internal: Gmsh MSH reader state shared by the 2.x (read_gmsh2.cpp) and 4.1 (read_gmsh4.cpp)
// section parsers. read_gmsh.cpp owns the header and the section loop.
#include <map>
#include <memory>
#include <set>
#include <utility>

#include "mesh/reader_assembly.hpp"
#include "mesh/reader_io.hpp"
#include "mesh/tet_mesh.hpp"

namespace ss::reader {

// Gmsh element type: node count, dimension, plural description. nodes == 0: unknown type.
struct GmshType {
  int nodes = 0;
  int dim = -1;
  const char* plural = "";
};
GmshType gmsh_type(std::int64_t type);

struct GmshParser {
  explicit GmshParser(Source s) : src(std::move(s)), cur(src) {}

  Source src;                    // src.binary is set from the header
  Cursor cur;
  int major = 0;                 // 2 or 4
  TetMesh mesh;
  std::unique_ptr<NodeTable> nodes;
  std::vector<Unsupported> unsupported;
  std::map<int, std::size_t> unsupported_index;               // type -> index in unsupported
  std::map<std::pair<int, int>, std::string> physical_names;  // (dim, tag) -> name
  std::map<std::pair<int, int>, int> entity_physical;         // 4.1: (dim, entity) -> physical
  std::set<std::pair<int, int>> interface_entities;           // 4.1: partition interfaces, skipped
  std::vector<std::int64_t> tet_tags, triangle_tags;          // element tags, for a stable order
  bool warned_multi_physical = false;

  // One element; `node_tags` holds gmsh_type(type).nodes tags. Points and lines are skipped.
  template <class TagT>
  void add_element(int type, std::int64_t tag, const TagT* node_tags, int physical, std::size_t offset) {
    if (type == 4) {
      Tet t;
      for (int k = 0; k < 4; ++k) t[k] = node_id(static_cast<std::int64_t>(node_tags[k]), tag, offset);
      mesh.tets.push_back(t);
      mesh.tet_groups.push_back(physical);
      tet_tags.push_back(tag);
    } else if (type == 2) {
      Triangle t;
      for (int k = 0; k < 3; ++k) t[k] = node_id(static_cast<std::int64_t>(node_tags[k]), tag, offset);
      mesh.boundary_triangles.push_back(t);
      mesh.triangle_groups.push_back(physical);
      triangle_tags.push_back(tag);
    } else {
      note_other(type, offset);
    }
  }
  NodeId node_id(std::int64_t node_tag, std::int64_t element_tag, std::size_t offset) const {
    const NodeId id = nodes->find(node_tag);
    if (id < 0) unknown_node(node_tag, element_tag, offset);
    return id;
  }
  [[noreturn]] void unknown_node(std::int64_t node_tag, std::int64_t element_tag, std::size_t offset) const;
  void note_other(int type, std::size_t offset);  // points/lines ignored, others counted
  GmshType require_type(std::int64_t type, std::size_t offset) const;  // error if unknown
  void require_nodes_first(std::size_t offset) const;
  void set_nodes(RawNodes raw);

  void read_physical_names();
  void read_entities(bool partitioned);  // 4.1 only: $Entities or $PartitionedEntities
  void read_nodes2();
  void read_elements2();
  void read_nodes4();
  void read_elements4();
  void expect_end(const char* end_marker, const std::string& after);
  TetMesh finish();
};

}  // namespace ss::reader
