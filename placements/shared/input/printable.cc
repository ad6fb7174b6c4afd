// SPDX-License-Identifier: GPL-2.0-or-later
#include "input/printable.hh"

#include <cstdio>

namespace slurmpin {

namespace {

void escape(std::string& out, const std::string& text, size_t at, size_t n) {
  for (size_t k = at; k < at + n; ++k) {
    char hex[8];
    std::snprintf(hex, sizeof hex, "\\x%02x", static_cast<unsigned char>(text[k]));
    out += hex;
  }
}

// The length of the valid UTF-8 sequence at `at` (its code point in *cp),
// or 0 when the bytes there are not one.
size_t utf8_at(const std::string& text, size_t at, unsigned* cp) {
  unsigned char c = static_cast<unsigned char>(text[at]);
  size_t n = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
  if (!n || at + n > text.size()) return 0;
  unsigned v = c & (0x7f >> n);
  for (size_t k = 1; k < n; ++k) {
    unsigned char b = static_cast<unsigned char>(text[at + k]);
    if ((b & 0xc0) != 0x80) return 0;
    v = v << 6 | (b & 0x3f);
  }
  *cp = v;
  return n;
}

}  // namespace

std::string printable(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
      ++i;
      continue;
    }
    unsigned cp = 0;
    size_t n = c >= 0x80 ? utf8_at(text, i, &cp) : 0;
    // Control bytes, DEL, bytes that are not UTF-8, and the C1 controls
    // (which some terminals obey as ESC sequences) are escaped.
    if (n && cp > 0x9f) out.append(text, i, n);
    else escape(out, text, i, n ? n : 1);
    i += n ? n : 1;
  }
  return out;
}

}  // namespace slurmpin
