#pragma once
// Internal: what every reader does after parsing. File node tags are arbitrary positive integers;
// NodeTable maps them to 0-based ids in ascending tag order (so the same mesh written in another
// encoding or block order gets the same numbering). finish_mesh drops unused nodes (with a
// warning) and refuses a mesh without tetrahedra.
#include <cstdint>
#include <string>
#include <vector>

#include "mesh/reader_io.hpp"
#include "mesh/tet_mesh.hpp"

namespace ss::reader {

// Nodes as read: tag, coordinates and where each was defined (for duplicate messages).
struct RawNodes {
  std::vector<std::int64_t> tags;
  std::vector<glm::dvec3> coords;
  std::vector<std::size_t> offsets;
  void reserve(std::size_t n) {
    tags.reserve(n);
    coords.reserve(n);
    offsets.reserve(n);
  }
};

class NodeTable {
public:
  // Checks tags (positive, unique) and coordinates (finite); sorts by tag.
  NodeTable(const Source& src, RawNodes raw);
  // 0-based id of a tag, or -1 if the file defines no such node.
  NodeId find(std::int64_t tag) const;
  std::size_t size() const { return coords_.size(); }
  std::vector<glm::dvec3>& coords() { return coords_; }
  // The file's tag of each id (ascending).
  std::vector<std::int64_t> tags() const;

private:
  std::int64_t min_tag_ = 0;
  std::vector<NodeId> dense_;           // tag - min_tag_ -> id, when tags are dense enough
  std::vector<std::int64_t> sorted_;    // sorted tags otherwise (binary search)
  std::vector<glm::dvec3> coords_;      // in id order
};

// Elements counted by kind for messages about unsupported types ("120 10-node tetrahedra").
struct Unsupported {
  std::string description;  // "10-node tetrahedra (Gmsh type 11)"
  std::int64_t count = 0;
  std::size_t first_offset = 0;
};

// Throws if `unsupported` is non-empty, naming every kind and the first place it occurs.
void reject_unsupported(const Source& src, const std::vector<Unsupported>& unsupported);

// Adds a physical name of a surface or volume group (separate name spaces); a repeated id keeps
// the first name.
void add_group_name(TetMesh& mesh, GroupKind kind, std::int32_t id, const std::string& name);

// Final checks and clean-up: no tetrahedra is an error; unused nodes are dropped with a warning
// (and their entries in mesh.node_tags, which the reader has filled in id order).
void finish_mesh(const Source& src, TetMesh& mesh);

}  // namespace ss::reader
