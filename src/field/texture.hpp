#pragma once
// A 2D texture of 32-bit texels (float or int, 1 or 4 channels) that kernels read with texelFetch
// and render into. Owns its GL name; knows its size and format; reads and writes whole rows.
#include <cstdint>
#include <functional>

#include <GL/glew.h>

#include "gl/objects.hpp"

namespace ss {

enum class TexelFormat { r32f, rgba32f, r32i, rgba32i };

int channels(TexelFormat format);
bool is_integer(TexelFormat format);
const char* to_string(TexelFormat format);

class Texture {
public:
  Texture() = default;
  // Allocates width×height texels; throws ss::Error naming the size on out-of-memory.
  Texture(int width, int height, TexelFormat format);

  GLuint id() const { return name_.id(); }
  int width() const { return width_; }
  int height() const { return height_; }
  TexelFormat format() const { return format_; }
  explicit operator bool() const { return bool(name_); }

  // Rows [first_row, first_row + rows), streamed in chunks of about 64 MiB through one pixel buffer
  // object: for each chunk, fill(image, first, count) writes the 32-bit values (float or int32 as
  // the format says) [first, first + count) of the rows' tightly packed image, counted from
  // first_row, to `image`: the mapped buffer itself (no host image, no copy by the driver, no
  // pinned staging the size of the texture), or a host buffer when none can be mapped.
  using ChunkFill = std::function<void(void* image, std::int64_t first, std::int64_t count)>;
  void write_rows(int first_row, int rows, const ChunkFill& fill);
  // Rows [first_row, first_row + rows) to a tightly packed host buffer of 32-bit values.
  void read_rows(int first_row, int rows, void* data) const;

private:
  TextureName name_;
  int width_ = 0, height_ = 0;
  TexelFormat format_ = TexelFormat::r32f;
};

}  // namespace ss
