#pragma once
#include <functional>
// A 2D texture of 32-bit texels (float or int, 1 or 4 channels) that kernels read with texelFetch
// and render into. Owns its GL name; knows its size and format; reads and writes whole rows.
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

  // Rows [first_row, first_row + rows) from/to a tightly packed host buffer of 32-bit values
  // (float or int32 as the format says).
  void write_rows(int first_row, int rows, const void* data);
  // The same rows written by `fill(image)`, which must write all of their tightly packed image:
  // straight into a mapped pixel buffer object (no host image, no copy by the driver), or into a
  // host buffer when none can be mapped.
  void write_rows_with(int first_row, int rows, const std::function<void(void*)>& fill);
  void read_rows(int first_row, int rows, void* data) const;

private:
  TextureName name_;
  int width_ = 0, height_ = 0;
  TexelFormat format_ = TexelFormat::r32f;
};

}  // namespace ss
