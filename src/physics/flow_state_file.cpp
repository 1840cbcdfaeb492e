#include "physics/flow_state_file.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "util/atomic_file.hpp"
#include "util/error.hpp"

namespace ss {
namespace {

constexpr char kMagic[8] = {'S', 'S', 'F', 'L', 'O', 'W', 'S', 'T'};
constexpr std::uint32_t kVersion = 1;
constexpr std::size_t kHeaderBytes = 8 + 4 + 4 + 8 + 8 + 8 + 8;

std::uint64_t fnv1a(const char* data, std::size_t size) {
  std::uint64_t hash = 14695981039346656037ull;
  for (std::size_t i = 0; i < size; ++i) {
    hash ^= std::uint8_t(data[i]);
    hash *= 1099511628211ull;
  }
  return hash;
}

template <class T>
void put(std::string& bytes, const T& value) {
  bytes.append(reinterpret_cast<const char*>(&value), sizeof value);
}

template <class T>
T take(const std::string& bytes, std::size_t& at) {
  T value;
  std::memcpy(&value, bytes.data() + at, sizeof value);
  at += sizeof value;
  return value;
}

}  // namespace

std::string flow_state_name(int step) {
  char name[32];
  std::snprintf(name, sizeof name, "flow_%06d.state", step);
  return name;
}

void write_flow_state(const std::string& path, const FlowState& s) {
  std::string bytes(kMagic, sizeof kMagic);
  put(bytes, kVersion);
  put(bytes, std::int32_t(s.step));
  put(bytes, s.time);
  put(bytes, s.dt);
  put(bytes, std::int64_t(s.flux.size()));
  put(bytes, std::int64_t(s.pressure.size()));
  bytes.append(reinterpret_cast<const char*>(s.flux.data()), s.flux.size() * sizeof(double));
  bytes.append(reinterpret_cast<const char*>(s.pressure.data()), s.pressure.size() * sizeof(double));
  put(bytes, fnv1a(bytes.data(), bytes.size()));
  AtomicFile file(path);
  file.stream().write(bytes.data(), std::streamsize(bytes.size()));
  file.commit();
}

FlowState read_flow_state(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  SS_REQUIRE(in, "cannot open flow state '" << path << "'");
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  SS_REQUIRE(bytes.size() >= kHeaderBytes + 8 && std::memcmp(bytes.data(), kMagic, sizeof kMagic) == 0,
             path << ": not a streamsolve flow state (bad header)");
  std::size_t at = sizeof kMagic;
  const auto version = take<std::uint32_t>(bytes, at);
  SS_REQUIRE(version == kVersion, path << ": flow state version " << version << ", this streamsolve reads " << kVersion);
  FlowState s;
  s.step = take<std::int32_t>(bytes, at);
  s.time = take<double>(bytes, at);
  s.dt = take<double>(bytes, at);
  const auto faces = take<std::int64_t>(bytes, at), cells = take<std::int64_t>(bytes, at);
  SS_REQUIRE(faces >= 0 && cells >= 0 &&
                 bytes.size() == kHeaderBytes + std::size_t(faces + cells) * sizeof(double) + sizeof(std::uint64_t),
             path << ": flow state is " << bytes.size() << " bytes, its header (" << faces << " faces, " << cells
                  << " cells) says " << kHeaderBytes + std::size_t(faces + cells) * sizeof(double) + 8);
  const std::size_t body = bytes.size() - sizeof(std::uint64_t);
  std::size_t checksum_at = body;
  SS_REQUIRE(take<std::uint64_t>(bytes, checksum_at) == fnv1a(bytes.data(), body),
             path << ": flow state checksum mismatch (the file is damaged)");
  s.flux.resize(std::size_t(faces));
  s.pressure.resize(std::size_t(cells));
  std::memcpy(s.flux.data(), bytes.data() + at, s.flux.size() * sizeof(double));
  at += s.flux.size() * sizeof(double);
  std::memcpy(s.pressure.data(), bytes.data() + at, s.pressure.size() * sizeof(double));
  return s;
}

FlowState read_flow_state_header(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::string bytes(kHeaderBytes, '\0');
  SS_REQUIRE(in.read(bytes.data(), std::streamsize(bytes.size())) && std::memcmp(bytes.data(), kMagic, sizeof kMagic) == 0,
             path << ": not a streamsolve flow state (bad header)");
  std::size_t at = sizeof kMagic + sizeof kVersion;
  FlowState s;
  s.step = take<std::int32_t>(bytes, at);
  s.time = take<double>(bytes, at);
  s.dt = take<double>(bytes, at);
  return s;
}

std::vector<FlowStateFile> list_flow_states(const std::string& directory) {
  namespace fs = std::filesystem;
  std::vector<FlowStateFile> files;
  std::error_code ec;
  if (!fs::is_directory(directory, ec)) return files;
  for (const fs::directory_entry& entry : fs::directory_iterator(directory, ec)) {
    const std::string name = entry.path().filename().string();
    int step = -1, consumed = 0;
    if (std::sscanf(name.c_str(), "flow_%d.state%n", &step, &consumed) == 1 && consumed == int(name.size()) &&
        step >= 0 && name == flow_state_name(step))
      files.push_back({step, entry.path().string()});
  }
  std::sort(files.begin(), files.end(), [](const FlowStateFile& a, const FlowStateFile& b) { return a.step < b.step; });
  return files;
}

}  // namespace ss
