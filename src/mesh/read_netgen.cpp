// Netgen .vol reader (text). The file is a list of sections, each a keyword line, a count line and
// that many rows; sections we do not need (edgesegments, face_colours, ...) are skipped. Rows:
//   surfaceelements[gi|uv]:  surfnr bcnr domin domout np p1..pnp [extra]  -> triangle, group bcnr
//   volumeelements:          matnr np p1..pnp                            -> tet, group matnr
//   points:                  x y z                                       (ids 1..n, in order)
//   materials / bcnames:     nr name  (volume / surface group names: separate name spaces)
// Tags for messages: points, volume and surface elements by their 1-based row in their section.
// Everything after `endmesh` (the CSG geometry) is ignored. Netgen tets have the opposite vertex
// handedness to Gmsh; the reader swaps two vertices so that both come out positively oriented.
#include <array>
#include <utility>

#include "mesh/read_mesh.hpp"
#include "mesh/reader_assembly.hpp"
#include "mesh/reader_io.hpp"
#include "util/error.hpp"

namespace ss {

namespace reader {
namespace {

struct NetgenElement {
  std::array<std::int64_t, 4> p{};
  std::int32_t group = 0;
  std::int64_t row = 0;  // 1-based row in its section: the number a user finds in the file
  std::size_t offset = 0;
};

std::int64_t read_count(Cursor& cur, const std::string& section) {
  cur.set_section(section);
  Line line = cur.next_line();
  const std::int64_t n = line.integer(("number of " + section).c_str());
  line.finish("the count");
  if (n < 0) line.fail("negative count for " + section);
  return n;
}

// A row must not be the next section's keyword: that means the count was too large.
void check_row(Line& line, const std::string& section, std::int64_t declared, std::int64_t i) {
  const char c = line.text().empty() ? ' ' : line.text()[0];
  if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '#')
    line.fail(section + " declares " + std::to_string(declared) + " rows but has only " + std::to_string(i));
}

void note_unsupported(std::vector<Unsupported>& list, const std::string& what, std::size_t offset) {
  for (Unsupported& u : list)
    if (u.description == what) {
      ++u.count;
      return;
    }
  list.push_back({what, 1, offset});
}

std::string element_kind(bool volume, std::int64_t np) {
  const std::string n = std::to_string(np) + "-node ";
  if (!volume) return n + (np == 4 || np == 8 ? "quadrilaterals" : "triangles") + " (Netgen surface elements)";
  switch (np) {
    case 5: return n + "pyramids (Netgen)";
    case 6: return n + "prisms (Netgen)";
    case 8: return n + "hexahedra (Netgen)";
    default: return n + "tetrahedra (Netgen)";
  }
}

TetMesh parse_netgen(const Source& src) {
  Cursor cur(src);
  Line first = cur.next_line();
  if (first.word("keyword") != "mesh3d") first.fail("expected 'mesh3d' (Netgen .vol)");
  std::vector<NetgenElement> tets, triangles;
  std::vector<Unsupported> unsupported;
  RawNodes raw;
  bool have_points = false, ended = false;
  TetMesh mesh;
  while (!ended && !cur.at_end()) {
    Line line = cur.next_line();
    if (line.starts_with("#")) continue;
    const std::string key(line.word("keyword"));
    if (key == "dimension") {
      cur.set_section(key);
      Line l = cur.next_line();
      const std::int64_t dim = l.integer("dimension");
      if (dim != 3) l.fail("Netgen mesh of dimension " + std::to_string(dim) + "; streamsolve needs a 3D mesh");
    } else if (key == "surfaceelements" || key == "surfaceelementsgi" || key == "surfaceelementsuv") {
      const std::int64_t n = read_count(cur, key);
      for (std::int64_t i = 0; i < n; ++i) {
        Line l = cur.next_line();
        check_row(l, key, n, i);
        l.integer("surface number");
        const std::int64_t bc = l.group("boundary condition number");
        l.integer("domain in");
        l.integer("domain out");
        const std::int64_t np = l.integer("number of points");
        if (np < 3 || np > 8) l.fail("surface element with " + std::to_string(np) + " points");
        NetgenElement e;
        for (std::int64_t k = 0; k < np; ++k) {
          const std::int64_t p = l.integer("point number");
          if (k < 4) e.p[static_cast<std::size_t>(k)] = p;
        }
        if (key == "surfaceelements") l.finish("the surface element");
        if (np != 3) {
          note_unsupported(unsupported, element_kind(false, np), l.offset());
          continue;
        }
        e.group = static_cast<std::int32_t>(bc);
        e.row = i + 1;
        e.offset = l.offset();
        triangles.push_back(e);
      }
    } else if (key == "volumeelements") {
      const std::int64_t n = read_count(cur, key);
      tets.reserve(static_cast<std::size_t>(std::min<std::int64_t>(n, src.data.size() / 8 + 1)));
      for (std::int64_t i = 0; i < n; ++i) {
        Line l = cur.next_line();
        check_row(l, key, n, i);
        const std::int64_t mat = l.group("material number");
        const std::int64_t np = l.integer("number of points");
        if (np < 4 || np > 20) l.fail("volume element with " + std::to_string(np) + " points");
        NetgenElement e;
        for (std::int64_t k = 0; k < np; ++k) {
          const std::int64_t p = l.integer("point number");
          if (k < 4) e.p[static_cast<std::size_t>(k)] = p;
        }
        l.finish("the volume element");
        if (np != 4) {
          note_unsupported(unsupported, element_kind(true, np), l.offset());
          continue;
        }
        e.group = static_cast<std::int32_t>(mat);
        e.row = i + 1;
        e.offset = l.offset();
        tets.push_back(e);
      }
    } else if (key == "points") {
      if (have_points) line.fail("a second points section");
      have_points = true;
      const std::int64_t n = read_count(cur, key);
      raw.reserve(static_cast<std::size_t>(std::min<std::int64_t>(n, src.data.size() / 8 + 1)));
      for (std::int64_t i = 0; i < n; ++i) {
        Line l = cur.next_line();
        check_row(l, key, n, i);
        glm::dvec3 x;
        x.x = l.real("x coordinate");
        x.y = l.real("y coordinate");
        x.z = l.real("z coordinate");
        l.finish("the point coordinates");
        raw.tags.push_back(i + 1);
        raw.coords.push_back(x);
        raw.offsets.push_back(l.offset());
      }
    } else if (key == "materials" || key == "bcnames") {
      const std::int64_t n = read_count(cur, key);
      for (std::int64_t i = 0; i < n; ++i) {
        Line l = cur.next_line();
        const std::int64_t id = l.group(key == "materials" ? "material number" : "boundary condition number");
        const std::string name = l.at_end() ? std::string() : l.quoted("name");
        if (!name.empty())
          add_group_name(mesh, key == "materials" ? GroupKind::volume : GroupKind::surface, static_cast<std::int32_t>(id), name);
      }
    } else if (key == "endmesh") {
      ended = true;
    }
    // Any other line (keywords of sections we skip and their rows) is ignored.
    cur.set_section("");
  }
  if (!ended) SS_THROW(src.where(src.data.size()) << ": no 'endmesh' line; the file is truncated");
  if (!have_points) SS_THROW(src.name << ": no points section");
  reject_unsupported(src, unsupported);

  NodeTable table(src, std::move(raw));
  const std::int64_t np = static_cast<std::int64_t>(table.size());
  auto resolve = [&](const NetgenElement& e, int count, const char* kind) {
    std::array<NodeId, 4> ids{};
    for (int k = 0; k < count; ++k) {
      const std::int64_t p = e.p[static_cast<std::size_t>(k)];
      if (p < 1 || p > np)
        SS_THROW(src.where(e.offset) << ": " << kind << " refers to point " << p << ", out of range (the file has "
                                     << np << " points)");
      ids[static_cast<std::size_t>(k)] = static_cast<NodeId>(p - 1);
    }
    return ids;
  };
  mesh.node_tags = table.tags();
  mesh.nodes = std::move(table.coords());
  for (const NetgenElement& e : tets) {
    // Netgen orders tet vertices with the opposite handedness to Gmsh; swap two so that
    // well-formed meshes from either format come out positively oriented.
    Tet t = resolve(e, 4, "volume element");
    std::swap(t[0], t[1]);
    mesh.tets.push_back(t);
    mesh.tet_groups.push_back(e.group);
    mesh.tet_tags.push_back(e.row);
  }
  for (const NetgenElement& e : triangles) {
    const auto ids = resolve(e, 3, "surface element");
    mesh.boundary_triangles.push_back({ids[0], ids[1], ids[2]});
    mesh.triangle_groups.push_back(e.group);
    mesh.triangle_tags.push_back(e.row);
  }
  finish_mesh(src, mesh);
  return mesh;
}

}  // namespace
}  // namespace reader

TetMesh read_netgen_data(const std::string& name, std::string_view data) {
  reader::Source src;
  src.name = name;
  src.data = data;
  return reader::parse_netgen(src);
}

TetMesh read_netgen(const std::string& path) {
  const std::string data = reader::load_file(path);
  return read_netgen_data(path, data);
}

}  // namespace ss
