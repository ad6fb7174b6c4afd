// SPDX-License-Identifier: GPL-2.0-or-later
// Line-oriented reading shared by the matrix, profile and placement parsers:
// every error names the file and line, as `file:line: problem (fix)`.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

namespace slurmpin {

// Only lines with text are kept: a file of blank lines costs nothing.
struct TextLine {
  int number;        // 1-based
  std::string text;  // comment ('#' to end of line) and surrounding blanks removed
};

// Reads `path` as the calling user, opened once (user_file.hh). Throws Error
// if it cannot be read, is not a regular file, or is larger than `max_bytes`.
std::vector<TextLine> read_text_lines(const std::string& path, size_t max_bytes = 64u << 20);

// The same for text already read; `path` names it in errors.
std::vector<TextLine> split_text_lines(const std::string& text, const std::string& path);

// Splits on blanks and commas (published matrices use either).
std::vector<std::string> split_fields(const std::string& text);
// What separates those fields (inline: a dense matrix of 1024 threads is
// five million characters).
inline bool is_field_separator(char c) { return c == ' ' || c == '\t' || c == ',' || c == '\r'; }

// Splits on blanks only (fields may hold commas, like CPU lists).
std::vector<std::string> split_fields_blank(const std::string& text);

// "path:line: " prefix.
std::string where(const std::string& path, int line);

}  // namespace slurmpin
