#include "text_lines.hh"

#include <sys/stat.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>

#include "error.hh"

namespace slurmpin {

std::string where(const std::string& path, int line) {
  return path + ":" + std::to_string(line) + ": ";
}

std::vector<TextLine> read_text_lines(const std::string& path, size_t max_bytes) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0)
    throw Error(path + ": " + std::strerror(errno) + " (check the path)");
  if (!S_ISREG(st.st_mode)) throw Error(path + ": not a regular file (give a file path)");
  if (static_cast<size_t>(st.st_size) > max_bytes)
    throw Error(path + ": file is larger than " + std::to_string(max_bytes >> 20) +
                " MiB (is this the right file?)");
  std::ifstream in(path);
  if (!in) throw Error(path + ": " + std::strerror(errno) + " (check its permissions)");
  std::vector<TextLine> out;
  std::string raw;
  int number = 0;
  while (std::getline(in, raw)) {
    ++number;
    if (raw.find('\0') != std::string::npos)
      throw Error(where(path, number) + "binary data in a text file (is this the right file?)");
    size_t hash = raw.find('#');
    if (hash != std::string::npos) raw.erase(hash);
    size_t b = raw.find_first_not_of(" \t\r");
    size_t e = raw.find_last_not_of(" \t\r");
    out.push_back({number, b == std::string::npos ? "" : raw.substr(b, e - b + 1)});
  }
  return out;
}

std::vector<std::string> split_fields(const std::string& text) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : text) {
    if (c == ' ' || c == '\t' || c == ',' || c == '\r') {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
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
  if (field.find_first_not_of("0123456789.eE+-") != std::string::npos)
    throw Error(where(path, line) + "'" + field +
                "' is not a number (matrix entries are plain decimal numbers)");
  errno = 0;
  char* end = nullptr;
  double v = std::strtod(field.c_str(), &end);
  if (field.empty() || *end != '\0' || errno == ERANGE || !std::isfinite(v))
    throw Error(where(path, line) + "'" + field +
                "' is not a number (matrix entries are plain decimal numbers)");
  if (v < 0)
    throw Error(where(path, line) + "negative entry " + field +
                " (sharing counts are >= 0: fix the file)");
  return v;
}

}  // namespace slurmpin
