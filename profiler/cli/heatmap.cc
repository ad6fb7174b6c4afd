// SPDX-License-Identifier: GPL-2.0-or-later
#include "heatmap.hh"

#include <zlib.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>

#include "bitmap_font.hh"
#include "error.hh"

namespace slurmpin {

namespace {

void put32(std::string& s, uint32_t v) {
  for (int i = 3; i >= 0; --i) s += static_cast<char>((v >> (8 * i)) & 0xff);
}

void chunk(std::string& png, const char* type, const std::string& data) {
  put32(png, static_cast<uint32_t>(data.size()));
  std::string body = std::string(type, 4) + data;
  png += body;
  put32(png, static_cast<uint32_t>(crc32(0, reinterpret_cast<const Bytef*>(body.data()), body.size())));
}

// An RGB image with just what a labelled heatmap needs.
class Canvas {
 public:
  Canvas(uint32_t w, uint32_t h) : w_(w), h_(h), rgb_(static_cast<size_t>(w) * h * 3, 255) {}

  void fill(uint32_t x, uint32_t y, uint32_t w, uint32_t h, const uint8_t c[3]) {
    for (uint32_t j = y; j < y + h && j < h_; ++j)
      for (uint32_t i = x; i < x + w && i < w_; ++i) std::memcpy(&rgb_[(static_cast<size_t>(j) * w_ + i) * 3], c, 3);
  }

  // Black text, each font pixel `scale` x `scale`.
  void text(uint32_t x, uint32_t y, const std::string& s, uint32_t scale) {
    static const uint8_t black[3] = {0, 0, 0};
    for (size_t k = 0; k < s.size(); ++k)
      for (int row = 0; row < kGlyphHeight; ++row) {
        unsigned bits = glyph_row(s[k], row);
        for (int col = 0; col < kGlyphWidth; ++col)
          if (bits & (0x10u >> col))
            fill(x + static_cast<uint32_t>((k * (kGlyphWidth + 1) + col)) * scale, y + row * scale, scale, scale, black);
      }
  }
  static uint32_t text_width(const std::string& s, uint32_t scale) {
    return static_cast<uint32_t>(s.size() * (kGlyphWidth + 1)) * scale;
  }

  // PNG: 8-bit RGB, one zlib stream.
  std::string png() const {
    std::string raw;
    raw.reserve((static_cast<size_t>(w_) * 3 + 1) * h_);
    for (uint32_t y = 0; y < h_; ++y) {
      raw += '\0';  // filter: none
      raw.append(reinterpret_cast<const char*>(&rgb_[static_cast<size_t>(y) * w_ * 3]), static_cast<size_t>(w_) * 3);
    }
    uLongf size = compressBound(raw.size());
    std::string z(size, '\0');
    if (compress2(reinterpret_cast<Bytef*>(&z[0]), &size, reinterpret_cast<const Bytef*>(raw.data()), raw.size(), 6) !=
        Z_OK)
      throw Error("cannot compress the image");
    z.resize(size);
    std::string out = "\x89PNG\r\n\x1a\n", ihdr;
    put32(ihdr, w_);
    put32(ihdr, h_);
    ihdr += std::string("\x08\x02\x00\x00\x00", 5);  // 8-bit RGB, no interlace
    chunk(out, "IHDR", ihdr);
    chunk(out, "IDAT", z);
    chunk(out, "IEND", "");
    return out;
  }

 private:
  uint32_t w_, h_;
  std::vector<uint8_t> rgb_;
};

// 0 -> white, then yellow, red, dark red at 1.
void colour(double v, uint8_t c[3]) {
  c[0] = static_cast<uint8_t>(255 - 100 * std::max(0.0, v - 0.66) * 3);
  c[1] = static_cast<uint8_t>(255 * (1 - std::min(1.0, v * 1.5)));
  c[2] = static_cast<uint8_t>(255 * (1 - std::min(1.0, v * 3)));
}

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, v >= 1e6 ? "%.2e" : "%.0f", v);
  return buf;
}

}  // namespace

namespace {

// Each cell's colour value, 0 to 1: on the absolute scale, what a pair
// shares as a share of the less active thread's accesses (at most all of
// them in the simple model; the rw model can count a line's writes twice,
// so it is capped); without accesses, against the largest entry.
std::vector<std::vector<double>> colour_values(const std::vector<std::vector<double>>& m,
                                               const std::vector<double>& accesses, double max) {
  size_t n = m.size();
  std::vector<std::vector<double>> out(n, std::vector<double>(n, 0));
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j < n && j < m[i].size(); ++j) {
      if (accesses.size() == n) {
        double less = std::min(accesses[i], accesses[j]);
        out[i][j] = less > 0 ? std::min(1.0, m[i][j] / less) : 0;
      } else {
        out[i][j] = max > 0 ? m[i][j] / max : 0;
      }
    }
  return out;
}

}  // namespace

void write_heatmap_png(const std::vector<std::vector<double>>& m, const std::vector<double>& thread_accesses,
                       const std::string& title, const std::string& unit, const std::string& path) {
  size_t n = m.size();
  if (n == 0) throw Error("empty matrix: nothing to draw");
  const uint32_t scale = 2, line = kGlyphHeight * scale, gap = 8;
  uint32_t cell = static_cast<uint32_t>(std::max<size_t>(2, 512 / n)), side = static_cast<uint32_t>(n) * cell;
  bool absolute = thread_accesses.size() == n;
  double max = 0;
  for (const auto& row : m)
    for (double v : row) max = std::max(max, v);
  std::vector<std::vector<double>> value = colour_values(m, thread_accesses, max);
  std::string widest = std::to_string(n - 1), top_value = absolute ? "100%" : number(max);
  uint32_t label_w = Canvas::text_width(widest, scale);
  uint32_t left = gap + label_w + gap, top = gap + line + gap + line + gap;
  uint32_t bar_x = left + side + 2 * gap, bar_w = 20;
  // Under the matrix, what the colours count.
  std::string caption = absolute ? "colour: " + unit + ", as a share of all accesses of the less active thread"
                                 : "colour scale: " + unit + " (relative: no per-thread accesses recorded)";
  uint32_t width = std::max({bar_x + bar_w + gap + Canvas::text_width(top_value, scale) + gap,
                             gap + Canvas::text_width(title, scale) + gap, gap + Canvas::text_width(caption, scale) + gap});
  Canvas c(width, top + side + gap + line + gap);
  c.text(gap, gap, title, scale);
  // Thread numbers, as often as they fit: rows on the left, columns on top.
  uint32_t row_step = (line + 2 + cell - 1) / cell, col_step = (label_w + scale * 3 + cell - 1) / cell;
  for (size_t i = 0; i < n; i += row_step) {
    std::string s = std::to_string(i);
    c.text(left - gap - Canvas::text_width(s, scale), top + static_cast<uint32_t>(i) * cell, s, scale);
  }
  for (size_t j = 0; j < n; j += col_step) c.text(left + static_cast<uint32_t>(j) * cell, top - gap - line, std::to_string(j), scale);
  uint8_t rgb[3];
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j < n; ++j) {
      colour(value[i][j], rgb);
      c.fill(left + static_cast<uint32_t>(j) * cell, top + static_cast<uint32_t>(i) * cell, cell, cell, rgb);
    }
  // The colour scale: the top is all accesses (or the largest entry), the bottom 0.
  for (uint32_t y = 0; y < side; ++y) {
    colour(1.0 - static_cast<double>(y) / std::max<uint32_t>(1, side - 1), rgb);
    c.fill(bar_x, top + y, bar_w, 1, rgb);
  }
  c.text(bar_x + bar_w + gap, top, top_value, scale);
  c.text(bar_x + bar_w + gap, top + side - line, "0", scale);
  c.text(gap, top + side + gap, caption, scale);
  std::ofstream out(path, std::ios::binary);
  if (!(out << c.png())) throw Error(path + ": cannot write the image");
}

}  // namespace slurmpin
