// VTU/PVD output: read back with meshio (ASCII, binary, compressed, raw), atomic writes, bad input.
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

#include <gtest/gtest.h>

#include "mesh/vtu.hpp"
#include "mesh_test_util.hpp"
#include "util/error.hpp"

namespace ss {
namespace {

namespace fs = std::filesystem;

fs::path fresh_dir(const std::string& name) {
  fs::path dir = fs::path(SS_BINARY_DIR) / "test_output" / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

template <typename Rows>
void write_rows(const fs::path& path, const Rows& rows) {
  std::ofstream os(path);
  char buf[32];
  for (const auto& row : rows) {
    for (size_t k = 0; k < row.size(); ++k) {
      std::snprintf(buf, sizeof buf, "%.17g", static_cast<double>(row[k]));
      os << buf << (k + 1 == row.size() ? "\n" : " ");
    }
  }
}

TEST(Vtu, MeshioReadsAllEncodingsBack) {
  TetMesh mesh = test::make_jittered_box(3, 0.3);  // non-round coordinates
  const fs::path dir = fresh_dir("vtu_roundtrip");
  const size_t cells = mesh.tets.size() + mesh.boundary_triangles.size();
  std::vector<double> f(mesh.nodes.size()), cell_id(cells);
  std::vector<std::int32_t> groups(mesh.tet_groups);
  groups.insert(groups.end(), mesh.triangle_groups.begin(), mesh.triangle_groups.end());
  for (size_t i = 0; i < mesh.nodes.size(); ++i) f[i] = mesh.nodes[i].x + 2 * mesh.nodes[i].y + 3 * mesh.nodes[i].z;
  for (size_t i = 0; i < cells; ++i) cell_id[i] = static_cast<double>(i);
  const std::vector<VtuArray> point_data = {VtuArray::scalars("f", f), VtuArray::vectors("position", mesh.nodes),
                                            VtuArray::float_vectors("position32", mesh.nodes)};
  const std::vector<VtuArray> cell_data = {VtuArray::integers("group", groups), VtuArray::scalars("cell_id", cell_id)};
  for (auto [name, enc] : {std::pair{"ascii", VtuEncoding::ascii}, std::pair{"binary", VtuEncoding::base64},
                           std::pair{"compressed", VtuEncoding::compressed}, std::pair{"raw", VtuEncoding::raw}})
    write_vtu((dir / (std::string(name) + ".vtu")).string(), mesh, point_data, cell_data, {enc, true});
  std::vector<std::array<double, 3>> pts;
  for (const auto& p : mesh.nodes) pts.push_back({p.x, p.y, p.z});
  write_rows(dir / "ref_points.txt", pts);
  write_rows(dir / "ref_tets.txt", mesh.tets);
  write_rows(dir / "ref_tris.txt", mesh.boundary_triangles);
  std::vector<std::array<int, 1>> g;
  for (int x : groups) g.push_back({x});
  write_rows(dir / "ref_groups.txt", g);
  // The compressed file must actually be smaller than the plain binary ones.
  EXPECT_LT(fs::file_size(dir / "compressed.vtu"), fs::file_size(dir / "raw.vtu"));
  EXPECT_LT(fs::file_size(dir / "raw.vtu"), fs::file_size(dir / "binary.vtu"));  // no base64
  const std::string cmd = "/usr/bin/python3 " SS_SOURCE_DIR "/tests/mesh/check_vtu.py " + dir.string() +
                          " ascii binary compressed raw > " + (dir / "check.log").string() + " 2>&1";
  const int rc = std::system(cmd.c_str());
  std::ifstream log(dir / "check.log");
  std::stringstream text;
  text << log.rdbuf();
  EXPECT_EQ(rc, 0) << text.str();
  EXPECT_EQ(text.str(), "ok\n");
  for (const auto& entry : fs::directory_iterator(dir))
    EXPECT_EQ(entry.path().string().find(".tmp."), std::string::npos) << "left behind: " << entry.path();
}

// Arrays of many zlib blocks, compressed in several batches (each batch written while the next is
// compressed): a cell array of 52-bit pseudo-random mantissas that does not compress (stored in
// deflate's uncompressed blocks, 50 blocks), a smooth point array that does, and a connectivity
// (94 blocks) whose tet and triangle parts meet inside a block. meshio reads them back exactly from
// the compressed and raw files, the compressed file's points and cells equal the raw file's, and
// the compressed file is the same byte for byte on 1, 2 and 3 threads.
TEST(Vtu, LargeArraysRoundTrip) {
  const TetMesh mesh = make_box_mesh(40, 40, 40);
  const fs::path dir = fresh_dir("vtu_large");
  const size_t cells = mesh.tets.size() + mesh.boundary_triangles.size();
  ASSERT_NE(4 * mesh.tets.size() * sizeof(std::int32_t) % (1 << 16), 0u);  // the two parts share a block
  std::vector<double> smooth(mesh.nodes.size()), noise(cells);
  for (size_t i = 0; i < mesh.nodes.size(); ++i) smooth[i] = mesh.nodes[i].x + 2 * mesh.nodes[i].y;
  for (std::uint64_t i = 0; i < cells; ++i) {  // check_vtu_arrays.py's noise()
    const std::uint64_t a = (i * 2654435761ull) % (1ull << 32), b = ((i + 1) * 2246822519ull) % (1ull << 32);
    noise[i] = double(a * (1ull << 20) + (b >> 12)) / double(1ull << 52);
  }
  const auto write = [&](const std::string& name, VtuEncoding enc) {
    write_vtu((dir / name).string(), mesh, {VtuArray::scalars("smooth", smooth)}, {VtuArray::scalars("noise", noise)},
              {enc, true});
    return 0;
  };
  test::with_threads(1, [&] { return write("compressed_1.vtu", VtuEncoding::compressed); });
  test::with_threads(2, [&] { return write("compressed_2.vtu", VtuEncoding::compressed); });
  test::with_threads(3, [&] { return write("compressed_3.vtu", VtuEncoding::compressed); });
  write("raw.vtu", VtuEncoding::raw);
  const auto bytes = [&](const char* name) {
    std::ifstream in(dir / name, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  EXPECT_EQ(bytes("compressed_1.vtu"), bytes("compressed_2.vtu"));
  EXPECT_EQ(bytes("compressed_1.vtu"), bytes("compressed_3.vtu"));
  // The noise is stored, not squeezed: the compressed file holds at least its 8 bytes per cell.
  EXPECT_GT(fs::file_size(dir / "compressed_1.vtu"), 8 * cells);
  EXPECT_LT(fs::file_size(dir / "compressed_1.vtu"), fs::file_size(dir / "raw.vtu"));
  const std::string log = (dir / "check.log").string();
  const std::string cmd = "/usr/bin/python3 " SS_SOURCE_DIR "/tests/mesh/check_vtu_arrays.py " + (dir / "raw.vtu").string() +
                          " " + (dir / "compressed_1.vtu").string() + " > " + log + " 2>&1";
  const int rc = std::system(cmd.c_str());
  std::ifstream in(log);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(rc, 0) << text.str();
  EXPECT_EQ(text.str(), "ok\n");
}

TEST(Vtu, WrongArraySizeThrowsAndWritesNothing) {
  TetMesh mesh = make_box_mesh(1, 1, 1);
  const fs::path dir = fresh_dir("vtu_bad");
  const std::string path = (dir / "bad.vtu").string();
  try {
    write_vtu(path, mesh, {VtuArray::scalars("T", std::vector<double>(5))}, {}, {});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("point array 'T' has 5 values, expected 8 x 1"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(fs::is_empty(dir));
  // Cell arrays on tets only when triangles are not written.
  EXPECT_THROW(write_vtu(path, mesh, {}, {VtuArray::scalars("c", std::vector<double>(mesh.tets.size() + 1))}, {}), Error);
  EXPECT_NO_THROW(write_vtu(path, mesh, {}, {VtuArray::scalars("c", std::vector<double>(mesh.tets.size()))}, {}));
  EXPECT_THROW(parse_vtu_encoding("hdf5"), Error);
  EXPECT_EQ(parse_vtu_encoding("zlib"), VtuEncoding::compressed);
  EXPECT_EQ(parse_vtu_encoding("raw"), VtuEncoding::raw);
}

TEST(Vtu, PvdListsTheSteps) {
  const fs::path dir = fresh_dir("pvd");
  write_pvd((dir / "run.pvd").string(), {{0.0, "run_0.vtu"}, {0.125, "run_1.vtu"}});
  std::ifstream in(dir / "run.pvd");
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_NE(text.str().find("<DataSet timestep=\"0\" group=\"\" part=\"0\" file=\"run_0.vtu\"/>"), std::string::npos);
  EXPECT_NE(text.str().find("<DataSet timestep=\"0.125\" group=\"\" part=\"0\" file=\"run_1.vtu\"/>"), std::string::npos);
  // ParaView's collection format parses as XML; check with Python's parser.
  const std::string cmd = "/usr/bin/python3 -c \"import xml.etree.ElementTree as E, sys; r = E.parse(sys.argv[1]).getroot(); "
                          "sys.exit(0 if [d.get('file') for d in r.iter('DataSet')] == ['run_0.vtu', 'run_1.vtu'] else 1)\" " +
                          (dir / "run.pvd").string();
  EXPECT_EQ(std::system(cmd.c_str()), 0);
}

// A .pvtu over two pieces (the box's tets split in two): ParaView's layout, the arrays declared
// with their types, and meshio reads each piece it lists.
TEST(Vtu, PvtuIndexesPiecesThatMeshioReads) {
  const TetMesh mesh = make_box_mesh(2, 1, 1);
  const fs::path dir = fresh_dir("pvtu");
  std::vector<std::string> pieces;
  const size_t half = mesh.tets.size() / 2;
  for (int q = 0; q < 2; ++q) {
    TetMesh piece;
    piece.nodes = mesh.nodes;
    piece.tets.assign(mesh.tets.begin() + std::ptrdiff_t(q * half), q == 0 ? mesh.tets.begin() + std::ptrdiff_t(half) : mesh.tets.end());
    pieces.push_back("run_piece_" + std::to_string(q) + ".vtu");
    write_vtu((dir / pieces.back()).string(), piece, {VtuArray::scalars("T", std::vector<double>(mesh.nodes.size(), q))},
              {VtuArray::integers("rank", std::vector<std::int32_t>(piece.tets.size(), q))});
  }
  const std::string pvtu = (dir / "run.pvtu").string();
  write_pvtu(pvtu, pieces, {VtuArray::scalars("T", {})},
             {VtuArray::integers("rank", {}), VtuArray::vectors("v", {}), VtuArray::float_vectors("w", {})});
  const std::string cmd =
      "/usr/bin/python3 -c \"import xml.etree.ElementTree as E, sys, os, meshio; r = E.parse(sys.argv[1]).getroot(); "
      "ok = r.get('type') == 'PUnstructuredGrid'; "
      "ok &= [(a.get('Name'), a.get('type')) for a in r.iter('PDataArray')] == "
      "[('T', 'Float64'), ('rank', 'Int32'), ('v', 'Float64'), ('w', 'Float32'), ('Points', 'Float64')]; "
      "src = [p.get('Source') for p in r.iter('Piece')]; ok &= src == ['run_piece_0.vtu', 'run_piece_1.vtu']; "
      "ms = [meshio.read(os.path.join(os.path.dirname(sys.argv[1]), s)) for s in src]; "
      "ok &= sum(len(c.data) for m in ms for c in m.cells) == int(sys.argv[2]); "
      "sys.exit(0 if ok else 1)\" " +
      pvtu + " " + std::to_string(mesh.tets.size());
  EXPECT_EQ(std::system(cmd.c_str()), 0);
  EXPECT_THROW(write_pvtu((dir / "none.pvtu").string(), {}, {}, {}), Error);
  EXPECT_THROW(write_pvtu((dir / "bad.pvtu").string(), {"a\"b.vtu"}, {}, {}), Error);
  EXPECT_FALSE(fs::exists(dir / "none.pvtu"));
  EXPECT_FALSE(fs::exists(dir / "bad.pvtu"));
}

}  // namespace
}  // namespace ss
