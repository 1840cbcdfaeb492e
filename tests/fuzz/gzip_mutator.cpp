// libFuzzer custom mutator for the gzip target: mutates the decompressed mesh and compresses it
// again (random bytes almost never make a valid deflate stream), and one time in eight mutates
// the compressed bytes themselves, so corrupt and truncated streams are tried as well.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include <zlib.h>

extern "C" std::size_t LLVMFuzzerMutate(std::uint8_t* data, std::size_t size, std::size_t max_size);

namespace {

// Whole-buffer gzip inflate; false when `in` is not one complete gzip stream.
bool inflate_all(const std::uint8_t* in, std::size_t size, std::string& out) {
  z_stream zs{};
  if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK) return false;
  zs.next_in = const_cast<Bytef*>(in);
  zs.avail_in = static_cast<uInt>(size);
  char chunk[1 << 14];
  int rc = Z_OK;
  while (rc == Z_OK) {
    zs.next_out = reinterpret_cast<Bytef*>(chunk);
    zs.avail_out = sizeof chunk;
    rc = inflate(&zs, Z_NO_FLUSH);
    out.append(chunk, sizeof chunk - zs.avail_out);
    if (out.size() > (1u << 20)) rc = Z_MEM_ERROR;
  }
  inflateEnd(&zs);
  return rc == Z_STREAM_END;
}

// gzip-compresses `in` into out[0, max); 0 when it does not fit.
std::size_t deflate_to(const std::string& in, std::uint8_t* out, std::size_t max) {
  z_stream zs{};
  if (deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK) return 0;
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  zs.avail_in = static_cast<uInt>(in.size());
  zs.next_out = out;
  zs.avail_out = static_cast<uInt>(max);
  const int rc = deflate(&zs, Z_FINISH);
  const std::size_t n = zs.total_out;
  deflateEnd(&zs);
  return rc == Z_STREAM_END ? n : 0;
}

}  // namespace

extern "C" std::size_t LLVMFuzzerCustomMutator(std::uint8_t* data, std::size_t size, std::size_t max_size,
                                               unsigned int seed) {
  std::string plain;
  if (seed % 8 != 0 && inflate_all(data, size, plain)) {
    const std::size_t length = plain.size();
    plain.resize(2 * length + 64);  // room to grow
    plain.resize(LLVMFuzzerMutate(reinterpret_cast<std::uint8_t*>(plain.data()), length, plain.size()));
    const std::size_t out = deflate_to(plain, data, max_size);
    if (out > 0) return out;
  }
  return LLVMFuzzerMutate(data, size, max_size);
}
