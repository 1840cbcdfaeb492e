#pragma once
// Byte messages between ranks: a Packer appends plain values and vectors, an Unpacker reads them back
// in the same order; send_bytes / recv_bytes move a buffer of any size (chunks below 2 GiB).
#include <cstdint>
#include <cstring>
#include <map>
#include <string>
#include <type_traits>
#include <vector>

#include <mpi.h>

#include "util/error.hpp"

namespace ss {

class Packer {
public:
  template <class T>
  void put(const T& value) {
    static_assert(std::is_trivially_copyable_v<T>);
    const auto* p = reinterpret_cast<const char*>(&value);
    bytes_.insert(bytes_.end(), p, p + sizeof(T));
  }
  template <class T>
  void put(const std::vector<T>& values) {
    static_assert(std::is_trivially_copyable_v<T>);
    put(std::uint64_t(values.size()));
    const auto* p = reinterpret_cast<const char*>(values.data());
    bytes_.insert(bytes_.end(), p, p + values.size() * sizeof(T));
  }
  void put(const std::string& s) { put(std::vector<char>(s.begin(), s.end())); }
  std::vector<char>& bytes() { return bytes_; }

private:
  std::vector<char> bytes_;
};

class Unpacker {
public:
  explicit Unpacker(const std::vector<char>& bytes) : bytes_(bytes) {}
  template <class T>
  void get(T& value) {
    static_assert(std::is_trivially_copyable_v<T>);
    SS_REQUIRE(at_ + sizeof(T) <= bytes_.size(), "message: truncated");
    std::memcpy(&value, bytes_.data() + at_, sizeof(T));
    at_ += sizeof(T);
  }
  template <class T>
  void get(std::vector<T>& values) {
    std::uint64_t n = 0;
    get(n);
    SS_REQUIRE(n <= (bytes_.size() - at_) / sizeof(T), "message: truncated");  // no n * sizeof(T) overflow
    values.resize(size_t(n));
    if (n > 0) std::memcpy(values.data(), bytes_.data() + at_, size_t(n) * sizeof(T));  // data() may be null when empty
    at_ += size_t(n) * sizeof(T);
  }
  void get(std::string& s) {
    std::vector<char> v;
    get(v);
    s.assign(v.begin(), v.end());
  }

private:
  const std::vector<char>& bytes_;
  size_t at_ = 0;
};

// One field list for both directions: transfer(packer, x) appends x, transfer(unpacker, x) reads it
// back, so a message's layout is written once (a template over the two).
template <class T>
void transfer(Packer& p, const T& value) {
  p.put(value);
}
template <class T>
void transfer(Unpacker& u, T& value) {
  u.get(value);
}
// Group names (id -> name).
inline void transfer(Packer& p, const std::map<std::int32_t, std::string>& names) {
  p.put(std::uint64_t(names.size()));
  for (const auto& [id, name] : names) {
    p.put(id);
    p.put(name);
  }
}
inline void transfer(Unpacker& u, std::map<std::int32_t, std::string>& names) {
  std::uint64_t n = 0;
  u.get(n);
  for (std::uint64_t k = 0; k < n; ++k) {
    std::int32_t id = 0;
    u.get(id);
    u.get(names[id]);
  }
}
template <class Archive, class... Fields>
void transfer_each(Archive& a, Fields&... fields) {
  (transfer(a, fields), ...);
}

inline void mpi_check(int code, const char* what) {
  if (code == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(code, text, &len);
  SS_THROW("MPI: " << what << " failed: " << std::string(text, size_t(len)));
}

inline void send_bytes(const std::vector<char>& bytes, int to, int tag, MPI_Comm comm) {
  const std::uint64_t n = bytes.size();
  mpi_check(MPI_Send(&n, 1, MPI_UINT64_T, to, tag, comm), "MPI_Send");
  constexpr std::uint64_t chunk = 1u << 30;
  for (std::uint64_t at = 0; at < n; at += chunk)
    mpi_check(MPI_Send(bytes.data() + at, int(std::min(chunk, n - at)), MPI_BYTE, to, tag, comm), "MPI_Send");
}

inline std::vector<char> recv_bytes(int from, int tag, MPI_Comm comm) {
  std::uint64_t n = 0;
  mpi_check(MPI_Recv(&n, 1, MPI_UINT64_T, from, tag, comm, MPI_STATUS_IGNORE), "MPI_Recv");
  std::vector<char> bytes(static_cast<size_t>(n));
  constexpr std::uint64_t chunk = 1u << 30;
  for (std::uint64_t at = 0; at < n; at += chunk)
    mpi_check(MPI_Recv(bytes.data() + at, int(std::min(chunk, n - at)), MPI_BYTE, from, tag, comm, MPI_STATUS_IGNORE),
              "MPI_Recv");
  return bytes;
}

}  // namespace ss
