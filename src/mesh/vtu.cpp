#include "mesh/vtu.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <new>
#include <ostream>
#include <sstream>
#include <utility>

#include <zlib.h>

#include "util/atomic_file.hpp"
#include "util/error.hpp"

namespace ss {
namespace {

static_assert(sizeof(glm::dvec3) == 3 * sizeof(double) && sizeof(glm::vec3) == 3 * sizeof(float) &&
                  sizeof(Tet) == 4 * sizeof(std::int32_t) &&
                  sizeof(Triangle) == 3 * sizeof(std::int32_t),
              "points, vectors and cells are written straight from memory as packed tuples");

constexpr std::uint8_t kVtkTetra = 10, kVtkTriangle = 5;
constexpr size_t kBlockSize = 1 << 16;  // uncompressed bytes per zlib block
constexpr int kZlibLevel = 1;  // fastest; level 6 gave the same size (21.0 MB, 1M tets) at 2x the time
constexpr size_t kSampleBlocks = 16;       // blocks compressed to decide whether an array compresses:
constexpr double kWorthCompressing = 0.8;  // it does when they shrink below this fraction

// One <DataArray>: its XML attributes and its bytes, which may lie in several pieces of memory
// (the tets' node ids, then the triangles'); each piece holds whole values.
struct DataArray {
  const char* type;  // "Float64", "Float32", "Int32" or "UInt8"
  std::string name;
  int components = 1;
  std::vector<std::pair<const unsigned char*, size_t>> pieces;

  DataArray(const char* t, std::string n, int c) : type(t), name(std::move(n)), components(c) {}
  template <typename T>
  DataArray& add(const T* data, size_t count) {
    if (count) pieces.emplace_back(reinterpret_cast<const unsigned char*>(data), count * sizeof(T));
    return *this;
  }
  size_t bytes() const {
    size_t n = 0;
    for (const auto& piece : pieces) n += piece.second;
    return n;
  }
  // Bytes [offset, offset + n): a pointer into the array when they lie in one piece, else a copy in scratch.
  const unsigned char* view(size_t offset, size_t n, std::vector<unsigned char>& scratch) const {
    size_t start = 0;
    for (const auto& [data, size] : pieces) {
      if (offset >= start && offset + n <= start + size) return data + (offset - start);
      start += size;
    }
    scratch.resize(n);
    start = 0;
    for (const auto& [data, size] : pieces) {  // copy the overlap of [offset, offset + n) with each piece
      const size_t lo = std::max(offset, start), hi = std::min(offset + n, start + size);
      if (lo < hi) std::memcpy(scratch.data() + (lo - offset), data + (lo - start), hi - lo);
      start += size;
    }
    return scratch.data();
  }
};

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

template <typename T>
void write_ascii(std::ostream& os, const DataArray& a) {
  const size_t per_line = a.components > 1 ? size_t(a.components) : 6, n = a.bytes() / sizeof(T);
  char buf[32];
  size_t i = 0;
  for (const auto& [data, size] : a.pieces) {
    for (size_t k = 0; k < size / sizeof(T); ++k, ++i) {
      T v;
      std::memcpy(&v, data + k * sizeof(T), sizeof(T));
      if constexpr (std::is_floating_point_v<T>)
        std::snprintf(buf, sizeof buf, sizeof(T) == 4 ? "%.9g" : "%.17g", static_cast<double>(v));
      else
        std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(v));
      os << buf << ((i + 1) % per_line == 0 || i + 1 == n ? '\n' : ' ');
    }
  }
}

// The array's bytes in the <AppendedData> section: UInt64 header words, then the data.
struct Appended {
  std::vector<std::uint64_t> header;  // raw: [bytes]; zlib: [blocks, block size, last block size, block sizes...]
  std::vector<std::string> blocks;    // zlib blocks; none for raw (the array's own pieces follow the header)
  size_t size = 0;                    // header and data bytes
};

// The array as vtkZLibDataCompressor lays it out, its 64 KiB blocks compressed in parallel. An array
// whose sampled blocks shrink by less than 20 % goes into zlib's stored blocks (level 0) instead: the
// same format, read by every reader, at the speed of a copy. Doubles a solver computed are such
// arrays: deflate saved 14 % of a heat flux at 60 MB/s per core, 60 % of the whole write's time.
Appended compress(const DataArray& a) {
  const size_t bytes = a.bytes(), blocks = (bytes + kBlockSize - 1) / kBlockSize;
  Appended out;
  out.header.assign(3 + blocks, 0);
  out.header[0] = blocks;
  out.header[1] = kBlockSize;
  out.header[2] = blocks ? bytes - (blocks - 1) * kBlockSize : 0;
  out.blocks.resize(blocks);
  // 0 packed, 1 out of memory, 2 zlib failed otherwise. No exception may leave the OpenMP regions
  // below (it would end the program): a failed allocation is reported after them.
  const auto pack = [&](size_t b, int level, std::string& packed) -> int {
    try {
      std::vector<unsigned char> scratch;
      const size_t len = std::min(kBlockSize, bytes - b * kBlockSize);
      uLongf dest_len = compressBound(len);
      packed.resize(dest_len);
      const int rc = compress2(reinterpret_cast<Bytef*>(&packed[0]), &dest_len, a.view(b * kBlockSize, len, scratch), len, level);
      packed.resize(dest_len);
      return rc == Z_OK ? 0 : rc == Z_MEM_ERROR ? 1 : 2;
    } catch (const std::bad_alloc&) {
      return 1;
    }
  };
  // Does it compress? Blocks spread evenly over the array decide (its start alone can mislead: the
  // first cells of a refined mesh may all lie where the field is constant).
  const size_t sample = std::min(blocks, kSampleBlocks);
  size_t sample_bytes = 0, sample_packed = 0;
  int worst = 0;
#pragma omp parallel for schedule(dynamic) reduction(max : worst) reduction(+ : sample_bytes, sample_packed)
  for (size_t k = 0; k < sample; ++k) {
    const size_t b = k * blocks / sample;
    std::string packed;
    worst = std::max(worst, pack(b, kZlibLevel, packed));
    sample_bytes += std::min(kBlockSize, bytes - b * kBlockSize), sample_packed += packed.size();
  }
  const int level = double(sample_packed) < kWorthCompressing * double(sample_bytes) ? kZlibLevel : 0;
  if (worst == 0) {
#pragma omp parallel for schedule(dynamic) reduction(max : worst)
    for (size_t b = 0; b < blocks; ++b) worst = std::max(worst, pack(b, level, out.blocks[b]));
  }
  if (worst == 1) throw std::bad_alloc();
  SS_REQUIRE(worst == 0, "zlib compression of VTU array '" << a.name << "' failed");
  out.size = out.header.size() * 8;
  for (size_t b = 0; b < blocks; ++b) out.header[3 + b] = out.blocks[b].size(), out.size += out.blocks[b].size();
  return out;
}

Appended uncompressed(const DataArray& a) {
  Appended out;
  out.header = {a.bytes()};
  out.size = 8 + a.bytes();
  return out;
}

// The <DataArray> element: inline data for ascii and base64, a reference into <AppendedData> otherwise.
void write_data_array(std::ostream& os, const DataArray& a, VtuEncoding encoding, size_t appended_offset) {
  os << "        <DataArray type=\"" << a.type << "\" Name=\"" << a.name << "\"";
  if (a.components > 1) os << " NumberOfComponents=\"" << a.components << "\"";
  if (encoding == VtuEncoding::compressed || encoding == VtuEncoding::raw) {
    os << " format=\"appended\" offset=\"" << appended_offset << "\"/>\n";
    return;
  }
  os << " format=\"" << (encoding == VtuEncoding::ascii ? "ascii" : "binary") << "\">\n";
  if (encoding == VtuEncoding::ascii) {
    const std::string type = a.type;
    if (type == "Float64")
      write_ascii<double>(os, a);
    else if (type == "Float32")
      write_ascii<float>(os, a);
    else if (type == "Int32")
      write_ascii<std::int32_t>(os, a);
    else
      write_ascii<std::uint8_t>(os, a);
  } else {
    // One base64 stream: UInt64 byte count, then the data (what VTK writes uncompressed).
    const std::uint64_t bytes = a.bytes();
    std::vector<unsigned char> buf(8 + bytes), scratch;
    std::memcpy(buf.data(), &bytes, 8);
    if (bytes) std::memcpy(buf.data() + 8, a.view(0, bytes, scratch), bytes);
    std::string text;
    base64_append(text, buf.data(), buf.size());
    os << text << "\n";
  }
  os << "        </DataArray>\n";
}

void check_array(const VtuArray& a, size_t tuples, const char* where, const std::string& path) {
  SS_REQUIRE(!a.name.empty() && a.name.find_first_of("\"<>&") == std::string::npos,
             path << ": " << where << " array name '" << a.name << "' is empty or has XML special characters");
  SS_REQUIRE(a.components == 1 || a.components == 3,
             path << ": " << where << " array '" << a.name << "' has " << a.components << " components (1 or 3)");
  SS_REQUIRE(a.tuples() == tuples, path << ": " << where << " array '" << a.name << "' has " << a.tuples() * size_t(a.components)
                                        << " values, expected " << tuples << " x " << a.components);
}

DataArray data_array(const VtuArray& a) {
  if (a.integer) return DataArray("Int32", a.name, a.components).add(a.ints.data(), a.ints.size());
  if (a.single)
    return DataArray("Float32", a.name, 3).add(reinterpret_cast<const float*>(a.float_vecs.data()), 3 * a.float_vecs.size());
  if (a.components == 3)
    return DataArray("Float64", a.name, 3).add(reinterpret_cast<const double*>(a.vecs.data()), 3 * a.vecs.size());
  return DataArray("Float64", a.name, 1).add(a.values.data(), a.values.size());
}

}  // namespace

VtuArray VtuArray::scalars(std::string name, std::vector<double> values) {
  VtuArray a;
  a.name = std::move(name), a.values = std::move(values);
  return a;
}

VtuArray VtuArray::vectors(std::string name, std::vector<glm::dvec3> values) {
  VtuArray a;
  a.name = std::move(name), a.components = 3, a.vecs = std::move(values);
  return a;
}

VtuArray VtuArray::float_vectors(std::string name, const std::vector<glm::dvec3>& values) {
  VtuArray a;
  a.name = std::move(name), a.components = 3, a.single = true;
  a.float_vecs.resize(values.size());
#pragma omp parallel for schedule(static) if (values.size() > 65536)
  for (size_t i = 0; i < values.size(); ++i) a.float_vecs[i] = glm::vec3(values[i]);
  return a;
}

VtuArray VtuArray::integers(std::string name, std::vector<std::int32_t> values) {
  VtuArray a;
  a.name = std::move(name), a.ints = std::move(values), a.integer = true;
  return a;
}

VtuEncoding parse_vtu_encoding(const std::string& text) {
  if (text == "ascii") return VtuEncoding::ascii;
  if (text == "base64" || text == "binary") return VtuEncoding::base64;
  if (text == "compressed" || text == "zlib") return VtuEncoding::compressed;
  if (text == "raw") return VtuEncoding::raw;
  SS_THROW("unknown VTU encoding '" << text << "' (ascii, binary, compressed, raw)");
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

  // Offsets and types are made here; everything else is written from the caller's memory.
  std::vector<std::int32_t> offsets(num_cells);
  std::vector<std::uint8_t> types(num_cells, kVtkTetra);
#pragma omp parallel for schedule(static)
  for (size_t c = 0; c < num_tets; ++c) offsets[c] = static_cast<std::int32_t>(4 * (c + 1));
  for (size_t t = 0; t < num_tris; ++t) {
    offsets[num_tets + t] = static_cast<std::int32_t>(4 * num_tets + 3 * (t + 1));
    types[num_tets + t] = kVtkTriangle;
  }
  // The arrays in file order: point data, cell data, points, connectivity, offsets, types.
  std::vector<DataArray> arrays;
  for (const auto& a : point_data) arrays.push_back(data_array(a));
  for (const auto& a : cell_data) arrays.push_back(data_array(a));
  arrays.push_back(DataArray("Float64", "Points", 3).add(reinterpret_cast<const double*>(mesh.nodes.data()), 3 * num_points));
  arrays.push_back(DataArray("Int32", "connectivity", 1)
                       .add(reinterpret_cast<const std::int32_t*>(mesh.tets.data()), 4 * num_tets)
                       .add(reinterpret_cast<const std::int32_t*>(mesh.boundary_triangles.data()), 3 * num_tris));
  arrays.push_back(DataArray("Int32", "offsets", 1).add(offsets.data(), num_cells));
  arrays.push_back(DataArray("UInt8", "types", 1).add(types.data(), num_cells));

  const VtuEncoding enc = options.encoding;
  const bool appended = enc == VtuEncoding::compressed || enc == VtuEncoding::raw;
  std::vector<Appended> data;
  std::vector<size_t> at(arrays.size(), 0);  // each array's offset in the appended data
  if (appended) {
    for (size_t i = 0; i < arrays.size(); ++i) {
      data.push_back(enc == VtuEncoding::compressed ? compress(arrays[i]) : uncompressed(arrays[i]));
      if (i + 1 < arrays.size()) at[i + 1] = at[i] + data[i].size;
    }
  }
  const auto section = [&](std::ostream& os, size_t from, size_t to) {
    for (size_t i = from; i < to; ++i) write_data_array(os, arrays[i], enc, at[i]);
  };

  AtomicFile file(path);
  std::ostream& os = file.stream();
  const size_t np = point_data.size(), nc = cell_data.size();
  os << "<?xml version=\"1.0\"?>\n<VTKFile type=\"UnstructuredGrid\" version=\"1.0\" byte_order=\"LittleEndian\""
     << " header_type=\"UInt64\"" << (enc == VtuEncoding::compressed ? " compressor=\"vtkZLibDataCompressor\"" : "")
     << ">\n  <UnstructuredGrid>\n    <Piece NumberOfPoints=\"" << num_points << "\" NumberOfCells=\"" << num_cells
     << "\">\n";
  os << "      <PointData>\n";
  section(os, 0, np);
  os << "      </PointData>\n      <CellData>\n";
  section(os, np, np + nc);
  os << "      </CellData>\n      <Points>\n";
  section(os, np + nc, np + nc + 1);
  os << "      </Points>\n      <Cells>\n";
  section(os, np + nc + 1, arrays.size());
  os << "      </Cells>\n    </Piece>\n  </UnstructuredGrid>\n";
  if (appended) {
    // Raw bytes after one underscore, ended by a newline (VTK's convention; meshio relies on both).
    os << "  <AppendedData encoding=\"raw\">\n   _";
    for (size_t i = 0; i < arrays.size(); ++i) {
      os.write(reinterpret_cast<const char*>(data[i].header.data()), std::streamsize(8 * data[i].header.size()));
      for (const std::string& block : data[i].blocks) os.write(block.data(), std::streamsize(block.size()));
      if (enc == VtuEncoding::raw)
        for (const auto& [bytes, size] : arrays[i].pieces) os.write(reinterpret_cast<const char*>(bytes), std::streamsize(size));
      std::vector<std::string>().swap(data[i].blocks);  // done with: free as we go
    }
    os << "\n  </AppendedData>\n";
  }
  os << "</VTKFile>\n";
  file.commit();
}

void write_pvtu(const std::string& path, const std::vector<std::string>& pieces, const std::vector<VtuArray>& point_data,
                const std::vector<VtuArray>& cell_data) {
  SS_REQUIRE(!pieces.empty(), path << ": a parallel VTU needs at least one piece");
  const auto declare = [&](std::ostringstream& os, const std::vector<VtuArray>& arrays, const char* where) {
    for (const VtuArray& a : arrays) {
      check_array(a, a.tuples(), where, path);
      os << "      <PDataArray type=\"" << a.vtk_type() << "\" Name=\"" << a.name << "\"";
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
