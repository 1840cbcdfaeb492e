// Entry functions of the fuzz targets (see fuzz_entries.hpp).
#include "fuzz_entries.hpp"

#include <filesystem>
#include <fstream>
#include <iostream>
#include <streambuf>
#include <string>
#include <string_view>

#include "mesh/load_mesh.hpp"
#include "mesh/read_mesh.hpp"
#include "cases/flow_case.hpp"
#include "cases/heat_case.hpp"
#include "util/error.hpp"

namespace ss::fuzz {
namespace {

// Readers warn on std::cerr (unused nodes, several physical groups); silence them while fuzzing.
class NullBuffer : public std::streambuf {
protected:
  int overflow(int c) override { return c == traits_type::eof() ? 0 : c; }
};

class QuietCerr {
public:
  QuietCerr() : saved_(std::cerr.rdbuf(&null_)) {}
  ~QuietCerr() { std::cerr.rdbuf(saved_); }
  QuietCerr(const QuietCerr&) = delete;
  QuietCerr& operator=(const QuietCerr&) = delete;

private:
  NullBuffer null_;
  std::streambuf* saved_;
};

std::string_view as_text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// What a Gmsh file's header declares: MSH major version ('2', '4', other) and file type token.
struct GmshHeader {
  bool gmsh = false;
  bool v4 = false;
  bool binary = false;
};

GmshHeader gmsh_header(std::string_view d) {
  GmshHeader h;
  std::size_t i = d.substr(0, 3) == "\xEF\xBB\xBF" ? 3 : 0;
  while (i < d.size() && (d[i] == ' ' || d[i] == '\t' || d[i] == '\r' || d[i] == '\n')) ++i;
  if (d.substr(i, 11) != "$MeshFormat") return h;
  h.gmsh = true;
  const std::size_t nl = d.find('\n', i);
  if (nl == std::string_view::npos) return h;
  const std::string_view line = d.substr(nl + 1, d.find('\n', nl + 1) - (nl + 1));
  std::size_t p = line.find_first_not_of(" \t");
  h.v4 = p != std::string_view::npos && line[p] == '4';
  p = line.find_first_of(" \t", p);
  if (p != std::string_view::npos) p = line.find_first_not_of(" \t", p);
  h.binary = p != std::string_view::npos && line[p] == '1';
  return h;
}

// The program's path for a mesh: read (format by content, gzip), validate, orient, [refine],
// renumber, topology, geometry. Small meshes are also refined once (refinement on what validation let through).
void load(std::string_view bytes) {
  TetMesh mesh = read_mesh_data("fuzz.msh", bytes);
  LoadOptions options;
  options.refine = mesh.tets.size() <= 64 ? 1 : 0;
  prepare_mesh(std::move(mesh), options);
}

int mesh_target(const std::uint8_t* data, std::size_t size, bool v4, bool binary) {
  const std::string_view bytes = as_text(data, size);
  const GmshHeader h = gmsh_header(bytes);
  if (!h.gmsh || h.v4 != v4 || h.binary != binary) return -1;
  QuietCerr quiet;
  try {
    load(bytes);
  } catch (const Error&) {
  }
  return 0;
}

// Case files name a mesh that must exist: they are parsed as <tmp>/streamsolve_fuzz/case.toml,
// beside empty files of the names the seeds use.
std::string case_path() {
  static const std::string path = [] {
    namespace fs = std::filesystem;
    const fs::path dir = fs::temp_directory_path() / "streamsolve_fuzz";
    fs::create_directories(dir);
    for (const char* name : {"mesh.msh", "cube.msh", "crank.msh", "cavity.msh", "duct.msh"})
      if (!fs::exists(dir / name)) std::ofstream(dir / name).put('\n');
    return (dir / "case.toml").string();
  }();
  return path;
}

// Every expression a case holds is evaluated once, as the solvers would (muParser's byte code runs
// in another translation unit: the calls are not optimised away).
void probe(const Expression& e) { (void)e(0.25, 0.5, 0.75, 0.125); }
void probe(const VectorExpression& v) {
  for (const Expression& e : v) probe(e);
}

}  // namespace

int fuzz_gmsh22_ascii(const std::uint8_t* data, std::size_t size) { return mesh_target(data, size, false, false); }
int fuzz_gmsh22_binary(const std::uint8_t* data, std::size_t size) { return mesh_target(data, size, false, true); }
int fuzz_gmsh41_ascii(const std::uint8_t* data, std::size_t size) { return mesh_target(data, size, true, false); }
int fuzz_gmsh41_binary(const std::uint8_t* data, std::size_t size) { return mesh_target(data, size, true, true); }

int fuzz_netgen(const std::uint8_t* data, std::size_t size) {
  QuietCerr quiet;
  try {
    load(as_text(data, size));
  } catch (const Error&) {
  }
  return 0;
}

int fuzz_gzip(const std::uint8_t* data, std::size_t size) {
  if (size < 2 || data[0] != 0x1f || data[1] != 0x8b) return -1;  // the gzip target keeps to gzip input
  return fuzz_netgen(data, size);
}

int fuzz_heat_case(const std::uint8_t* data, std::size_t size) {
  const std::string text(as_text(data, size));
  try {
    const HeatCase c = parse_heat_case(text, case_path());
    if (c.material) probe(c.material->source);
    for (const auto& [group, m] : c.materials) probe(m.source);
    for (const BoundaryCondition& b : c.boundaries) probe(b.value);
    if (c.time) probe(c.time->initial);
  } catch (const Error&) {
  }
  return 0;
}

int fuzz_flow_case(const std::uint8_t* data, std::size_t size) {
  const std::string text(as_text(data, size));
  try {
    const FlowCase c = parse_flow_case(text, case_path());
    probe(c.initial_velocity);
    if (c.exact_velocity) probe(*c.exact_velocity);
    for (const FlowBoundary& b : c.boundaries) {
      probe(b.velocity);
      probe(b.pressure);
    }
  } catch (const Error&) {
  }
  return 0;
}

}  // namespace ss::fuzz
