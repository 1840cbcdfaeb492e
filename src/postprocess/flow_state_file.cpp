#include "postprocess/flow_state_file.hpp"

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
constexpr std::uint32_t kVersion = 8;
constexpr std::size_t kHeaderBytesV1 = 8 + 4 + 4 + 8 + 8 + 8 + 8;  // versions 2 and 3 add one i64 each, 4 an i32, 5 two i64, 6 and 7 one i64 each, 8 two i64 and two f64

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
  put(bytes, std::int64_t(s.previous_flux.size()));
  put(bytes, std::int64_t(s.streamfunction.size()));
  put(bytes, std::int32_t(s.base_levels));
  put(bytes, std::int64_t(s.vorticity.size()));
  put(bytes, std::int64_t(s.previous_vorticity.size()));
  put(bytes, std::int64_t(s.temperature.size()));
  put(bytes, std::int64_t(s.previous_convection.size()));
  put(bytes, std::int64_t(s.pressure_increment.size()));
  put(bytes, std::int64_t(s.previous_pressure_rate.size()));
  put(bytes, s.pressure_increment_dt);
  put(bytes, s.previous_pressure_increment_dt);
  bytes.append(reinterpret_cast<const char*>(s.flux.data()), s.flux.size() * sizeof(double));
  bytes.append(reinterpret_cast<const char*>(s.pressure.data()), s.pressure.size() * sizeof(double));
  bytes.append(reinterpret_cast<const char*>(s.previous_flux.data()), s.previous_flux.size() * sizeof(double));
  bytes.append(reinterpret_cast<const char*>(s.streamfunction.data()), s.streamfunction.size() * sizeof(double));
  bytes.append(reinterpret_cast<const char*>(s.vorticity.data()), s.vorticity.size() * sizeof(double));
  bytes.append(reinterpret_cast<const char*>(s.previous_vorticity.data()), s.previous_vorticity.size() * sizeof(double));
  bytes.append(reinterpret_cast<const char*>(s.temperature.data()), s.temperature.size() * sizeof(double));
  bytes.append(reinterpret_cast<const char*>(s.previous_convection.data()), s.previous_convection.size() * sizeof(double));
  bytes.append(reinterpret_cast<const char*>(s.pressure_increment.data()), s.pressure_increment.size() * sizeof(double));
  bytes.append(reinterpret_cast<const char*>(s.previous_pressure_rate.data()), s.previous_pressure_rate.size() * sizeof(double));
  put(bytes, fnv1a(bytes.data(), bytes.size()));
  AtomicFile file(path);
  file.stream().write(bytes.data(), std::streamsize(bytes.size()));
  file.commit();
}

FlowState read_flow_state(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  SS_REQUIRE(in, "cannot open flow state '" << path << "'");
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  SS_REQUIRE(bytes.size() >= kHeaderBytesV1 + 8 && std::memcmp(bytes.data(), kMagic, sizeof kMagic) == 0,
             path << ": not a streamsolve flow state (bad header)");
  std::size_t at = sizeof kMagic;
  const auto version = take<std::uint32_t>(bytes, at);
  SS_REQUIRE(version >= 1 && version <= kVersion,
             path << ": flow state version " << version << ", this streamsolve reads 1 to " << kVersion);
  const std::size_t header = kHeaderBytesV1 + (version >= 2 ? 8 : 0) + (version >= 3 ? 8 : 0) + (version >= 4 ? 4 : 0) +
                             (version >= 5 ? 16 : 0) + (version >= 6 ? 8 : 0) + (version >= 7 ? 8 : 0) + (version >= 8 ? 32 : 0);
  SS_REQUIRE(bytes.size() >= header + 8, path << ": flow state is " << bytes.size() << " bytes, shorter than its header");
  FlowState s;
  s.step = take<std::int32_t>(bytes, at);
  s.time = take<double>(bytes, at);
  s.dt = take<double>(bytes, at);
  const auto faces = take<std::int64_t>(bytes, at), cells = take<std::int64_t>(bytes, at);
  const auto previous = version >= 2 ? take<std::int64_t>(bytes, at) : std::int64_t(0);
  const auto edges = version >= 3 ? take<std::int64_t>(bytes, at) : std::int64_t(0);
  s.base_levels = version >= 4 ? take<std::int32_t>(bytes, at) : -1;
  const auto vorticity = version >= 5 ? take<std::int64_t>(bytes, at) : std::int64_t(0);
  const auto previous_vorticity = version >= 5 ? take<std::int64_t>(bytes, at) : std::int64_t(0);
  const auto temperatures = version >= 6 ? take<std::int64_t>(bytes, at) : std::int64_t(0);
  const auto convection = version >= 7 ? take<std::int64_t>(bytes, at) : std::int64_t(0);
  const auto increments = version >= 8 ? take<std::int64_t>(bytes, at) : std::int64_t(0);
  const auto older_rates = version >= 8 ? take<std::int64_t>(bytes, at) : std::int64_t(0);
  s.pressure_increment_dt = version >= 8 ? take<double>(bytes, at) : 0.0;
  s.previous_pressure_increment_dt = version >= 8 ? take<double>(bytes, at) : 0.0;
  const auto fits = [&](std::int64_t count) { return count >= 0 && std::uint64_t(count) <= bytes.size() / 8; };
  SS_REQUIRE(fits(faces) && fits(cells) && fits(edges) && (previous == 0 || previous == faces) && s.base_levels >= -1 &&
                 fits(vorticity) && (previous_vorticity == 0 || previous_vorticity == vorticity) && fits(temperatures) &&
                 (convection == 0 || convection == faces) && (increments == 0 || increments == cells) &&
                 (older_rates == 0 || older_rates == increments),
             path << ": flow state header is damaged (" << faces << " faces, " << cells << " cells, " << previous
                  << " previous fluxes, " << edges << " edges)");
  const std::size_t expected =
      at + std::size_t(faces + cells + previous + edges + vorticity + previous_vorticity + temperatures + convection +
                          increments + older_rates) *
               sizeof(double) +
      sizeof(std::uint64_t);
  SS_REQUIRE(bytes.size() == expected, path << ": flow state is " << bytes.size() << " bytes, its header (" << faces
                                            << " faces, " << cells << " cells) says " << expected);
  const std::size_t body = bytes.size() - sizeof(std::uint64_t);
  std::size_t checksum_at = body;
  SS_REQUIRE(take<std::uint64_t>(bytes, checksum_at) == fnv1a(bytes.data(), body),
             path << ": flow state checksum mismatch (the file is damaged)");
  const auto take_doubles = [&](std::vector<double>& v, std::int64_t count) {
    v.resize(std::size_t(count));
    if (!v.empty()) std::memcpy(v.data(), bytes.data() + at, v.size() * sizeof(double));  // data() may be null
    at += v.size() * sizeof(double);
  };
  take_doubles(s.flux, faces);
  take_doubles(s.pressure, cells);
  take_doubles(s.previous_flux, previous);
  take_doubles(s.streamfunction, edges);
  take_doubles(s.vorticity, vorticity);
  take_doubles(s.previous_vorticity, previous_vorticity);
  take_doubles(s.temperature, temperatures);
  take_doubles(s.previous_convection, convection);
  take_doubles(s.pressure_increment, increments);
  take_doubles(s.previous_pressure_rate, older_rates);
  return s;
}

FlowState read_flow_state_header(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::string bytes(kHeaderBytesV1, '\0');  // step, time and dt sit at the same offsets in every version
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
