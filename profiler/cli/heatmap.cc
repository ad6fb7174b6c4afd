// SPDX-License-Identifier: GPL-2.0-or-later
#include "heatmap.hh"

#include <zlib.h>

#include <algorithm>
#include <cstdint>
#include <fstream>

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

}  // namespace

void write_heatmap_png(const std::vector<std::vector<double>>& m, const std::string& path) {
  size_t n = m.size();
  if (n == 0) throw Error("empty matrix: nothing to draw");
  int cell = static_cast<int>(std::max<size_t>(2, 512 / n));
  uint32_t side = static_cast<uint32_t>(n * cell);
  double max = 0;
  for (const auto& row : m)
    for (double v : row) max = std::max(max, v);
  std::string raw;
  raw.reserve((side * 3 + 1) * side);
  for (uint32_t y = 0; y < side; ++y) {
    raw += '\0';  // filter: none
    for (uint32_t x = 0; x < side; ++x) {
      double v = max > 0 ? m[y / cell][x / cell] / max : 0;
      // white -> yellow -> red -> dark red
      uint8_t r = static_cast<uint8_t>(255 - 100 * std::max(0.0, v - 0.66) * 3);
      uint8_t g = static_cast<uint8_t>(255 * (1 - std::min(1.0, v * 1.5)));
      uint8_t b = static_cast<uint8_t>(255 * (1 - std::min(1.0, v * 3)));
      raw += static_cast<char>(r), raw += static_cast<char>(g), raw += static_cast<char>(b);
    }
  }
  uLongf size = compressBound(raw.size());
  std::string z(size, '\0');
  if (compress2(reinterpret_cast<Bytef*>(&z[0]), &size, reinterpret_cast<const Bytef*>(raw.data()), raw.size(),
                6) != Z_OK)
    throw Error("cannot compress the image");
  z.resize(size);
  std::string png = "\x89PNG\r\n\x1a\n", ihdr;
  put32(ihdr, side);
  put32(ihdr, side);
  ihdr += std::string("\x08\x02\x00\x00\x00", 5);  // 8-bit RGB, no interlace
  chunk(png, "IHDR", ihdr);
  chunk(png, "IDAT", z);
  chunk(png, "IEND", "");
  std::ofstream out(path, std::ios::binary);
  if (!(out << png)) throw Error(path + ": cannot write the image");
}

}  // namespace slurmpin
