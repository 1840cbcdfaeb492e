#include "field/texture.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "gl/check.hpp"
#include "util/error.hpp"

namespace ss {
namespace {

struct GlFormat {
  GLenum internal, format, type;
};

GlFormat gl_format(TexelFormat f) {
  switch (f) {
    case TexelFormat::r32f: return {GL_R32F, GL_RED, GL_FLOAT};
    case TexelFormat::rgba32f: return {GL_RGBA32F, GL_RGBA, GL_FLOAT};
    case TexelFormat::r32i: return {GL_R32I, GL_RED_INTEGER, GL_INT};
    case TexelFormat::rgba32i: return {GL_RGBA32I, GL_RGBA_INTEGER, GL_INT};
  }
  return {GL_R32F, GL_RED, GL_FLOAT};
}

std::string describe(int w, int h, TexelFormat f) {
  return std::to_string(w) + "x" + std::to_string(h) + " " + to_string(f) + " texture";
}

}  // namespace

int channels(TexelFormat f) { return (f == TexelFormat::rgba32f || f == TexelFormat::rgba32i) ? 4 : 1; }
bool is_integer(TexelFormat f) { return f == TexelFormat::r32i || f == TexelFormat::rgba32i; }
const char* to_string(TexelFormat f) {
  switch (f) {
    case TexelFormat::r32f: return "R32F";
    case TexelFormat::rgba32f: return "RGBA32F";
    case TexelFormat::r32i: return "R32I";
    case TexelFormat::rgba32i: return "RGBA32I";
  }
  return "?";
}

Texture::Texture(int width, int height, TexelFormat format)
    : name_(make_texture()), width_(width), height_(height), format_(format) {
  SS_REQUIRE(width >= 1 && height >= 1, "invalid texture size " << width << "x" << height);
  const GlFormat g = gl_format(format);
  glBindTexture(GL_TEXTURE_2D, name_.id());
  // No mipmaps and nearest filtering: the texture is complete, so texelFetch reads it.
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAX_LEVEL, 0);
  glTexStorage2D(GL_TEXTURE_2D, 1, g.internal, width, height);
  const GLenum error = glGetError();
  glBindTexture(GL_TEXTURE_2D, 0);
  if (error == GL_OUT_OF_MEMORY) {
    const double mib = double(width) * height * channels(format) * 4 / (1024.0 * 1024.0);
    SS_THROW("out of GPU memory allocating a " << describe(width, height, format) << " (" << mib << " MiB)");
  }
  SS_REQUIRE(error == GL_NO_ERROR, "GL error 0x" << std::hex << error << " allocating a " << describe(width, height, format));
}

// Through pixel buffer objects the driver frees right after, so it keeps no staging copy of the
// image on the host (a lower peak of host memory for large fields); in chunks, so none is pinned
// memory the size of the texture (docs/performance.md has the measured effect).
void Texture::write_rows(int first_row, int rows, const ChunkFill& fill) {
  SS_REQUIRE(first_row >= 0 && rows >= 0 && first_row + rows <= height_, "row range out of texture");
  if (rows == 0) return;
  const GlFormat g = gl_format(format_);
  const std::int64_t per_row = std::int64_t(width_) * channels(format_);  // 32-bit values
  constexpr std::int64_t kChunkBytes = std::int64_t(64) << 20;
  const int chunk_rows = int(std::max<std::int64_t>(1, kChunkBytes / (per_row * 4)));
  BufferName pbo = make_buffer();
  glBindTexture(GL_TEXTURE_2D, name_.id());
  glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
  std::vector<char> host;  // only when no buffer can be mapped
  for (int r = 0; r < rows; r += chunk_rows) {
    const int n = std::min(chunk_rows, rows - r);
    const GLsizeiptr bytes = GLsizeiptr(per_row) * n * 4;
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, pbo.id());
    // New storage for each chunk (the previous one stays with its copy until that is done).
    glBufferData(GL_PIXEL_UNPACK_BUFFER, bytes, nullptr, GL_STREAM_DRAW);
    void* mapped = nullptr;
    if (glGetError() == GL_NO_ERROR)
      mapped = glMapBufferRange(GL_PIXEL_UNPACK_BUFFER, 0, bytes, GL_MAP_WRITE_BIT | GL_MAP_INVALIDATE_BUFFER_BIT);
    bool written = false;
    if (mapped) {
      fill(mapped, r * per_row, n * per_row);
      // false: the driver lost the buffer's contents (rare); the host path below writes them again
      written = glUnmapBuffer(GL_PIXEL_UNPACK_BUFFER) == GL_TRUE;
    }
    while (glGetError() != GL_NO_ERROR) {  // a failed allocation or map: not an error of this upload
    }
    if (!written) {
      glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
      host.resize(size_t(bytes));
      fill(host.data(), r * per_row, n * per_row);
    }
    glTexSubImage2D(GL_TEXTURE_2D, 0, 0, first_row + r, width_, n, g.format, g.type, written ? nullptr : host.data());
  }
  glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
  glBindTexture(GL_TEXTURE_2D, 0);
  SS_GL_CHECK("upload to " + describe(width_, height_, format_));
}

void Texture::read_rows(int first_row, int rows, void* data) const {
  SS_REQUIRE(first_row >= 0 && rows >= 0 && first_row + rows <= height_, "row range out of texture");
  if (rows == 0) return;
  const GlFormat g = gl_format(format_);
  // Read through a framebuffer so a row range (not only the whole image) can be read.
  FramebufferName fbo = make_framebuffer();
  GLint previous = 0;
  glGetIntegerv(GL_READ_FRAMEBUFFER_BINDING, &previous);
  glBindFramebuffer(GL_READ_FRAMEBUFFER, fbo.id());
  glFramebufferTexture2D(GL_READ_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, name_.id(), 0);
  glReadBuffer(GL_COLOR_ATTACHMENT0);
  glPixelStorei(GL_PACK_ALIGNMENT, 4);
  glReadPixels(0, first_row, width_, rows, g.format, g.type, data);
  glBindFramebuffer(GL_READ_FRAMEBUFFER, GLuint(previous));
  SS_GL_CHECK("download from " + describe(width_, height_, format_));
}

}  // namespace ss
