#pragma once
// VTK XML unstructured grid (.vtu) output for ParaView, and .pvd collections for time series.
// Every file is written atomically (temporary name, renamed when complete).
#include <cstdint>
#include <string>
#include <vector>

#include <glm/vec3.hpp>

#include "mesh/tet_mesh.hpp"

namespace ss {

enum class VtuEncoding {
  ascii,       // human-readable, large
  base64,      // inline binary (base64 of UInt64 byte count + raw little-endian data)
  compressed,  // appended raw binary in zlib blocks (vtkZLibDataCompressor), compressed in parallel
  raw,         // appended raw binary, uncompressed: written straight from memory, the fastest
};

// One point or cell array: Float64 scalars (`values`) or 3-vectors (`vecs`), or Int32 `ints`.
struct VtuArray {
  std::string name;
  int components = 1;  // 1 (scalar) or 3 (vector)
  std::vector<double> values;
  std::vector<glm::dvec3> vecs;
  std::vector<glm::vec3> float_vecs;  // written as Float32
  std::vector<std::int32_t> ints;
  bool integer = false;
  bool single = false;  // float_vecs holds the tuples

  size_t tuples() const {
    if (integer) return ints.size() / size_t(components);
    if (single) return float_vecs.size();
    return components == 3 ? vecs.size() : values.size();
  }
  const char* vtk_type() const { return integer ? "Int32" : single ? "Float32" : "Float64"; }

  static VtuArray scalars(std::string name, std::vector<double> values);
  static VtuArray vectors(std::string name, std::vector<glm::dvec3> values);
  // Float32 on file: half the bytes, for derived fields whose 7 digits are plenty (the heat flux).
  static VtuArray float_vectors(std::string name, const std::vector<glm::dvec3>& values);
  static VtuArray integers(std::string name, std::vector<std::int32_t> values);
};

struct VtuOptions {
  VtuEncoding encoding = VtuEncoding::compressed;
  // Append mesh.boundary_triangles as triangle cells after the tets; cell arrays then need one
  // value per tet followed by one per triangle.
  bool boundary_triangles = false;
};

// Writes the mesh's nodes and tets (and optionally boundary triangles) with the given arrays.
// Point arrays need nodes.size() tuples, cell arrays one per cell; throws ss::Error otherwise.
void write_vtu(const std::string& path, const TetMesh& mesh, const std::vector<VtuArray>& point_data,
               const std::vector<VtuArray>& cell_data, const VtuOptions& options = {});

// Parses "ascii", "base64"/"binary", "compressed"/"zlib", "raw"; throws ss::Error naming the choices.
VtuEncoding parse_vtu_encoding(const std::string& text);

// A parallel VTU (.pvtu): the index of the pieces one run wrote, one .vtu per rank (ParaView's
// convention). `pieces` are the piece file names as they should appear in the .pvtu (normally
// relative to its folder); the arrays give the names, components and types of the pieces' point and
// cell data (their values are not read).
void write_pvtu(const std::string& path, const std::vector<std::string>& pieces, const std::vector<VtuArray>& point_data,
                const std::vector<VtuArray>& cell_data);

struct PvdEntry {
  double time = 0;
  std::string file;  // as it should appear in the .pvd, normally relative to the .pvd's folder
};

// A ParaView collection of time steps.
void write_pvd(const std::string& path, const std::vector<PvdEntry>& entries);

}  // namespace ss
