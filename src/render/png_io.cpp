#include "render/png_io.hpp"

#include <png.h>

#include <cstdio>
#include <memory>
#include <ostream>

#include "util/atomic_file.hpp"
#include "util/error.hpp"

namespace ss {
namespace {

// libpng reports errors through a callback that must not return. We leave it with a C++ exception
// instead of longjmp: libpng's frames carry unwind tables on the platforms we build for (x86-64,
// aarch64 Debian), and each entry point below frees the libpng structs on the way out.
struct PngFailure {
  std::string message;
};

[[noreturn]] void on_png_error(png_structp, png_const_charp message) { throw PngFailure{message ? message : "?"}; }
void on_png_warning(png_structp, png_const_charp) {}

void write_to_stream(png_structp png, png_bytep data, png_size_t length) {
  auto* out = static_cast<std::ostream*>(png_get_io_ptr(png));
  out->write(reinterpret_cast<const char*>(data), std::streamsize(length));
  if (!*out) throw PngFailure{"write failed"};
}
void flush_stream(png_structp png) { static_cast<std::ostream*>(png_get_io_ptr(png))->flush(); }

}  // namespace

void write_png(const std::string& path, const RgbaImage& image) {
  SS_REQUIRE(image.width > 0 && image.height > 0 &&
                 image.pixels.size() == std::size_t(image.width) * std::size_t(image.height) * 4,
             "cannot write PNG " << path << ": image is " << image.width << "x" << image.height << " with "
                                 << image.pixels.size() << " bytes");
  AtomicFile file(path);
  write_png(file.stream(), image, path);
  file.commit();
}

void write_png(std::ostream& out, const RgbaImage& image, const std::string& path) {
  SS_REQUIRE(image.width > 0 && image.height > 0 &&
                 image.pixels.size() == std::size_t(image.width) * std::size_t(image.height) * 4,
             "cannot write PNG " << path << ": image is " << image.width << "x" << image.height << " with "
                                 << image.pixels.size() << " bytes");
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, on_png_error, on_png_warning);
  SS_REQUIRE(png, "cannot write PNG " << path << ": libpng cannot start");
  png_infop info = png_create_info_struct(png);
  try {
    SS_REQUIRE(info, "cannot write PNG " << path << ": libpng cannot start");
    png_set_write_fn(png, &out, write_to_stream, flush_stream);
    png_set_IHDR(png, info, png_uint_32(image.width), png_uint_32(image.height), 8, PNG_COLOR_TYPE_RGB_ALPHA,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_set_compression_level(png, 6);
    png_write_info(png, info);
    for (int y = 0; y < image.height; ++y)
      png_write_row(png, const_cast<png_bytep>(image.at(0, y)));
    png_write_end(png, nullptr);
  } catch (const PngFailure& failure) {
    png_destroy_write_struct(&png, &info);
    SS_THROW("cannot write PNG " << path << ": " << failure.message);
  } catch (...) {
    png_destroy_write_struct(&png, &info);
    throw;
  }
  png_destroy_write_struct(&png, &info);
}

RgbaImage read_png(const std::string& path) {
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"), std::fclose);
  SS_REQUIRE(file, "cannot open PNG " << path);
  png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, nullptr, on_png_error, on_png_warning);
  SS_REQUIRE(png, "cannot read PNG " << path << ": libpng cannot start");
  png_infop info = png_create_info_struct(png);
  RgbaImage image;
  try {
    SS_REQUIRE(info, "cannot read PNG " << path << ": libpng cannot start");
    png_init_io(png, file.get());
    png_read_info(png, info);
    png_set_expand(png);  // palette and low-bit grey to 8 bits, tRNS to alpha
    png_set_strip_16(png);
    png_set_gray_to_rgb(png);
    png_set_add_alpha(png, 0xff, PNG_FILLER_AFTER);
    png_read_update_info(png, info);
    image.width = int(png_get_image_width(png, info));
    image.height = int(png_get_image_height(png, info));
    SS_REQUIRE(png_get_rowbytes(png, info) == std::size_t(image.width) * 4, "PNG " << path << " does not convert to RGBA8");
    image.pixels.resize(std::size_t(image.width) * std::size_t(image.height) * 4);
    std::vector<png_bytep> rows(std::size_t(image.height));
    for (int y = 0; y < image.height; ++y) rows[std::size_t(y)] = image.pixels.data() + std::size_t(y) * std::size_t(image.width) * 4;
    png_read_image(png, rows.data());
    png_read_end(png, nullptr);
  } catch (const PngFailure& failure) {
    png_destroy_read_struct(&png, &info, nullptr);
    SS_THROW("cannot read PNG " << path << ": " << failure.message);
  } catch (...) {
    png_destroy_read_struct(&png, &info, nullptr);
    throw;
  }
  png_destroy_read_struct(&png, &info, nullptr);
  return image;
}

}  // namespace ss
