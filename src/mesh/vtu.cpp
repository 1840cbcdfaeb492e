#include "mesh/vtu.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstring>
#include <new>
#include <ostream>
#include <sstream>
#include <utility>

#include <libdeflate.h>
#include <omp.h>

#include "mesh/periodic.hpp"
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

// One libdeflate compressor per OpenMP thread and level (kZlibLevel or 0), made on first use.
// libdeflate writes the zlib format vtkZLibDataCompressor reads, at about twice zlib's level-1 speed.
class Deflaters {
public:
  Deflaters() : per_thread_(size_t(std::max(1, omp_get_max_threads()))) {}
  ~Deflaters() {
    for (auto& levels : per_thread_)
      for (libdeflate_compressor* c : levels)
        if (c) libdeflate_free_compressor(c);
  }
  Deflaters(const Deflaters&) = delete;
  Deflaters& operator=(const Deflaters&) = delete;
  // This thread's compressor; nullptr when it cannot be allocated.
  libdeflate_compressor* get(int level) {
    const size_t t = size_t(omp_get_thread_num());
    if (t >= per_thread_.size()) return nullptr;
    libdeflate_compressor*& c = per_thread_[t][level ? 1 : 0];
    if (!c) c = libdeflate_alloc_compressor(level);
    return c;
  }

private:
  std::vector<std::array<libdeflate_compressor*, 2>> per_thread_;
};

// Writes the <AppendedData> section, array by array, and returns each array's offset in it.
// Compressed arrays are laid out as vtkZLibDataCompressor does: UInt64 words [blocks, block size,
// last block size, each block's compressed size], then the blocks. Their 64 KiB blocks are compressed
// in batches on all cores while one of the threads writes the batch before (the file write and the
// compression overlap; only two batches are held); the header words, known once the last block is
// compressed, go into the space kept for them. An array whose sampled blocks shrink by less than 20 %
// goes into deflate's stored blocks (level 0) instead: the same format, read by every reader, at the
// speed of a copy. Doubles a solver computed are such arrays (deflate saved 14 % of a heat flux at
// 60 MB/s per core).
class AppendedWriter {
public:
  explicit AppendedWriter(std::ostream& os) : os_(os), start_(os.tellp()) {}

  // UInt64 byte count, then the bytes.
  std::uint64_t write_raw(const DataArray& a) {
    const std::uint64_t offset = here(), bytes = a.bytes();
    os_.write(reinterpret_cast<const char*>(&bytes), 8);
    for (const auto& [data, size] : a.pieces) os_.write(reinterpret_cast<const char*>(data), std::streamsize(size));
    return offset;
  }

  std::uint64_t write_compressed(const DataArray& a) {
    const std::uint64_t offset = here();
    const size_t bytes = a.bytes(), blocks = (bytes + kBlockSize - 1) / kBlockSize;
    std::vector<std::uint64_t> header(3 + blocks, 0);
    header[0] = blocks, header[1] = kBlockSize, header[2] = blocks ? bytes - (blocks - 1) * kBlockSize : 0;
    const std::streampos header_at = os_.tellp();
    write_words(header);  // kept for the block sizes

    const int level = compresses(a, bytes, blocks) ? kZlibLevel : 0;
    Batch batch[2];
    for (Batch& b : batch) b.slots.resize(kBatchBlocks * slot_), b.sizes.resize(kBatchBlocks);
    int worst = 0;
    for (size_t first = 0, k = 0;; first += kBatchBlocks, ++k) {
      Batch &fill = batch[k % 2], &done = batch[(k + 1) % 2];
      const size_t n = first < blocks ? std::min(kBatchBlocks, blocks - first) : 0;
      if (n == 0 && done.count == 0) break;
#pragma omp parallel
      {
#pragma omp single nowait
        write_batch(done);
#pragma omp for schedule(dynamic) reduction(max : worst) nowait
        for (size_t i = 0; i < n; ++i)
          worst = std::max(worst, deflate_block(a, first + i, level, &fill.slots[i * slot_], fill.sizes[i]));
      }
      done.count = 0, fill.count = n;
      for (size_t i = 0; i < n; ++i) header[3 + first + i] = fill.sizes[i];
      if (worst != 0) break;
    }
    if (worst == 1) throw std::bad_alloc();
    SS_REQUIRE(worst == 0, "compression of VTU array '" << a.name << "' failed");
    const std::streampos end = os_.tellp();
    os_.seekp(header_at);
    write_words(header);
    os_.seekp(end);
    return offset;
  }

private:
  static constexpr size_t kBatchBlocks = 32;  // 2 MiB of input per batch

  struct Batch {
    std::vector<unsigned char> slots;  // block i at i * slot_
    std::vector<size_t> sizes;         // block i's compressed size
    size_t count = 0;                  // blocks held
  };

  std::uint64_t here() const { return std::uint64_t(os_.tellp() - start_); }
  void write_words(const std::vector<std::uint64_t>& words) {
    os_.write(reinterpret_cast<const char*>(words.data()), std::streamsize(8 * words.size()));
  }
  void write_batch(const Batch& b) {
    for (size_t i = 0; i < b.count; ++i)
      os_.write(reinterpret_cast<const char*>(&b.slots[i * slot_]), std::streamsize(b.sizes[i]));
  }

  // Compresses block b of `a` into out (slot_ bytes) and sets its size: 0 done, 1 out of memory,
  // 2 failed otherwise. No exception may leave the OpenMP regions (it would end the program): a
  // failed allocation is reported after them.
  int deflate_block(const DataArray& a, size_t b, int level, unsigned char* out, size_t& size) {
    try {
      libdeflate_compressor* c = deflaters_.get(level);
      if (!c) return 1;
      std::vector<unsigned char> scratch;
      const size_t len = std::min(kBlockSize, a.bytes() - b * kBlockSize);
      size = libdeflate_zlib_compress(c, a.view(b * kBlockSize, len, scratch), len, out, slot_);
      return size ? 0 : 2;
    } catch (const std::bad_alloc&) {
      return 1;
    }
  }

  // Does the array compress? Blocks spread evenly over it decide (its start alone can mislead: the
  // first cells of a refined mesh may all lie where the field is constant).
  bool compresses(const DataArray& a, size_t bytes, size_t blocks) {
    const size_t sample = std::min(blocks, kSampleBlocks);
    if (sample == 0) return false;
    std::vector<unsigned char> out(sample * slot_);
    std::vector<size_t> sizes(sample, 0);
    size_t sample_bytes = 0;
    int worst = 0;
#pragma omp parallel for schedule(dynamic) reduction(max : worst) reduction(+ : sample_bytes)
    for (size_t k = 0; k < sample; ++k) {
      const size_t b = k * blocks / sample;
      worst = std::max(worst, deflate_block(a, b, kZlibLevel, &out[k * slot_], sizes[k]));
      sample_bytes += std::min(kBlockSize, bytes - b * kBlockSize);
    }
    if (worst == 1) throw std::bad_alloc();
    SS_REQUIRE(worst == 0, "compression of VTU array '" << a.name << "' failed");
    size_t packed = 0;
    for (size_t s : sizes) packed += s;
    return double(packed) < kWorthCompressing * double(sample_bytes);
  }

  std::ostream& os_;
  const std::streampos start_;
  Deflaters deflaters_;
  const size_t slot_ = libdeflate_zlib_compress_bound(nullptr, kBlockSize);
};

// An appended array's offset="N" attribute, padded with spaces to a fixed width: its space is kept
// when the element is written and filled once the appended data is (as VTK's own writer does).
constexpr size_t kOffsetAttributeWidth = 29;  // offset="" and 20 digits
std::string offset_attribute(std::uint64_t offset) {
  std::string text = "offset=\"" + std::to_string(offset) + "\"";
  text.resize(kOffsetAttributeWidth, ' ');
  return text;
}

// The <DataArray> element: inline data for ascii and base64, a reference into <AppendedData>
// otherwise (its offset attribute's position goes to offset_at).
void write_data_array(std::ostream& os, const DataArray& a, VtuEncoding encoding, std::streampos& offset_at) {
  os << "        <DataArray type=\"" << a.type << "\" Name=\"" << a.name << "\"";
  if (a.components > 1) os << " NumberOfComponents=\"" << a.components << "\"";
  if (encoding == VtuEncoding::compressed || encoding == VtuEncoding::raw) {
    os << " format=\"appended\" ";
    offset_at = os.tellp();
    os << offset_attribute(0) << "/>\n";
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

namespace {
// A point array of a periodic mesh's nodes on its unfolded points (point_node: the node of each).
VtuArray on_points(const VtuArray& a, const std::vector<NodeId>& point_node) {
  VtuArray out = a;
  const auto pick = [&](auto& to, const auto& from, size_t width) {
    to.resize(point_node.size() * width);
    for (size_t p = 0; p < point_node.size(); ++p)
      for (size_t k = 0; k < width; ++k) to[p * width + k] = from[size_t(point_node[p]) * width + k];
  };
  if (a.integer) pick(out.ints, a.ints, size_t(a.components));
  else if (a.single) pick(out.float_vecs, a.float_vecs, 1);
  else if (a.components == 3) pick(out.vecs, a.vecs, 1);
  else pick(out.values, a.values, 1);
  return out;
}
}  // namespace

void write_vtu(const std::string& path, const TetMesh& mesh, const std::vector<VtuArray>& point_data,
               const std::vector<VtuArray>& cell_data, const VtuOptions& options) {
  if (is_periodic(mesh)) {  // written unfolded: a seam's nodes once on each side, so every tet is in place
    for (const auto& a : point_data) check_array(a, mesh.nodes.size(), "point", path);
    const UnfoldedMesh u = unfold_periodic(mesh);
    std::vector<VtuArray> points;
    for (const auto& a : point_data) points.push_back(on_points(a, u.point_node));
    write_vtu(path, u.mesh, points, cell_data, options);
    return;
  }
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
  std::vector<std::streampos> offset_at(arrays.size());  // where each offset attribute lies
  const auto section = [&](std::ostream& os, size_t from, size_t to) {
    for (size_t i = from; i < to; ++i) write_data_array(os, arrays[i], enc, offset_at[i]);
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
    AppendedWriter writer(os);
    std::vector<std::uint64_t> offsets_in_data;
    for (const DataArray& a : arrays)
      offsets_in_data.push_back(enc == VtuEncoding::compressed ? writer.write_compressed(a) : writer.write_raw(a));
    os << "\n  </AppendedData>\n";
    os << "</VTKFile>\n";
    for (size_t i = 0; i < arrays.size(); ++i) {
      os.seekp(offset_at[i]);
      os << offset_attribute(offsets_in_data[i]);
    }
  } else {
    os << "</VTKFile>\n";
  }
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
