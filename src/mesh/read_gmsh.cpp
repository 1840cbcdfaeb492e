// Gmsh MSH reader: header, section loop, physical names and the parts shared by 2.x and 4.1.
// Format reference: https://gmsh.info/doc/texinfo/gmsh.html#MSH-file-format
#include <algorithm>
#include <iostream>
#include <numeric>

#include "mesh/gmsh_parser.hpp"
#include "mesh/read_mesh.hpp"
#include "util/error.hpp"

namespace ss {

namespace reader {

GmshType gmsh_type(std::int64_t type) {
  switch (type) {
    case 1: return {2, 1, "2-node lines"};
    case 2: return {3, 2, "3-node triangles"};
    case 3: return {4, 2, "4-node quadrangles"};
    case 4: return {4, 3, "4-node tetrahedra"};
    case 5: return {8, 3, "8-node hexahedra"};
    case 6: return {6, 3, "6-node prisms"};
    case 7: return {5, 3, "5-node pyramids"};
    case 8: return {3, 1, "3-node lines"};
    case 9: return {6, 2, "6-node triangles"};
    case 10: return {9, 2, "9-node quadrangles"};
    case 11: return {10, 3, "10-node tetrahedra"};
    case 12: return {27, 3, "27-node hexahedra"};
    case 13: return {18, 3, "18-node prisms"};
    case 14: return {14, 3, "14-node pyramids"};
    case 15: return {1, 0, "points"};
    case 16: return {8, 2, "8-node quadrangles"};
    case 17: return {20, 3, "20-node hexahedra"};
    case 18: return {15, 3, "15-node prisms"};
    case 19: return {13, 3, "13-node pyramids"};
    case 20: return {9, 2, "9-node triangles"};
    case 21: return {10, 2, "10-node triangles"};
    case 22: return {12, 2, "12-node triangles"};
    case 23: return {15, 2, "15-node triangles"};
    case 24: return {15, 2, "15-node triangles"};
    case 25: return {21, 2, "21-node triangles"};
    case 26: return {4, 1, "4-node lines"};
    case 27: return {5, 1, "5-node lines"};
    case 28: return {6, 1, "6-node lines"};
    case 29: return {20, 3, "20-node tetrahedra"};
    case 30: return {35, 3, "35-node tetrahedra"};
    case 31: return {56, 3, "56-node tetrahedra"};
    case 92: return {64, 3, "64-node hexahedra"};
    case 93: return {125, 3, "125-node hexahedra"};
    default: return {};
  }
}

void GmshParser::unknown_node(std::int64_t node_tag, std::int64_t element_tag, std::size_t offset) const {
  SS_THROW(src.where(offset) << ": element " << element_tag << " refers to unknown node " << node_tag
                             << " (not defined in $Nodes)");
}

void GmshParser::note_other(int type, std::size_t offset) {
  const GmshType t = gmsh_type(type);
  if (t.dim < 2) return;  // points and lines: not part of a volume mesh
  auto [it, inserted] = unsupported_index.emplace(type, unsupported.size());
  if (inserted)
    unsupported.push_back({std::string(t.plural) + " (Gmsh type " + std::to_string(type) + ")", 0, offset});
  ++unsupported[it->second].count;
}

GmshType GmshParser::require_type(std::int64_t type, std::size_t offset) const {
  const GmshType t = gmsh_type(type);
  if (t.nodes == 0) cur.fail_at(offset, "unknown Gmsh element type " + std::to_string(type));
  return t;
}

void GmshParser::require_nodes_first(std::size_t offset) const {
  if (!nodes) cur.fail_at(offset, "$Elements section before any $Nodes section");
}

void GmshParser::set_nodes(RawNodes raw) {
  if (nodes) cur.fail_at(cur.offset(), "a second $Nodes section (only one is supported)");
  nodes = std::make_unique<NodeTable>(src, std::move(raw));
}

void GmshParser::expect_end(const char* end_marker, const std::string& after) {
  cur.set_section(std::string("$") + (end_marker + 4));
  if (cur.at_end()) cur.fail_eof(end_marker);
  Line line = cur.next_line();
  if (line.text() != end_marker)
    line.fail(std::string("expected ") + end_marker + " after " + after + ", found '" +
              std::string(line.text().substr(0, 40)) + "' (more entries than the section declares?)");
  cur.set_section("");
}

// $PhysicalNames is text in every variant: count, then `dim tag "name"` lines.
void GmshParser::read_physical_names() {
  cur.set_section("$PhysicalNames");
  Line head = cur.next_line();
  const std::int64_t n = head.integer("number of physical names");
  head.finish("the number of physical names");
  if (n < 0) head.fail("negative number of physical names");
  for (std::int64_t i = 0; i < n; ++i) {
    Line line = cur.next_line();
    if (line.starts_with("$"))
      line.fail("$PhysicalNames declares " + std::to_string(n) + " names but has only " + std::to_string(i));
    const std::int64_t dim = line.integer("physical dimension");
    const std::int64_t tag = line.group("physical tag");
    std::string name = line.quoted("physical name");
    line.finish("the physical name");
    if (dim < 0 || dim > 3) line.fail("physical dimension " + std::to_string(dim) + " is not 0..3");
    physical_names[{static_cast<int>(dim), static_cast<int>(tag)}] = std::move(name);
  }
  expect_end("$EndPhysicalNames", std::to_string(n) + " physical names");
}

TetMesh GmshParser::finish() {
  if (!nodes) SS_THROW(src.name << ": no $Nodes section (the mesh is empty)");
  reject_unsupported(src, unsupported);
  for (const auto& [key, name] : physical_names)
    if (key.first >= 2) add_group_name(mesh, key.first == 2 ? GroupKind::surface : GroupKind::volume, key.second, name);
  // Gmsh writes elements grouped by entity; order them by element tag so that every encoding of
  // the same mesh gives the same tet numbering.
  auto sort_by_tag = [](auto& elems, auto& groups, std::vector<std::int64_t>& tags) {
    if (std::is_sorted(tags.begin(), tags.end())) return;
    std::vector<std::size_t> order(tags.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return tags[a] < tags[b]; });
    auto e = elems;
    auto g = groups;
    auto t = tags;
    for (std::size_t k = 0; k < order.size(); ++k) {
      elems[k] = e[order[k]];
      groups[k] = g[order[k]];
      tags[k] = t[order[k]];
    }
  };
  sort_by_tag(mesh.tets, mesh.tet_groups, tet_tags);
  sort_by_tag(mesh.boundary_triangles, mesh.triangle_groups, triangle_tags);
  mesh.tet_tags = std::move(tet_tags);
  mesh.triangle_tags = std::move(triangle_tags);
  mesh.node_tags = nodes->tags();
  mesh.nodes = std::move(nodes->coords());
  finish_mesh(src, mesh);
  return std::move(mesh);
}

namespace {

// "$MeshFormat\n<version> <file-type> <data-size>\n[binary int 1\n]$EndMeshFormat"
void read_header(GmshParser& p) {
  p.cur.set_section("$MeshFormat");
  Line first = p.cur.next_line();
  if (first.text() != "$MeshFormat") first.fail("expected $MeshFormat");
  Line line = p.cur.next_line();
  const std::string version(line.word("MSH version"));
  const std::int64_t file_type = line.integer("file type (0 = ASCII, 1 = binary)");
  const std::int64_t data_size = line.integer("data size");
  if (version == "4.1")
    p.major = 4;
  else if (version == "2" || version.rfind("2.", 0) == 0)
    p.major = 2;
  else
    line.fail("MSH version " + version + " is not supported (streamsolve reads MSH 2.2 and 4.1; "
              "re-export with gmsh -format msh41 or msh22)");
  if (file_type != 0 && file_type != 1) line.fail("file type " + std::to_string(file_type) + " is not 0 or 1");
  if (data_size != 8) line.fail("data size " + std::to_string(data_size) + " is not supported (only 8)");
  if (file_type == 1) {
    p.src.binary = true;
    // The integer 1 written in the writer's byte order tells us whether to swap.
    const auto one = p.cur.bin<std::int32_t>("endianness check");
    if (one == 0x01000000)
      p.cur.swap = true;
    else if (one != 1)
      p.cur.fail_at(p.cur.offset() - 4, "binary endianness check reads " + std::to_string(one) + ", expected 1");
  }
  p.expect_end("$EndMeshFormat", "the format line");
}

TetMesh parse_gmsh(Source src) {
  GmshParser p(std::move(src));
  read_header(p);
  while (!p.cur.at_end()) {
    Line line = p.cur.next_line();
    const std::string name(line.text());
    if (name.empty() || name[0] != '$')
      line.fail("expected a section header such as $Nodes, found '" + name.substr(0, 40) + "'");
    if (name == "$PhysicalNames") {
      p.read_physical_names();
    } else if ((name == "$Entities" || name == "$PartitionedEntities") && p.major == 4) {
      p.read_entities(name == "$PartitionedEntities");
    } else if (name == "$Nodes") {
      p.major == 4 ? p.read_nodes4() : p.read_nodes2();
    } else if (name == "$Elements") {
      p.require_nodes_first(line.offset());
      p.major == 4 ? p.read_elements4() : p.read_elements2();
    } else if (name == "$MeshFormat" || name.rfind("$End", 0) == 0) {
      line.fail("unexpected " + name);
    } else {
      p.cur.set_section(name);  // $Periodic, $NodeData, ...: not needed for the mesh
      p.cur.skip_section("$End" + name.substr(1));
    }
  }
  return p.finish();
}

}  // namespace
}  // namespace reader

TetMesh read_gmsh_data(const std::string& name, std::string_view data) {
  reader::Source src;
  src.name = name;
  src.data = data;
  return reader::parse_gmsh(src);
}

TetMesh read_gmsh(const std::string& path) {
  const std::string data = reader::load_file(path);
  return read_gmsh_data(path, data);
}

}  // namespace ss
