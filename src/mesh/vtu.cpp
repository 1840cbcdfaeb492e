#include "mesh/vtu.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <ostream>

#include <zlib.h>

#include "util/atomic_file.hpp"
#include "util/error.hpp"

namespace ss {
namespace {

constexpr std::uint8_t kVtkTetra = 10, kVtkTriangle = 5;
constexpr size_t kBlockSize = 1 << 16;  // uncompressed bytes per zlib block
constexpr int kZlibLevel = 1;  // fastest; level 6 gave the same size (21.0 MB, 1M tets) at 2x the time

// Base64 of n bytes appended to out; chunks of whole 3-byte groups are encoded in parallel (each
// lands at its own offset, so the text is the same for any number of threads).
void base64_append(std::string& out, const unsigned char* data, size_t n) {
  static const char* table = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  const size_t base = out.size(), groups = n / 3;
  out.resize(base + (n + 2) / 3 * 4);
  char* text = &out[base];
  constexpr size_t kChunk = 1 << 16;  // groups per task
#pragma omp parallel for schedule(static) if (groups > 4 * kChunk)
  for (size_t first = 0; first < groups; first += kChunk) {
    for (size_t g = first; g < std::min(groups, first + kChunk); ++g) {
      const unsigned char* d = data + 3 * g;
      const std::uint32_t v = (d[0] << 16) | (d[1] << 8) | d[2];
      char* t = text + 4 * g;
      t[0] = table[v >> 18], t[1] = table[(v >> 12) & 63], t[2] = table[(v >> 6) & 63], t[3] = table[v & 63];
    }
  }
  const size_t i = 3 * groups;
  if (i < n) {
    std::uint32_t v = data[i] << 16;
    if (i + 1 < n) v |= data[i + 1] << 8;
    char* t = text + 4 * groups;
    t[0] = table[v >> 18], t[1] = table[(v >> 12) & 63];
    t[2] = i + 1 < n ? table[(v >> 6) & 63] : '=';
    t[3] = '=';
  }
}

// Raw bytes of one array, encoded for the <DataArray> body.
std::string encode(const void* ptr, size_t bytes, VtuEncoding encoding) {
  const auto* data = static_cast<const unsigned char*>(ptr);
  std::string out;
  if (encoding == VtuEncoding::base64) {
    // One base64 stream: UInt64 byte count, then the data (what VTK writes uncompressed).
    std::vector<unsigned char> buf(8 + bytes);
    const std::uint64_t n = bytes;
    std::memcpy(buf.data(), &n, 8);
    if (bytes) std::memcpy(buf.data() + 8, data, bytes);
    base64_append(out, buf.data(), buf.size());
    return out;
  }
  // Compressed: header [blocks, block size, last block size, compressed sizes...] as its own
  // base64 stream, then the concatenated zlib blocks as another.
  const size_t blocks = (bytes + kBlockSize - 1) / kBlockSize;
  std::vector<std::uint64_t> header(3 + blocks);
  header[0] = blocks;
  header[1] = kBlockSize;
  header[2] = blocks ? bytes - (blocks - 1) * kBlockSize : 0;
  std::vector<std::string> packed(blocks);
  bool ok = true;
#pragma omp parallel for schedule(dynamic) reduction(&& : ok)
  for (size_t b = 0; b < blocks; ++b) {
    const size_t len = std::min(kBlockSize, bytes - b * kBlockSize);
    uLongf dest_len = compressBound(len);
    packed[b].resize(dest_len);
    ok = ok && compress2(reinterpret_cast<Bytef*>(&packed[b][0]), &dest_len, data + b * kBlockSize, len, kZlibLevel) == Z_OK;
    packed[b].resize(dest_len);
  }
  SS_REQUIRE(ok, "zlib compression failed");
  std::string joined;
  for (size_t b = 0; b < blocks; ++b) header[3 + b] = packed[b].size(), joined += packed[b];
  base64_append(out, reinterpret_cast<const unsigned char*>(header.data()), header.size() * 8);
  base64_append(out, reinterpret_cast<const unsigned char*>(joined.data()), joined.size());
  return out;
}

template <typename T>
void write_ascii(std::ostream& os, const std::vector<T>& v, int per_line) {
  char buf[32];
  for (size_t i = 0; i < v.size(); ++i) {
    if constexpr (std::is_floating_point_v<T>)
      std::snprintf(buf, sizeof buf, "%.17g", static_cast<double>(v[i]));
    else
      std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(v[i]));
    os << buf << ((i + 1) % per_line == 0 || i + 1 == v.size() ? '\n' : ' ');
  }
}

template <typename T>
void write_data_array(std::ostream& os, const char* type, const std::string& name, int components,
                      const std::vector<T>& v, VtuEncoding encoding) {
  os << "        <DataArray type=\"" << type << "\" Name=\"" << name << "\"";
  if (components > 1) os << " NumberOfComponents=\"" << components << "\"";
  os << " format=\"" << (encoding == VtuEncoding::ascii ? "ascii" : "binary") << "\">\n";
  if (encoding == VtuEncoding::ascii)
    write_ascii(os, v, components > 1 ? components : 6);
  else
    os << encode(v.data(), v.size() * sizeof(T), encoding) << "\n";
  os << "        </DataArray>\n";
}

void check_array(const VtuArray& a, size_t tuples, const char* where, const std::string& path) {
  SS_REQUIRE(!a.name.empty() && a.name.find_first_of("\"<>&") == std::string::npos,
             path << ": " << where << " array name '" << a.name << "' is empty or has XML special characters");
  SS_REQUIRE(a.components == 1 || a.components == 3,
             path << ": " << where << " array '" << a.name << "' has " << a.components << " components (1 or 3)");
  const size_t n = a.integer ? a.ints.size() : a.values.size();
  SS_REQUIRE(n == tuples * a.components, path << ": " << where << " array '" << a.name << "' has " << n
                                              << " values, expected " << tuples << " x " << a.components);
}

void write_arrays(std::ostream& os, const std::vector<VtuArray>& arrays, VtuEncoding encoding) {
  for (const VtuArray& a : arrays) {
    if (!a.integer)
      write_data_array(os, "Float64", a.name, a.components, a.values, encoding);
    else
      write_data_array(os, "Int32", a.name, a.components, a.ints, encoding);
  }
}

}  // namespace

VtuArray VtuArray::scalars(std::string name, std::vector<double> values) {
  return VtuArray{std::move(name), 1, std::move(values), {}};
}

VtuArray VtuArray::vectors(std::string name, const std::vector<glm::dvec3>& values) {
  VtuArray a{std::move(name), 3, {}, {}};
  a.values.resize(values.size() * 3);
  for (size_t i = 0; i < values.size(); ++i)
    a.values[3 * i] = values[i].x, a.values[3 * i + 1] = values[i].y, a.values[3 * i + 2] = values[i].z;
  return a;
}

VtuArray VtuArray::integers(std::string name, std::vector<std::int32_t> values) {
  return VtuArray{std::move(name), 1, {}, std::move(values), true};
}

VtuEncoding parse_vtu_encoding(const std::string& text) {
  if (text == "ascii") return VtuEncoding::ascii;
  if (text == "base64" || text == "binary") return VtuEncoding::base64;
  if (text == "compressed" || text == "zlib") return VtuEncoding::compressed;
  SS_THROW("unknown VTU encoding '" << text << "' (ascii, binary, compressed)");
}

void write_vtu(const std::string& path, const TetMesh& mesh, const std::vector<VtuArray>& point_data,
               const std::vector<VtuArray>& cell_data, const VtuOptions& options) {
  const size_t num_points = mesh.nodes.size();
  const size_t num_tets = mesh.tets.size();
  const size_t num_tris = options.boundary_triangles ? mesh.boundary_triangles.size() : 0;
  const size_t num_cells = num_tets + num_tris;
  for (const auto& a : point_data) check_array(a, num_points, "point", path);
  for (const auto& a : cell_data) check_array(a, num_cells, "cell", path);
  SS_REQUIRE(4 * num_tets + 3 * num_tris < (size_t(1) << 31), path << ": too many cells for Int32 offsets");

  std::vector<double> points(3 * num_points);
#pragma omp parallel for schedule(static)
  for (size_t i = 0; i < num_points; ++i)
    points[3 * i] = mesh.nodes[i].x, points[3 * i + 1] = mesh.nodes[i].y, points[3 * i + 2] = mesh.nodes[i].z;
  std::vector<std::int32_t> connectivity(4 * num_tets + 3 * num_tris);
  std::vector<std::int32_t> offsets(num_cells);
  std::vector<std::uint8_t> types(num_cells, kVtkTetra);
#pragma omp parallel for schedule(static)
  for (size_t c = 0; c < num_tets; ++c) {
    std::copy(mesh.tets[c].begin(), mesh.tets[c].end(), connectivity.begin() + std::ptrdiff_t(4 * c));
    offsets[c] = static_cast<std::int32_t>(4 * (c + 1));
  }
  for (size_t t = 0; t < num_tris; ++t) {
    std::copy(mesh.boundary_triangles[t].begin(), mesh.boundary_triangles[t].end(),
              connectivity.begin() + std::ptrdiff_t(4 * num_tets + 3 * t));
    offsets[num_tets + t] = static_cast<std::int32_t>(4 * num_tets + 3 * (t + 1));
    types[num_tets + t] = kVtkTriangle;
  }

  const VtuEncoding enc = options.encoding;
  AtomicFile file(path);
  std::ostream& os = file.stream();
  os << "<?xml version=\"1.0\"?>\n<VTKFile type=\"UnstructuredGrid\" version=\"1.0\" byte_order=\"LittleEndian\""
     << " header_type=\"UInt64\"" << (enc == VtuEncoding::compressed ? " compressor=\"vtkZLibDataCompressor\"" : "")
     << ">\n  <UnstructuredGrid>\n    <Piece NumberOfPoints=\"" << num_points << "\" NumberOfCells=\"" << num_cells
     << "\">\n";
  os << "      <PointData>\n";
  write_arrays(os, point_data, enc);
  os << "      </PointData>\n      <CellData>\n";
  write_arrays(os, cell_data, enc);
  os << "      </CellData>\n      <Points>\n";
  write_data_array(os, "Float64", "Points", 3, points, enc);
  os << "      </Points>\n      <Cells>\n";
  write_data_array(os, "Int32", "connectivity", 1, connectivity, enc);
  write_data_array(os, "Int32", "offsets", 1, offsets, enc);
  write_data_array(os, "UInt8", "types", 1, types, enc);
  os << "      </Cells>\n    </Piece>\n  </UnstructuredGrid>\n</VTKFile>\n";
  file.commit();
}

void write_pvtu(const std::string& path, const std::vector<std::string>& pieces, const std::vector<VtuArray>& point_data,
                const std::vector<VtuArray>& cell_data) {
  SS_REQUIRE(!pieces.empty(), path << ": a parallel VTU needs at least one piece");
  const auto declare = [&](std::ostringstream& os, const std::vector<VtuArray>& arrays, const char* where) {
    for (const VtuArray& a : arrays) {
      check_array(a, (a.integer ? a.ints.size() : a.values.size()) / size_t(a.components), where, path);
      os << "      <PDataArray type=\"" << (a.integer ? "Int32" : "Float64") << "\" Name=\"" << a.name << "\"";
      if (a.components > 1) os << " NumberOfComponents=\"" << a.components << "\"";
      os << "/>\n";
    }
  };
  std::ostringstream os;
  os << "<?xml version=\"1.0\"?>\n<VTKFile type=\"PUnstructuredGrid\" version=\"1.0\" byte_order=\"LittleEndian\""
     << " header_type=\"UInt64\">\n  <PUnstructuredGrid GhostLevel=\"0\">\n    <PPointData>\n";
  declare(os, point_data, "point");
  os << "    </PPointData>\n    <PCellData>\n";
  declare(os, cell_data, "cell");
  os << "    </PCellData>\n    <PPoints>\n      <PDataArray type=\"Float64\" Name=\"Points\" NumberOfComponents=\"3\"/>\n"
     << "    </PPoints>\n";
  for (const std::string& piece : pieces) {
    SS_REQUIRE(piece.find_first_of("\"<>&") == std::string::npos,
               path << ": piece name '" << piece << "' has XML special characters");
    os << "    <Piece Source=\"" << piece << "\"/>\n";
  }
  os << "  </PUnstructuredGrid>\n</VTKFile>\n";
  write_file_atomically(path, os.str());
}

void write_pvd(const std::string& path, const std::vector<PvdEntry>& entries) {
  std::ostringstream os;
  os << "<?xml version=\"1.0\"?>\n<VTKFile type=\"Collection\" version=\"0.1\" byte_order=\"LittleEndian\">\n"
     << "  <Collection>\n";
  char time[32];
  for (const PvdEntry& e : entries) {
    SS_REQUIRE(e.file.find_first_of("\"<>&") == std::string::npos,
               path << ": file name '" << e.file << "' has XML special characters");
    std::snprintf(time, sizeof time, "%.17g", e.time);
    os << "    <DataSet timestep=\"" << time << "\" group=\"\" part=\"0\" file=\"" << e.file << "\"/>\n";
  }
  os << "  </Collection>\n</VTKFile>\n";
  write_file_atomically(path, os.str());
}

}  // namespace ss
