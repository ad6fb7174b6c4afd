// SPDX-License-Identifier: GPL-2.0-or-later
// Line-oriented reading shared by the matrix, profile and placement parsers:
// every error names the file and line, as `file:line: problem (fix)`.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace slurmpin {

// Only lines with text are kept: a file of blank lines costs nothing.
struct TextLine {
  int number;             // 1-based
  std::string_view text;  // comment ('#' to end of line) and surrounding blanks removed
};

// The lines of `text` (a file read as the calling user: user_file.hh);
// `path` names it in errors. The lines are views into `text`, which
// outlives them: a profile of 256 threads is 3 MB, not copied line by line.
std::vector<TextLine> split_text_lines(std::string_view text, const std::string& path);
std::vector<TextLine> split_text_lines(std::string&& text, const std::string& path) = delete;  // views would dangle

// Splits on blanks and commas (published matrices use either).
std::vector<std::string> split_fields(std::string_view text);
// What separates those fields (inline: a dense matrix of 1024 threads is
// five million characters).
inline bool is_field_separator(char c) { return c == ' ' || c == '\t' || c == ',' || c == '\r'; }

// Splits on blanks only (fields may hold commas, like CPU lists).
std::vector<std::string> split_fields_blank(std::string_view text);

// "path:line: " prefix.
std::string where(const std::string& path, int line);

}  // namespace slurmpin
