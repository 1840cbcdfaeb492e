#pragma once
// PNG files through libpng: RGBA8 images, rows top first.
#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

namespace ss {

struct RgbaImage {
  int width = 0, height = 0;
  std::vector<std::uint8_t> pixels;  // width * height * 4 bytes, rows top first

  const std::uint8_t* at(int x, int y) const { return &pixels[(std::size_t(y) * std::size_t(width) + std::size_t(x)) * 4]; }
};

// Writes `image` as an 8-bit RGBA PNG through AtomicFile: the file appears complete under `path`
// or not at all. Throws ss::Error naming the path on any failure.
void write_png(const std::string& path, const RgbaImage& image);
// The PNG bytes to `out`; `path` only names the destination in error messages.
void write_png(std::ostream& out, const RgbaImage& image, const std::string& path);
// Reads any PNG libpng understands, converted to RGBA8. Throws ss::Error naming the path.
RgbaImage read_png(const std::string& path);

}  // namespace ss
