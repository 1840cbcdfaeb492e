// Format detection by content: the first non-blank bytes decide, not the file name.
#include "mesh/read_mesh.hpp"

#include "mesh/reader_io.hpp"
#include "util/error.hpp"

namespace ss {

namespace {

bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

std::string printable(std::string_view s) {
  std::string out;
  for (char c : s.substr(0, 24)) {
    if (c == '\n' || c == '\r') break;
    out += (c >= 32 && c < 127) ? c : '?';
  }
  return out;
}

// The content of a file, already decompressed.
TetMesh read_plain_data(const std::string& name, std::string_view data) {
  std::size_t start = 0;
  if (starts_with(data, "\xEF\xBB\xBF")) start = 3;  // UTF-8 byte order mark
  while (start < data.size() && (data[start] == ' ' || data[start] == '\t' || data[start] == '\r' ||
                                 data[start] == '\n'))
    ++start;
  const std::string_view head = data.substr(start);
  if (head.empty()) SS_THROW(name << ": the file is empty");
  if (starts_with(head, "$MeshFormat")) return read_gmsh_data(name, data);
  if (starts_with(head, "mesh3d")) return read_netgen_data(name, data);
  if (starts_with(head, "$NOD") || starts_with(head, "$PTS"))
    SS_THROW(name << ":1: Gmsh MSH 1 format is not supported (re-export with gmsh -format msh41)");
  if (starts_with(head, "mesh2d") || starts_with(head, "mesh1d"))
    SS_THROW(name << ":1: Netgen " << head.substr(0, 6) << " file; streamsolve needs a 3D (mesh3d) mesh");
  SS_THROW(name << ": unknown mesh format: expected a Gmsh .msh file (starting with $MeshFormat) or a "
                   "Netgen .vol file (starting with mesh3d), but it starts with '"
                << printable(head) << "'");
}

}  // namespace

TetMesh read_mesh_data(const std::string& name, std::string_view data) {
  if (reader::is_gzip(data)) return read_plain_data(name, reader::gunzip_data(name, data));
  return read_plain_data(name, data);
}

TetMesh read_mesh(const std::string& path) {
  const std::string data = reader::load_file(path);
  return read_mesh_data(path, data);
}

}  // namespace ss
