// SPDX-License-Identifier: GPL-2.0-or-later
#include "text_lines.hh"

#include <cerrno>
#include <cstddef>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "affinity.hh"
#include "error.hh"
#include "user_file.hh"

namespace slurmpin {

std::string where(const std::string& path, int line) {
  return path + ":" + std::to_string(line) + ": ";
}

std::vector<TextLine> read_text_lines(const std::string& path, size_t max_bytes) {
  return split_text_lines(read_user_file(path, max_bytes), path);
}

std::vector<TextLine> split_text_lines(const std::string& text, const std::string& path) {
  std::vector<TextLine> out;
  int number = 0;
  for (size_t pos = 0; pos < text.size();) {
    size_t nl = text.find('\n', pos);
    size_t stop = nl == std::string::npos ? text.size() : nl;
    ++number;
    // Searches stay inside the line: the cost is linear in the file's size.
    const char* hash = static_cast<const char*>(std::memchr(text.data() + pos, '#', stop - pos));
    size_t content_end = hash ? static_cast<size_t>(hash - text.data()) : stop;
    if (std::memchr(text.data() + pos, '\0', stop - pos))
      throw Error(where(path, number) + "binary data in a text file (is this the right file?)");
    size_t b = pos;
    while (b < content_end && (text[b] == ' ' || text[b] == '\t' || text[b] == '\r')) ++b;
    if (b < content_end) {
      size_t e = text.find_last_not_of(" \t\r", content_end - 1);
      out.push_back({number, text.substr(b, e - b + 1)});
    }
    pos = stop + 1;
  }
  return out;
}

namespace {

// What separates a matrix row's fields: blanks and commas.
bool is_field_separator(char c) { return c == ' ' || c == '\t' || c == ',' || c == '\r'; }

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

std::vector<std::string> split_fields(const std::string& text) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : text) {
    if (is_field_separator(c)) {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

void append_weights(const std::string& text, std::vector<double>& out, const std::string& path, int line) {
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

std::vector<std::string> split_fields_blank(const std::string& text) {
  std::vector<std::string> out;
  size_t i = 0;
  while (true) {
    i = text.find_first_not_of(" \t", i);
    if (i == std::string::npos) break;
    size_t j = text.find_first_of(" \t", i);
    out.push_back(text.substr(i, j == std::string::npos ? std::string::npos : j - i));
    if (j == std::string::npos) break;
    i = j;
  }
  return out;
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
