#pragma once
// A tiny built-in bitmap font for the picture's title and colour-bar labels: printable ASCII in
// 6x10 cells (5x7 letters and digits), drawn as one quad per lit pixel, scaled by whole numbers.
#include <cstdint>
#include <string>

namespace ss {

inline constexpr int kGlyphWidth = 6;    // cell width in font pixels (glyph + 1 column of spacing)
inline constexpr int kGlyphHeight = 10;  // cell height in font pixels (ascent 8, descent 2)

// Ten rows, top first; bit (kGlyphWidth - 1 - x) of row y is pixel (x, y). Characters outside
// printable ASCII draw as '?'.
const std::uint8_t* glyph_rows(char c);
bool glyph_pixel(char c, int x, int y);
// Width in screen pixels of `text` drawn at `scale` screen pixels per font pixel.
int text_width(const std::string& text, int scale);

}  // namespace ss
