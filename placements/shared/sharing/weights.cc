// SPDX-License-Identifier: GPL-2.0-or-later
#include "sharing/weights.hh"

#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "error.hh"
#include "input/text_lines.hh"
#include "sharing/sharing_matrix.hh"

namespace slurmpin {

namespace {

// Whole numbers of up to this many digits are exact in a double: the
// counts the profiler writes, read without the general parser.
constexpr ptrdiff_t kExactDigits = 15;

// Reads the decimal digits from p on into v; returns where they stop.
const char* scan_digits(const char* p, const char* end, uint64_t& v) {
  v = 0;
  while (p < end && static_cast<unsigned>(*p - '0') < 10) v = v * 10 + static_cast<uint64_t>(*p++ - '0');
  return p;
}

}  // namespace

void append_weights(std::string_view text, std::vector<double>& out, const std::string& path, int line) {
  const char* p = text.data();
  const char* end = p + text.size();
  while (p < end) {
    while (p < end && is_field_separator(*p)) ++p;
    if (p == end) break;
    const char* b = p;
    uint64_t v;
    p = scan_digits(b, end, v);
    if ((p == end || is_field_separator(*p)) && p - b <= kExactDigits) {
      out.push_back(static_cast<double>(v));
      continue;
    }
    while (p < end && !is_field_separator(*p)) ++p;
    out.push_back(parse_weight(b, static_cast<size_t>(p - b), path, line));
  }
}

double parse_weight(const std::string& field, const std::string& path, int line) {
  return parse_weight(field.data(), field.size(), path, line);
}

// std::from_chars: no locale, no allocation (a dense matrix of 1024 threads
// holds a million entries). It takes no leading '+', which strtod did.
double parse_weight(const char* field, size_t size, const std::string& path, int line) {
  uint64_t count;
  if (size > 0 && static_cast<ptrdiff_t>(size) <= kExactDigits && scan_digits(field, field + size, count) == field + size)
    return static_cast<double>(count);
  auto text = [&] { return std::string(field, size); };
  const char* begin = field;
  const char* end = field + size;
  static const struct Numeric {
    bool is[256] = {};
    Numeric() {
      for (const char* c = "0123456789.eE+-"; *c; ++c) is[static_cast<unsigned char>(*c)] = true;
    }
  } numeric;
  bool plain = size > 0;
  for (const char* c = field; c < end; ++c) plain &= numeric.is[static_cast<unsigned char>(*c)];
  if (plain && *begin == '+' && size > 1 && *(begin + 1) != '-' && *(begin + 1) != '+') ++begin;
  double v = 0;
  std::from_chars_result r = plain ? std::from_chars(begin, end, v) : std::from_chars_result{begin, std::errc::invalid_argument};
  if (!plain || r.ec != std::errc() || r.ptr != end || !std::isfinite(v))
    throw Error(where(path, line) + "'" + text() + "' is not a number (matrix entries are plain decimal numbers)");
  if (v < 0) throw Error(where(path, line) + "negative entry " + text() + " (sharing counts are >= 0: fix the file)");
  if (v > kMaxWeight)
    throw Error(where(path, line) + "entry " + text() + " is too large (at most 1e100: scale the counts down)");
  return v;
}

}  // namespace slurmpin
