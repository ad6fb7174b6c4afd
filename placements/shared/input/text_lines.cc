// SPDX-License-Identifier: GPL-2.0-or-later
#include "input/text_lines.hh"

#include <cerrno>
#include <cstddef>
#include <cstdlib>
#include <cstring>

#include "error.hh"

namespace slurmpin {

std::string where(const std::string& path, int line) {
  return path + ":" + std::to_string(line) + ": ";
}

std::vector<TextLine> split_text_lines(std::string_view text, const std::string& path) {
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

std::vector<std::string> split_fields(std::string_view text) {
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

std::vector<std::string> split_fields_blank(std::string_view text) {
  std::vector<std::string> out;
  size_t i = 0;
  while (true) {
    i = text.find_first_not_of(" \t", i);
    if (i == std::string_view::npos) break;
    size_t j = text.find_first_of(" \t", i);
    out.emplace_back(text.substr(i, j == std::string_view::npos ? std::string_view::npos : j - i));
    if (j == std::string_view::npos) break;
    i = j;
  }
  return out;
}

}  // namespace slurmpin
