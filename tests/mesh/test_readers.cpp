// Mesh readers: Gmsh 2.2/4.1 x ASCII/binary agree, Netgen .vol, node tags, physical names,
// byte order, gzip, content-based format detection, and the malformed-file corpus.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <glm/glm.hpp>
#include <zlib.h>

#include "mesh/load_mesh.hpp"
#include "mesh/read_mesh.hpp"
#include "util/error.hpp"

namespace fs = std::filesystem;

namespace {

std::string data_path(const std::string& rel) { return std::string(SS_SOURCE_DIR) + "/tests/data/" + rel; }

std::string scratch_path(const std::string& name) {
  const fs::path dir = fs::path(SS_BINARY_DIR) / "test_output" / "readers";
  fs::create_directories(dir);
  return (dir / name).string();
}

void write_file(const std::string& path, const std::string& data) {
  std::ofstream out(path, std::ios::binary);
  out.write(data.data(), static_cast<std::streamsize>(data.size()));
  ASSERT_TRUE(out.good()) << path;
}

double tet_volume(const ss::TetMesh& m, const ss::Tet& t) {
  const glm::dvec3 a = m.nodes[t[0]];
  return glm::dot(m.nodes[t[1]] - a, glm::cross(m.nodes[t[2]] - a, m.nodes[t[3]] - a)) / 6.0;
}

std::map<int, int> count_groups(const std::vector<std::int32_t>& groups) {
  std::map<int, int> out;
  for (int g : groups) ++out[g];
  return out;
}

// Same mesh: identical connectivity, groups and names; coordinates equal to within the rounding
// of Gmsh's 16-significant-digit ASCII output (1e-15 of the unit-cube size).
void expect_same_mesh(const ss::TetMesh& a, const ss::TetMesh& b) {
  ASSERT_EQ(a.nodes.size(), b.nodes.size()) << a.source << " vs " << b.source;
  for (std::size_t i = 0; i < a.nodes.size(); ++i)
    ASSERT_LT(glm::length(a.nodes[i] - b.nodes[i]), 1e-15) << "node " << i << " " << a.source << " vs " << b.source;
  EXPECT_EQ(a.tets, b.tets) << a.source << " vs " << b.source;
  EXPECT_EQ(a.tet_groups, b.tet_groups);
  EXPECT_EQ(a.boundary_triangles, b.boundary_triangles);
  EXPECT_EQ(a.triangle_groups, b.triangle_groups);
  EXPECT_EQ(a.surface_group_names, b.surface_group_names);
  EXPECT_EQ(a.volume_group_names, b.volume_group_names);
  EXPECT_EQ(a.node_tags, b.node_tags);
  EXPECT_EQ(a.tet_tags, b.tet_tags);
}

// ---- tiny meshes written in code ------------------------------------------------------------

// Appends `v` in little- or big-endian byte order.
template <class T>
void put(std::string& out, T v, bool big_endian) {
  char b[sizeof(T)];
  std::memcpy(b, &v, sizeof(T));
  if (big_endian) std::reverse(b, b + sizeof(T));
  out.append(b, sizeof(T));
}

// Two tets sharing face (1,2,3) with non-contiguous node tags; binary MSH 4.1.
const std::vector<std::int64_t> kTags = {5, 900, 17, 42, 3000};
const std::vector<glm::dvec3> kCoords = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {0, 0, -1}};

std::string two_tets_v41_binary(bool big_endian) {
  std::string s = "$MeshFormat\n4.1 1 8\n";
  put<std::int32_t>(s, 1, big_endian);
  s += "\n$EndMeshFormat\n$PhysicalNames\n1\n3 7 \"solid\"\n$EndPhysicalNames\n$Entities\n";
  for (std::uint64_t c : {0, 0, 0, 1}) put(s, c, big_endian);
  put<std::int32_t>(s, 4, big_endian);  // volume entity 4 in physical group 7
  for (int k = 0; k < 6; ++k) put<double>(s, 0.0, big_endian);
  put<std::uint64_t>(s, 1, big_endian);
  put<std::int32_t>(s, 7, big_endian);
  put<std::uint64_t>(s, 0, big_endian);
  s += "\n$EndEntities\n$Nodes\n";
  for (std::uint64_t c : {1ull, 5ull, 5ull, 3000ull}) put(s, c, big_endian);
  for (std::int32_t c : {3, 4, 0}) put(s, c, big_endian);
  put<std::uint64_t>(s, 5, big_endian);
  for (std::int64_t t : kTags) put<std::uint64_t>(s, static_cast<std::uint64_t>(t), big_endian);
  for (const auto& x : kCoords)
    for (int k = 0; k < 3; ++k) put<double>(s, x[k], big_endian);
  s += "\n$EndNodes\n$Elements\n";
  for (std::uint64_t c : {1, 2, 1, 2}) put(s, c, big_endian);
  for (std::int32_t c : {3, 4, 4}) put(s, c, big_endian);
  put<std::uint64_t>(s, 2, big_endian);
  for (std::uint64_t v : {1, 5, 900, 17, 42}) put(s, v, big_endian);
  for (std::uint64_t v : {2, 5, 17, 900, 3000}) put(s, v, big_endian);
  return s + "\n$EndElements\n";
}

// The same two tets in MSH 2.2 binary (int32 records).
std::string two_tets_v22_binary(bool big_endian) {
  std::string s = "$MeshFormat\n2.2 1 8\n";
  put<std::int32_t>(s, 1, big_endian);
  s += "\n$EndMeshFormat\n$PhysicalNames\n1\n3 7 \"solid\"\n$EndPhysicalNames\n$Nodes\n5\n";
  for (std::size_t i = 0; i < kTags.size(); ++i) {
    put<std::int32_t>(s, static_cast<std::int32_t>(kTags[i]), big_endian);
    for (int k = 0; k < 3; ++k) put<double>(s, kCoords[i][k], big_endian);
  }
  s += "\n$EndNodes\n$Elements\n2\n";
  for (std::int32_t c : {4, 2, 2}) put(s, c, big_endian);
  for (std::int32_t v : {1, 7, 4, 5, 900, 17, 42}) put(s, v, big_endian);
  for (std::int32_t v : {2, 7, 4, 5, 17, 900, 3000}) put(s, v, big_endian);
  return s + "\n$EndElements\n";
}

void expect_two_tets(const ss::TetMesh& m) {
  ASSERT_EQ(m.nodes.size(), 5u);
  // Ids follow ascending tags: 5, 17, 42, 900, 3000.
  EXPECT_EQ(m.nodes[0], kCoords[0]);
  EXPECT_EQ(m.nodes[1], kCoords[2]);
  EXPECT_EQ(m.nodes[2], kCoords[3]);
  EXPECT_EQ(m.nodes[3], kCoords[1]);
  EXPECT_EQ(m.nodes[4], kCoords[4]);
  ASSERT_EQ(m.tets.size(), 2u);
  EXPECT_EQ(m.tets[0], (ss::Tet{0, 3, 1, 2}));
  EXPECT_EQ(m.tets[1], (ss::Tet{0, 1, 3, 4}));
  EXPECT_EQ(m.tet_groups, (std::vector<std::int32_t>{7, 7}));
  EXPECT_EQ(ss::volume_group_label(m, 7), "solid");
  EXPECT_EQ(m.node_tags, (std::vector<std::int64_t>{5, 17, 42, 900, 3000}));
  EXPECT_EQ(m.tet_tags, (std::vector<std::int64_t>{1, 2}));
  EXPECT_GT(tet_volume(m, m.tets[0]), 0);
  EXPECT_GT(tet_volume(m, m.tets[1]), 0);
}

// ---- well-formed files ----------------------------------------------------------------------

TEST(Readers, FourGmshEncodingsGiveTheSameMesh) {
  const ss::TetMesh ref = ss::read_mesh(data_path("encodings/cube_v41_bin.msh"));
  EXPECT_EQ(ref.nodes.size(), 339u);
  EXPECT_EQ(ref.tets.size(), 1125u);
  EXPECT_EQ(ref.boundary_triangles.size(), 540u);
  const std::map<std::int32_t, std::string> names = {{1, "left"},  {2, "right"}, {3, "front"}, {4, "back"},
                                                     {5, "bottom"}, {6, "top"}};
  EXPECT_EQ(ref.surface_group_names, names);
  EXPECT_EQ(ref.volume_group_names, (std::map<std::int32_t, std::string>{{10, "domain"}}));
  ASSERT_EQ(ref.node_tags.size(), ref.nodes.size());
  ASSERT_EQ(ref.tet_tags.size(), ref.tets.size());
  ASSERT_EQ(ref.triangle_tags.size(), ref.boundary_triangles.size());
  EXPECT_TRUE(std::is_sorted(ref.tet_tags.begin(), ref.tet_tags.end()));
  EXPECT_EQ(count_groups(ref.tet_groups), (std::map<int, int>{{10, 1125}}));
  EXPECT_EQ(count_groups(ref.triangle_groups),
            (std::map<int, int>{{1, 90}, {2, 90}, {3, 90}, {4, 90}, {5, 90}, {6, 90}}));
  double volume = 0;
  for (const ss::Tet& t : ref.tets) volume += tet_volume(ref, t);
  EXPECT_NEAR(volume, 1.0, 1e-12);  // unit cube; round-off only
  // The partitioned files ($PartitionedEntities) are the same mesh too: partition pieces inherit
  // their parent's physical group and the interface triangles between partitions are dropped.
  for (const char* f : {"cube_v41_ascii.msh", "cube_v22_bin.msh", "cube_v22_ascii.msh", "cube_v41_part3_ascii.msh",
                        "cube_v41_part3_bin.msh"})
    expect_same_mesh(ss::read_mesh(data_path(std::string("encodings/") + f)), ref);
}

TEST(Readers, SurfaceGroupsLieOnTheirFaces) {
  const ss::TetMesh m = ss::read_mesh(data_path("encodings/cube_v22_ascii.msh"));
  // left: x = 0, right: x = 1, front: y = 0, back: y = 1, bottom: z = 0, top: z = 1
  const int axis[7] = {0, 0, 0, 1, 1, 2, 2};
  const double value[7] = {0, 0, 1, 0, 1, 0, 1};
  for (std::size_t i = 0; i < m.boundary_triangles.size(); ++i) {
    const int g = m.triangle_groups[i];
    ASSERT_GE(g, 1);
    ASSERT_LE(g, 6);
    for (ss::NodeId v : m.boundary_triangles[i]) EXPECT_EQ(m.nodes[v][axis[g]], value[g]) << ss::surface_group_label(m, g);
  }
}

TEST(Readers, NonContiguousTagsBothByteOrders) {
  for (bool big : {false, true}) {
    SCOPED_TRACE(big ? "big endian" : "little endian");
    expect_two_tets(ss::read_mesh_data("two_v41.msh", two_tets_v41_binary(big)));
    expect_two_tets(ss::read_mesh_data("two_v22.msh", two_tets_v22_binary(big)));
  }
}

TEST(Readers, NonContiguousTagsAscii) {
  // Sparse tags (binary-search path) in two node blocks, out of order.
  const std::string text =
      "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n"
      "$Entities\n0 0 0 1\n4 0 0 0 1 1 1 1 7 0\n$EndEntities\n"
      "$Nodes\n2 5 5 3000\n3 4 0 3\n900\n5\n17\n1 0 0\n0 0 0\n0 1 0\n3 4 0 2\n3000\n42\n0 0 -1\n0 0 1\n$EndNodes\n"
      "$Elements\n1 2 1 2\n3 4 4 2\n2 5 17 900 3000\n1 5 900 17 42\n$EndElements\n";
  ss::TetMesh m = ss::read_mesh_data("sparse.msh", text);
  m.volume_group_names[7] = "solid";  // no $PhysicalNames in this file
  expect_two_tets(m);
}

TEST(Readers, UnusedNodesAreDroppedWithAWarning) {
  const std::string text =
      "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n6\n1 0 0 0\n2 9 9 9\n3 1 0 0\n4 0 1 0\n5 0 0 1\n6 8 8 8\n"
      "$EndNodes\n$Elements\n1\n1 4 2 0 1 1 3 4 5\n$EndElements\n";
  testing::internal::CaptureStderr();
  const ss::TetMesh m = ss::read_mesh_data("unused.msh", text);
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("streamsolve: warning: unused.msh: 2 unused nodes dropped"), std::string::npos) << err;
  ASSERT_EQ(m.nodes.size(), 4u);
  EXPECT_EQ(m.tets[0], (ss::Tet{0, 1, 2, 3}));
  EXPECT_EQ(m.nodes[1], glm::dvec3(1, 0, 0));
  EXPECT_EQ(m.tet_groups[0], 0);  // physical tag 0: no group
}

TEST(Readers, NetgenVol) {
  const ss::TetMesh m = ss::read_mesh(data_path("netgen/cube6.vol"));
  EXPECT_EQ(m.nodes.size(), 8u);
  ASSERT_EQ(m.tets.size(), 6u);
  EXPECT_EQ(m.boundary_triangles.size(), 12u);
  EXPECT_EQ(count_groups(m.tet_groups), (std::map<int, int>{{1, 3}, {2, 3}}));
  EXPECT_EQ(count_groups(m.triangle_groups),
            (std::map<int, int>{{11, 2}, {12, 2}, {13, 2}, {14, 2}, {15, 2}, {16, 2}}));
  EXPECT_EQ(ss::volume_group_label(m, 1), "inner");
  EXPECT_EQ(ss::volume_group_label(m, 2), "outer");
  EXPECT_EQ(ss::surface_group_label(m, 11), "xmin");
  EXPECT_EQ(ss::surface_group_label(m, 16), "zmax");
  EXPECT_EQ(ss::surface_group_label(m, 1), "surface group 1");  // material 1 names no boundary
  EXPECT_EQ(m.node_tags, (std::vector<std::int64_t>{1, 2, 3, 4, 5, 6, 7, 8}));
  EXPECT_EQ(m.tet_tags, (std::vector<std::int64_t>{1, 2, 3, 4, 5, 6}));
  double volume = 0;
  for (const ss::Tet& t : m.tets) {
    EXPECT_GT(tet_volume(m, t), 0) << "Netgen handedness is converted";
    volume += tet_volume(m, t);
  }
  EXPECT_NEAR(volume, 1.0, 1e-14);
  // xmin triangles (bc 11) lie on x = 0.
  for (std::size_t i = 0; i < m.boundary_triangles.size(); ++i) {
    if (m.triangle_groups[i] != 11) continue;
    for (ss::NodeId v : m.boundary_triangles[i]) EXPECT_EQ(m.nodes[v].x, 0.0);
  }
}

TEST(Readers, FormatChosenByContentNotExtension) {
  std::ifstream in(data_path("netgen/cube6.vol"), std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string path = scratch_path("really_netgen.msh");
  write_file(path, ss.str());
  EXPECT_EQ(ss::read_mesh(path).tets.size(), 6u);
}

TEST(Readers, GzipCompressedFile) {
  std::ifstream in(data_path("encodings/cube_v41_ascii.msh"), std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  const std::string path = scratch_path("cube.msh.gz");
  gzFile gz = gzopen(path.c_str(), "wb");
  ASSERT_NE(gz, nullptr);
  ASSERT_EQ(gzwrite(gz, text.data(), static_cast<unsigned>(text.size())), static_cast<int>(text.size()));
  gzclose(gz);
  expect_same_mesh(ss::read_mesh(path), ss::read_mesh(data_path("encodings/cube_v41_ascii.msh")));
}

// gzip format (header + deflate + CRC) of `text`, in memory.
std::string gzip_bytes(const std::string& text) {
  z_stream zs{};
  EXPECT_EQ(deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY), Z_OK);
  std::string out(deflateBound(&zs, static_cast<uLong>(text.size())) + 64, '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  zs.avail_in = static_cast<uInt>(text.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&zs, Z_FINISH), Z_STREAM_END);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}

// read_mesh_data (the in-memory path the fuzz targets use) takes gzip content as gzread did:
// concatenated members, trailing bytes after the last member ignored; a cut stream is one error.
TEST(Readers, GzipInMemoryMembersAndTruncation) {
  std::ifstream in(data_path("netgen/cube6.vol"), std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  const std::string two = gzip_bytes(text.substr(0, 500)) + gzip_bytes(text.substr(500)) + "trailing bytes";
  expect_same_mesh(ss::read_mesh_data("two.vol.gz", two), ss::read_mesh_data("cube6.vol", text));
  const std::string whole = gzip_bytes(text);
  try {
    ss::read_mesh_data("cut.vol.gz", whole.substr(0, whole.size() - 12));
    FAIL() << "a truncated gzip stream was read";
  } catch (const ss::Error& e) {
    EXPECT_EQ(std::string(e.what()), "cut.vol.gz: corrupt gzip stream (unexpected end of file)");
  }
}

TEST(Readers, ProjectMeshesHaveTheirNamedGroups) {
  const std::map<std::string, std::set<std::string>> expected = {
      {"cube.msh", {"left", "right", "front", "back", "bottom", "top", "domain"}},
      {"duct.msh", {"inlet", "outlet", "walls", "fluid"}},
      {"cavity.msh", {"lid", "walls", "fluid"}},
      {"crank.msh", {"journal_left", "journal_right", "pin", "surface", "steel"}}};
  for (const auto& [file, names] : expected) {
    SCOPED_TRACE(file);
    const ss::TetMesh m = ss::read_mesh(std::string(SS_SOURCE_DIR) + "/meshes/" + file);
    std::set<std::string> got;
    for (const auto& [id, name] : m.surface_group_names) got.insert(name);
    for (const auto& [id, name] : m.volume_group_names) got.insert(name);
    EXPECT_EQ(got, names);
    EXPECT_GT(m.tets.size(), 1000u);
    for (int g : m.triangle_groups) EXPECT_NE(g, 0) << "every boundary triangle is in a named group";
    for (const ss::Tet& t : m.tets) ASSERT_GT(tet_volume(m, t), 0);
  }
}

TEST(Readers, MissingFileNamesThePath) {
  try {
    ss::read_mesh("/nonexistent/dir/mesh.msh");
    FAIL() << "no error";
  } catch (const ss::Error& e) {
    EXPECT_NE(std::string(e.what()).find("cannot open mesh file '/nonexistent/dir/mesh.msh'"), std::string::npos)
        << e.what();
  }
}

// ---- malformed corpus -----------------------------------------------------------------------
// tests/data/malformed/make_corpus.py writes these; each must fail with the file name and this
// text (line numbers included where the reader can point at one).
struct Malformed {
  const char* file;
  const char* expect;
};
const Malformed kParseErrors[] = {
    {"unknown_format.msh", "unknown mesh format"},
    {"empty_file.msh", "the file is empty"},
    {"msh1_format.msh", "MSH 1 format is not supported"},
    {"unsupported_version.msh", ":2: MSH version 3.0 is not supported"},
    {"no_tetrahedra.msh", "no tetrahedra (8 nodes, 12 triangles)"},
    {"truncated_in_nodes.msh", "unexpected end of file inside $Nodes"},
    {"truncated_in_elements.msh", "unexpected end of file inside $Elements"},
    {"truncated_in_entities.msh", "unexpected end of file inside $Entities"},
    {"truncated_in_physical_names.msh", "unexpected end of file inside $PhysicalNames"},
    {"missing_endnodes.msh", ":19: expected $EndNodes after 8 nodes, found '$Elements'"},
    {"node_count_too_large.msh", "$Nodes declares 9 nodes but has only 8"},
    {"node_count_too_small.msh", ":18: expected $EndNodes after 7 nodes"},
    {"element_count_mismatch.msh", "element blocks hold 18 elements but the $Elements header declares 20"},
    {"node_id_out_of_range.msh", ":32: node id 77 out of range (the $Nodes header declares ids 1..8)"},
    {"duplicate_node_id.msh", ":19: node id 3 defined twice"},
    {"unknown_node.msh", ":39: element 18 refers to unknown node 42"},
    {"nan_coordinate.msh", ":15: node 5 has a non-finite coordinate"},
    {"inf_coordinate.msh", ":31: node 7 has a non-finite coordinate"},
    {"garbage_number.msh", ":13: expected y coordinate (a number), found '1.0x'"},
    {"negative_node_id.msh", "node id -1 out of range"},
    {"hexahedra.msh", "contains 2 8-node hexahedra (Gmsh type 5)"},
    {"prisms.msh", "contains 1 6-node prisms (Gmsh type 6)"},
    {"tet10.msh", "contains 6 10-node tetrahedra (Gmsh type 11) (first of them here); streamsolve supports only "
                  "4-node tetrahedra"},
    {"unknown_element_type.msh", ":40: unknown Gmsh element type 99"},
    {"element_missing_node.msh", ":50: element 13 has 3 node ids, 4-node tetrahedra have 4"},
    {"elements_before_nodes.msh", "$Elements section before any $Nodes section"},
    {"binary_truncated_v41.msh", "unexpected end of file inside $Elements"},
    {"binary_truncated_v22.msh", "byte offset 138: unexpected end of file inside $Nodes"},
    {"binary_bad_endianness.msh", "byte offset 20: binary endianness check reads 7, expected 1"},
    {"netgen_truncated.vol", "unexpected end of file inside points"},
    {"netgen_point_out_of_range.vol", ":24: volume element refers to point 9, out of range (the file has 8 points)"},
    {"netgen_prisms.vol", "contains 1 6-node prisms (Netgen)"},
    {"netgen_point_count_mismatch.vol", "points declares 10 rows but has only 8"},
};
// These parse; the geometry/topology checks of load_mesh reject them.
const Malformed kMeshErrors[] = {
    // Entities are named by the file's element and node tags.
    {"repeated_node_in_tet.msh", ": tet 18 (nodes 1 2 2 8) has a repeated node"},
    {"zero_volume_tet.msh", ": tet 1 (nodes 1 2 4 3) has zero volume"},
    {"face_shared_by_three_tets.msh", ": face (nodes 1 2 3) is shared by more than two tets (tets 1, 2, 3)"},
};

std::string corpus_path(const char* file) { return data_path(std::string("malformed/") + file); }

TEST(MalformedCorpus, EveryFileFailsWithItsMessage) {
  for (const Malformed& m : kParseErrors) {
    const std::string path = corpus_path(m.file);
    ASSERT_TRUE(fs::exists(path)) << path << " missing: run tests/data/malformed/make_corpus.py";
    try {
      ss::read_mesh(path);
      ADD_FAILURE() << m.file << ": read without error";
    } catch (const ss::Error& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find(path), std::string::npos) << "message must name the file: " << what;
      EXPECT_NE(what.find(m.expect), std::string::npos) << m.file << ": '" << what << "' lacks '" << m.expect << "'";
    }
  }
}

// Inputs of the fuzz targets that once failed (tests/fuzz/regressions/, replayed by fuzz_regression):
// each is now one clear error, or loads correctly.
TEST(MalformedCorpus, FuzzFindingsAreOneClearError) {
  const Malformed found[] = {
      {"gmsh41_binary/element_block_count_overflow-crash-aa3f5f74",
       ": byte offset 1019: element block of 9223372036854775807 elements exceeds the 18 elements the $Elements header declares"},
      {"gmsh41_ascii/element_block_count_overflow.msh",
       ":20: element block of 9223372036854775807 elements exceeds the 1 elements the $Elements header declares"},
      {"gmsh41_ascii/node_block_count_overflow.msh",
       ":9: node block of 9223372036854775807 nodes exceeds the 1 nodes the $Nodes header declares"},
      {"gmsh41_ascii/entity_physical_tag_int64_min.msh",
       ":6: physical tag -9223372036854775808 is out of range (group numbers are 32-bit)"},
  };
  for (const Malformed& m : found) {
    const std::string path = std::string(SS_SOURCE_DIR) + "/tests/fuzz/regressions/" + m.file;
    try {
      ss::read_mesh(path);
      ADD_FAILURE() << m.file << ": read without error";
    } catch (const ss::Error& e) {
      EXPECT_EQ(std::string(e.what()), path + m.expect);
    }
  }
  // Surface group 2^31 - 1 and a tet face no file triangle covers: the `unassigned` group got
  // max + 1 (an int overflow); now the smallest free number.
  const ss::LoadedMesh loaded = ss::load_mesh(std::string(SS_SOURCE_DIR) +
                                              "/tests/fuzz/regressions/gmsh22_binary/"
                                              "surface_group_int32_max_unassigned_face-crash-2d666491");
  EXPECT_EQ(loaded.topology.unassigned_group, 2);
  EXPECT_EQ(loaded.mesh.surface_group_names.at(2), "unassigned");
}

TEST(MalformedCorpus, GeometricDefectsPassTheReaderAndFailLoading) {
  for (const Malformed& m : kMeshErrors) {
    const std::string path = corpus_path(m.file);
    EXPECT_NO_THROW(ss::read_mesh(path)) << m.file << " is well-formed at the parse level";
    try {
      ss::load_mesh(path);
      ADD_FAILURE() << m.file << ": loaded without error";
    } catch (const ss::Error& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find(path), std::string::npos) << "message must name the file: " << what;
      EXPECT_NE(what.find(m.expect), std::string::npos) << m.file << ": '" << what << "' lacks '" << m.expect << "'";
    }
  }
}

TEST(MalformedCorpus, TableCoversEveryFile) {
  std::set<std::string> listed;
  for (const Malformed& m : kParseErrors) listed.insert(m.file);
  for (const Malformed& m : kMeshErrors) listed.insert(m.file);
  std::set<std::string> present;
  for (const auto& entry : fs::directory_iterator(data_path("malformed")))
    if (entry.is_regular_file() && entry.path().extension() != ".py") present.insert(entry.path().filename().string());
  EXPECT_EQ(present, listed);
  EXPECT_GE(listed.size(), 23u);
}

// Every prefix of a valid binary file must fail cleanly (no crash, no hang, an ss::Error).
TEST(MalformedCorpus, EveryTruncationOfABinaryFileIsAnError) {
  for (bool v41 : {true, false}) {
    const std::string full = v41 ? two_tets_v41_binary(false) : two_tets_v22_binary(false);
    // The last bytes are "\n$EndElements\n"; cutting only the final newline leaves a valid file.
    for (std::size_t n = 0; n + 1 < full.size(); ++n)
      EXPECT_THROW(ss::read_mesh_data("cut.msh", full.substr(0, n)), ss::Error) << "prefix " << n;
  }
}

}  // namespace

namespace {

// Surface and volume groups are separate name spaces: the same id names a boundary and a region.
TEST(Readers, SurfaceAndVolumeGroupIdsDoNotClash) {
  const std::string text =
      "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$PhysicalNames\n2\n2 1 \"inlet\"\n3 1 \"fluid\"\n$EndPhysicalNames\n"
      "$Nodes\n4\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0 1\n$EndNodes\n"
      "$Elements\n2\n7 2 2 1 1 1 3 2\n9 4 2 1 1 1 2 3 4\n$EndElements\n";
  testing::internal::CaptureStderr();
  const ss::TetMesh m = ss::read_mesh_data("clash.msh", text);
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
  EXPECT_EQ(ss::surface_group_label(m, 1), "inlet");
  EXPECT_EQ(ss::volume_group_label(m, 1), "fluid");
  EXPECT_EQ(m.tet_tags, (std::vector<std::int64_t>{9}));
  EXPECT_EQ(m.triangle_tags, (std::vector<std::int64_t>{7}));

  std::ifstream in(data_path("netgen/cube6.vol"), std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string vol = ss.str();
  const auto at = vol.find("11 xmin");
  ASSERT_NE(at, std::string::npos);
  vol.replace(at, 7, "1 xmin");  // bc number 1, the same as material 1 "inner"
  testing::internal::CaptureStderr();
  const ss::TetMesh n = ss::read_mesh_data("clash.vol", vol);
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
  EXPECT_EQ(ss::surface_group_label(n, 1), "xmin");
  EXPECT_EQ(ss::volume_group_label(n, 1), "inner");
}

}  // namespace
